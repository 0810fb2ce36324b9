package gpuarr

import (
	"fmt"

	"github.com/gpuarr/gpuarr/device"
	"github.com/gpuarr/gpuarr/device/dtype"
	"github.com/gpuarr/gpuarr/internal/arg"
	"github.com/gpuarr/gpuarr/internal/fusion"
	"github.com/gpuarr/gpuarr/internal/fusion/expr"
)

// nonzeroNode is the mask x != 0 (x itself for bool; for complex x,
// either part nonzero).
func nonzeroNode[T Element](call string, x Operand[T]) *fusion.Node {
	n := operandNode(x)
	t := dtype.Of[T]()
	if t == dtype.Bool || n == nil {
		return n
	}
	return fusion.Apply(call, expr.OpNe, dtype.Bool, n, fusion.Const(t, 0))
}

// CountNonzero counts the elements of x that are not zero (true, for
// bool; a complex number with either part nonzero; NaN counts), over all
// of them or along the axes Axis options name, like NumPy's
// count_nonzero. It takes a reduction's options (Axis, KeepDims, On,
// OnDevice) and runs as one.
func CountNonzero[T Element](x Operand[T], opts ...Option) (*Array[int64], error) {
	const call = "CountNonzero"
	m := nonzeroNode(call, x)
	if m == nil {
		return nil, fmt.Errorf("gpuarr.%s: %w", call, fusion.ErrNilExpr)
	}
	return reduceTo[int64](call, expr.Sum, fusion.Unary(expr.OpCast, m, dtype.Int64), opts, false)
}

// Nonzero returns the indices of x's nonzero elements (see CountNonzero;
// NaN counts as nonzero), one int64 array per axis, as NumPy's nonzero: element i of
// array d is the index along axis d of the i-th nonzero element in
// row-major order. x may be an expression. Like MaskedSelect it waits for
// the device once, to count. A scalar (rank 0) is refused: reshape it to
// [1].
func Nonzero[T Element](x Operand[T], opts ...Option) ([]*Array[int64], error) {
	const call = "Nonzero"
	m := nonzeroNode(call, x)
	if m == nil {
		return nil, fmt.Errorf("gpuarr.%s: %w", call, fusion.ErrNilExpr)
	}
	if m.Err() != nil {
		return nil, fmt.Errorf("gpuarr.%s: %w", call, m.Err())
	}
	return nonzeroIndices(call, m, opts)
}

// NonzeroMask is Nonzero of a mask: the indices where m is true.
func NonzeroMask(m Mask, opts ...Option) ([]*Array[int64], error) {
	if m.n == nil {
		return nil, fmt.Errorf("gpuarr.NonzeroMask: %w", fusion.ErrNilExpr)
	}
	if m.n.Err() != nil {
		return nil, fmt.Errorf("gpuarr.NonzeroMask: %w", m.n.Err())
	}
	return nonzeroIndices("NonzeroMask", m.n, opts)
}

func nonzeroIndices(call string, mask *fusion.Node, opts []Option) ([]*Array[int64], error) {
	sh := Shape(mask.Shape())
	if len(sh) == 0 {
		return nil, arg.Shapef(call, "the operand is 0-d: it has no axis to index (reshape it to [1])")
	}
	s, err := streamFor(call, opts, fusion.FirstDevice(mask))
	if err != nil {
		return nil, err
	}
	flat, err := nonzeroFlat(call, mask, s)
	if err != nil {
		return nil, err
	}
	defer flat.Release()
	// Index along axis d: (p / stride_d) mod extent_d, one fused kernel each.
	out := make([]*Array[int64], len(sh))
	stride := int64(1)
	for d := len(sh) - 1; d >= 0; d-- {
		var e Expr[int64] = Div[int64](flat, Scalar(stride))
		if d > 0 {
			e = Sub[int64](e, Mul[int64](Div[int64](flat, Scalar(stride*int64(sh[d]))), Scalar(int64(sh[d]))))
		}
		if out[d], err = Eval(e, On(s)); err != nil {
			for _, a := range out {
				_ = a.Release()
			}
			return nil, fmt.Errorf("gpuarr.%s: %w", call, err)
		}
		stride *= int64(sh[d])
	}
	return out, nil
}

// nonzeroFlat is the flat (row-major) positions where mask is true.
func nonzeroFlat(call string, mask *fusion.Node, s *device.Stream) (*Array[int64], error) {
	space := mask.Shape()
	count, err := countTrue(call, mask, space, s)
	if err != nil {
		return nil, err
	}
	out, err := newArray[int64](call, Shape{count}, s)
	if err != nil {
		return nil, err
	}
	if err := fusion.Compact(call, &out.c, nil, mask, true, space, count, s); err != nil {
		_ = out.Release()
		return nil, err
	}
	return out, nil
}
