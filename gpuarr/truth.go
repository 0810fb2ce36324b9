package gpuarr

import (
	"github.com/gpuarr/gpuarr/device/dtype"
	"github.com/gpuarr/gpuarr/internal/fusion"
	"github.com/gpuarr/gpuarr/internal/fusion/expr"
)

// Truth is what Any and All test: a Mask, or an array or expression of
// any element type, whose nonzero elements are true (a NaN is nonzero,
// as in NumPy).
type Truth interface {
	truth() *fusion.Node
}

func (m Mask) truth() *fusion.Node { return m.n }

func (e Expr[T]) truth() *fusion.Node { return nonzero(e.n) }

func (a *Array[T]) truth() *fusion.Node { return nonzero(a.operand().n) }

// nonzero is the Bool node n != 0 (n itself when it is Bool).
func nonzero(n *fusion.Node) *fusion.Node {
	if n == nil || n.Err() != nil || n.Type() == dtype.Bool {
		return n
	}
	return fusion.Apply("Truth", expr.OpNe, dtype.Bool, n, fusion.Const(n.Type(), 0))
}

// Any reports, as 1 or 0 in a uint8 array, whether any element of x is
// true: over all elements, or along the axes Axis options name (KeepDims
// keeps them), in one fused pass. Any of no elements is 0 (false), as in
// NumPy.
//
//	hit, err := gpuarr.Any(gpuarr.Greater(x, gpuarr.Scalar[float32](1)), gpuarr.Axis(1))
func Any(x Truth, opts ...Option) (*Array[uint8], error) {
	return anyAll("Any", x, opts, expr.Max, 0)
}

// All reports, as 1 or 0 in a uint8 array, whether every element of x is
// true (see Any). All of no elements is 1 (true), as in NumPy.
func All(x Truth, opts ...Option) (*Array[uint8], error) {
	return anyAll("All", x, opts, expr.Min, 1)
}

// anyAll reduces x's truth values (0 or 1) with r; a reduction of no
// elements is empty.
func anyAll(call string, x Truth, opts []Option, r expr.ReduceOp, empty uint8) (*Array[uint8], error) {
	var n *fusion.Node
	if x != nil {
		n = x.truth()
	}
	rd, err := readReduction(call, n, opts, 0)
	if err != nil {
		return nil, err
	}
	if rd.empty() {
		return Full(rd.outShape, empty, On(rd.s))
	}
	return runReduction[uint8](rd, r, fusion.Unary(expr.OpCast, n, dtype.Uint8))
}
