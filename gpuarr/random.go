package gpuarr

import (
	"sync/atomic"

	"github.com/gpuarr/gpuarr/device/dtype"
	"github.com/gpuarr/gpuarr/internal/fusion"
	"github.com/gpuarr/gpuarr/internal/layout"
)

// RNG is a counter-based random number generator (Philox4x32-10): the
// numbers depend only on the seed, the draw and the element's position,
// so they are the same on every device and backend, in any launch
// configuration. Each draw (UniformExpr, NormalExpr) takes the next stream of the
// generator, so successive draws differ; an RNG is safe for concurrent
// use (draws are then numbered in the order they happen).
//
//	g := gpuarr.NewRNG(42)
//	w, err := gpuarr.Eval(gpuarr.Mul(gpuarr.NormalExpr[float32](g, gpuarr.Shape{256, 128}), gpuarr.Scalar[float32](0.01)))
type RNG struct {
	seed uint64
	next atomic.Uint64
}

// NewRNG returns a generator whose first draw is stream 0 of seed.
func NewRNG(seed uint64) *RNG { return &RNG{seed: seed} }

// Seed is the generator's seed.
func (g *RNG) Seed() uint64 { return g.seed }

func draw[T Float](g *RNG, sh Shape, normal bool) Expr[T] {
	if g == nil {
		return Expr[T]{fusion.Failed(errNilRNG)}
	}
	if _, err := layout.Check("RNG", sh, 8); err != nil {
		return Expr[T]{fusion.Failed(err)}
	}
	sh = append(Shape(nil), sh...)
	return Expr[T]{fusion.Random(dtype.Of[T](), g.seed, g.next.Add(1)-1, normal, sh)}
}

// UniformExpr is an expression, not an array: random numbers uniform in
// [0, 1) of shape sh, drawn from g's next stream, computed only where the
// expression is evaluated (and fused with the rest of it). Eval gives an
// array of them:
//
//	u, err := gpuarr.Eval(gpuarr.UniformExpr[float32](g, gpuarr.Shape{n}))
//
// Each evaluation of the same Expr gives the same numbers; a new draw
// takes a new call.
func UniformExpr[T Float](g *RNG, sh Shape) Expr[T] { return draw[T](g, sh, false) }

// NormalExpr is UniformExpr with standard normal numbers (Box–Muller): an
// expression to evaluate, not an array.
func NormalExpr[T Float](g *RNG, sh Shape) Expr[T] { return draw[T](g, sh, true) }
