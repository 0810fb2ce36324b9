package gpuarr

import (
	"fmt"
	"math"
	"math/bits"
	"strconv"

	"github.com/gpuarr/gpuarr/device/dtype"
	"github.com/gpuarr/gpuarr/internal/fusion"
	"github.com/gpuarr/gpuarr/internal/fusion/expr"
)

type ordOption float64

func (ordOption) isOption() {}

func (o ordOption) String() string {
	return "gpuarr.Ord(" + strconv.FormatFloat(float64(o), 'g', -1, 64) + ")"
}

// Ord picks the norm Norm computes, NumPy's ord: for vectors any p (1,
// 2, math.Inf(1), math.Inf(-1), 0, or another p), for matrices 1, -1,
// math.Inf(1) and math.Inf(-1). Without it Norm computes the 2-norm of
// vectors and the Frobenius norm of matrices.
func Ord(p float64) Option { return ordOption(p) }

// Norm is NumPy's linalg.norm of x. Which norm depends on the axes it
// runs over: without Axis options, all of them (a vector's, a matrix's,
// or for more axes the 2-norm of all elements, which takes no Ord); one
// Axis: the vector norms along it; two Axis options: the matrix norms
// over those axes (the first naming the rows). KeepDims keeps the axes.
//
// Vector norms (Ord p): p = 2 (the default), sqrt(Σ|x|²); 1, Σ|x|; +Inf,
// max|x|; −Inf, min|x|; 0, the number of nonzero elements; other p,
// (Σ|x|ᵖ)^(1/p). Matrix norms: the default is the Frobenius norm,
// sqrt(Σ|x|²); Ord(1) the largest column sum of |x|, Ord(-1) the
// smallest; Ord(+Inf) the largest row sum, Ord(-Inf) the smallest. The
// spectral and nuclear norms need singular values: take them from
// linalg.SVDVals. Sums accumulate in float64 (squares too, so the 2-norm
// of float32 elements neither overflows nor underflows where its result
// fits float32). A norm of no elements is 0, except ±Inf and matrix norms
// of an empty axis, which are errors matching ErrShape as in NumPy.
func Norm[T Float](x Operand[T], opts ...Option) (*Array[T], error) {
	const call = "Norm"
	n := operandNode(x)
	rd, err := readReduction(call, n, opts, optOrd)
	if err != nil {
		return nil, err
	}
	ord, hasOrd := 0.0, false
	for _, o := range opts {
		if p, ok := o.(ordOption); ok {
			ord, hasOrd = float64(p), true
		}
	}
	if math.IsNaN(ord) {
		return nil, fmt.Errorf("gpuarr.%s: Ord(NaN) is no norm: %w", call, ErrArgument)
	}
	naxes := bits.OnesCount64(rd.axes)
	switch {
	case rd.named == 2 || rd.named == 0 && naxes == 2:
		return matrixNorm[T](rd, n, ord, hasOrd)
	case rd.named > 2:
		return nil, fmt.Errorf("gpuarr.%s: %d Axis options: a norm runs along one axis (vectors) or two (matrices): %w", call, rd.named, ErrArgument)
	case rd.named == 0 && naxes > 2 && hasOrd:
		return nil, fmt.Errorf("gpuarr.%s: %s of %d axes: give one or two Axis options (without them only the default 2-norm of all elements is taken): %w",
			call, ordOption(ord), naxes, ErrArgument)
	}
	return vectorNorm[T](rd, n, ord, hasOrd)
}

// vectorNorm is the ord-norm along rd's axes.
func vectorNorm[T Float](rd *reduction, n *fusion.Node, ord float64, hasOrd bool) (*Array[T], error) {
	t := dtype.Of[T]()
	abs := fusion.Unary(expr.OpAbs, n, t)
	switch {
	case !hasOrd || ord == 2:
		return sqrtOfSum[T](rd, square(n))
	case math.IsInf(ord, 0):
		if rd.empty() {
			return nil, rd.emptyError(ordOption(ord).String())
		}
		r := expr.Max
		if ord < 0 {
			r = expr.Min
		}
		return runReduction[T](rd, r, abs)
	case ord == 0:
		return runReduction[T](rd, expr.Sum, fusion.Unary(expr.OpCast, nonzero(n), t))
	case ord == 1:
		return runReduction[T](rd, expr.Sum, abs)
	}
	// (Σ|x|ᵖ)^(1/p), the powers in float64.
	a64 := fusion.Unary(expr.OpCast, abs, dtype.Float64)
	p := fusion.Const(dtype.Float64, ord)
	s, err := runReduction[float64](rd, expr.Sum, fusion.Apply("Norm", expr.OpPow, dtype.Float64, a64, p))
	if err != nil {
		return nil, err
	}
	defer s.Release()
	root := fusion.Apply("Norm", expr.OpPow, dtype.Float64, s.operand().n, fusion.Const(dtype.Float64, 1/ord))
	return Eval(Expr[T]{fusion.Unary(expr.OpCast, root, t)}, On(rd.s))
}

// square is |n|² in float64.
func square(n *fusion.Node) *fusion.Node {
	x := fusion.Unary(expr.OpCast, n, dtype.Float64)
	return fusion.Apply("Norm", expr.OpMul, dtype.Float64, x, x)
}

// sqrtOfSum is sqrt(Σ v) over rd's axes, v float64, rounded to T.
func sqrtOfSum[T Float](rd *reduction, v *fusion.Node) (*Array[T], error) {
	s, err := runReduction[float64](rd, expr.Sum, v)
	if err != nil {
		return nil, err
	}
	defer s.Release()
	root := fusion.Unary(expr.OpSqrt, s.operand().n, dtype.Float64)
	return Eval(Expr[T]{fusion.Unary(expr.OpCast, root, dtype.Of[T]())}, On(rd.s))
}

// matrixNorm is the ord-norm of the matrices over rd's two axes (rows
// first: the first Axis option, or the lower axis without options).
func matrixNorm[T Float](rd *reduction, n *fusion.Node, ord float64, hasOrd bool) (*Array[T], error) {
	if !hasOrd {
		return sqrtOfSum[T](rd, square(n))
	}
	rows, cols := matrixAxes(rd)
	var sumOver, pickOver int
	switch {
	case ord == 1 || ord == -1: // column sums: over the rows
		sumOver, pickOver = rows, cols
	case math.IsInf(ord, 0): // row sums: over the columns
		sumOver, pickOver = cols, rows
	default:
		return nil, fmt.Errorf("gpuarr.%s: %s of matrices: Norm takes 1, -1, +Inf and -Inf (and the default, Frobenius); "+
			"the spectral and nuclear norms need the singular values (linalg.SVDVals): %w", rd.call, ordOption(ord), ErrArgument)
	}
	if rd.empty() {
		return nil, rd.emptyError(ordOption(ord).String())
	}
	abs := fusion.Unary(expr.OpAbs, n, dtype.Of[T]())
	first := rd.keeping()
	first.axes = 1 << sumOver
	first.shapes()
	sums, err := runReduction[T](first, expr.Sum, abs)
	if err != nil {
		return nil, err
	}
	defer sums.Release()
	second := rd.keeping()
	second.space = first.outShape
	second.axes = 1 << pickOver
	second.shapes()
	r := expr.Max
	if ord < 0 {
		r = expr.Min
	}
	m, err := runReduction[T](second, r, sums.operand().n)
	if err != nil {
		return nil, err
	}
	return dropKept(rd, m)
}

// matrixAxes are the row and column axes of a matrix norm: the Axis
// options in order, else the two reduced axes in order.
func matrixAxes(rd *reduction) (rows, cols int) {
	rows = bits.TrailingZeros64(rd.axes)
	cols = 63 - bits.LeadingZeros64(rd.axes)
	if rd.order[0] >= 0 {
		rows, cols = rd.order[0], rd.order[1]
	}
	return rows, cols
}
