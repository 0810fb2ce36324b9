package gpuarr

import (
	"fmt"

	"github.com/gpuarr/gpuarr/internal/fusion"
	"github.com/gpuarr/gpuarr/internal/fusion/expr"
)

// Scans (Cumsum, Cumprod, Cummax, Cummin and the As forms) combine each
// element with the ones before it along an axis, as NumPy's cumsum,
// cumprod and maximum.accumulate / minimum.accumulate do: along the one
// Axis option's axis, the result having the operand's shape, or, without
// Axis, over the operand flattened (NumPy's axis=None), the result being
// 1-D. Exclusive() leaves each element out of its own result: the first
// of each row is the identity (0, 1, or the type's lowest / highest
// value, ±Inf for floats).
//
// Like the reductions they take any operand, an array or a whole
// expression, computed inside the scan kernel: Cumsum(Mul(x, y),
// Axis(1)) reads x and y once and writes the result once. A scan is one
// kernel, a single pass with a decoupled look-back, whichever axis it
// runs along (along an axis other than the last it reads and writes with
// a stride); its scratch (a few bytes per 2048 elements) comes from the
// pool on its stream. Sums and products of floats accumulate in float64
// and round each result to T (each element is then as accurate as a
// float64 running sum rounded once); integer ones accumulate in 64 bits,
// wrapping. Cummax and Cummin keep T and propagate NaN: once a row meets
// a NaN, its results are NaN from there on, as NumPy's.

type exclusiveOption struct{}

func (exclusiveOption) isOption()      {}
func (exclusiveOption) String() string { return "gpuarr.Exclusive()" }

// Exclusive makes a scan exclusive: element j of a row combines the
// elements before j, and the first is the identity. NumPy has no such
// option; it is the prefix a stream compaction or a bucket offset needs.
func Exclusive() Option { return exclusiveOption{} }

// Cumsum is the cumulative sum (see the scans above). Integer types
// narrower than 64 bits are refused, as Sum refuses them: their sums
// could overflow T. CumsumAs[int64] (NumPy's default result type) or
// CumsumAs[T] (wrapping in T on purpose) names the type.
func Cumsum[T Numeric](x Operand[T], opts ...Option) (*Array[T], error) {
	return scanTo[T]("Cumsum", expr.ScanSum, operandNode(x), opts, true)
}

// CumsumAs is the cumulative sum of x's elements converted to R (as Cast
// converts them), like NumPy's cumsum(x, dtype=R).
func CumsumAs[R, T Numeric](x Operand[T], opts ...Option) (*Array[R], error) {
	return scanTo[R]("CumsumAs", expr.ScanSum, Cast[R](x).n, opts, false)
}

// Cumprod is the cumulative product, with Cumsum's rules (CumprodAs for
// narrow integer types).
func Cumprod[T Numeric](x Operand[T], opts ...Option) (*Array[T], error) {
	return scanTo[T]("Cumprod", expr.ScanProd, operandNode(x), opts, true)
}

// CumprodAs is the cumulative product of x's elements converted to R.
func CumprodAs[R, T Numeric](x Operand[T], opts ...Option) (*Array[R], error) {
	return scanTo[R]("CumprodAs", expr.ScanProd, Cast[R](x).n, opts, false)
}

// Cummax is the running maximum (NumPy's maximum.accumulate).
func Cummax[T Numeric](x Operand[T], opts ...Option) (*Array[T], error) {
	return scanTo[T]("Cummax", expr.ScanMax, operandNode(x), opts, false)
}

// Cummin is the running minimum (NumPy's minimum.accumulate).
func Cummin[T Numeric](x Operand[T], opts ...Option) (*Array[T], error) {
	return scanTo[T]("Cummin", expr.ScanMin, operandNode(x), opts, false)
}

// scanTo scans n with op into a new array of R.
func scanTo[R Numeric](call string, op expr.ScanOp, n *fusion.Node, opts []Option, refuseNarrow bool) (*Array[R], error) {
	if n == nil {
		return nil, fmt.Errorf("gpuarr.%s: %w", call, fusion.ErrNilExpr)
	}
	if n.Err() != nil {
		return nil, fmt.Errorf("gpuarr.%s: %w", call, n.Err())
	}
	if t := n.Type(); refuseNarrow && t.IsInt() && t.Size() < 8 {
		return nil, narrowError(call, t)
	}
	s, err := streamTaking(call, opts, fusion.FirstDevice(n), optAxis|optExclusive)
	if err != nil {
		return nil, err
	}
	k, exclusive := -1, false
	for _, o := range opts {
		switch o := o.(type) {
		case axisOption:
			if k >= 0 {
				return nil, fmt.Errorf("gpuarr.%s takes one Axis: %w", call, ErrArgument)
			}
			if k, err = normAxis(call, int(o), n.Shape()); err != nil {
				return nil, err
			}
		case exclusiveOption:
			exclusive = true
		}
	}
	outShape := Shape{Shape(n.Shape()).Len()}
	if k >= 0 {
		outShape = append(Shape{}, n.Shape()...)
	}
	out, err := newArray[R](call, outShape, s)
	if err != nil {
		return nil, err
	}
	if err := fusion.Scan(call, op, exclusive, &out.c, n, k, s); err != nil {
		_ = out.Release()
		return nil, err
	}
	return out, nil
}
