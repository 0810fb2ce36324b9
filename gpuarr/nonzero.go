package gpuarr

import (
	"fmt"

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

// Nonzero returns the indices of the elements of x that are not zero
// (see CountNonzero), like NumPy's nonzero: one int64 array per axis of
// x, each as long as the count, so that element j of the result names the
// j-th nonzero element in row-major order by its index along every axis.
// x has at least one axis (NumPy refuses 0-d arrays too: ErrShape).
//
// The mask x != 0 is computed on the device, then copied to the host,
// which finds the positions (the result's length must be known to
// allocate it): its cost is a device-to-host copy of one byte an element
// and an upload of the indices. It runs on the default stream of x's
// device unless an Option says otherwise.
func Nonzero[T Element](x Operand[T], opts ...Option) ([]*Array[int64], error) {
	const call = "Nonzero"
	m := nonzeroNode(call, x)
	if m == nil {
		return nil, fmt.Errorf("gpuarr.%s: %w", call, fusion.ErrNilExpr)
	}
	if m.Err() != nil {
		return nil, fmt.Errorf("gpuarr.%s: %w", call, m.Err())
	}
	sh := Shape(m.Shape())
	if len(sh) == 0 {
		return nil, arg.Shapef(call, "the operand is 0-d: it has no axis to index (reshape it to [1])")
	}
	s, err := streamFor(call, opts, fusion.FirstDevice(m))
	if err != nil {
		return nil, err
	}
	mask, err := Eval[bool](Mask{m}, On(s))
	if err != nil {
		return nil, fmt.Errorf("gpuarr.%s: %w", call, err)
	}
	defer mask.Release()
	bits, err := mask.ToSlice()
	if err != nil {
		return nil, fmt.Errorf("gpuarr.%s: %w", call, err)
	}
	count := 0
	for _, b := range bits {
		if b {
			count++
		}
	}
	idx := make([][]int64, len(sh))
	for d := range idx {
		idx[d] = make([]int64, 0, count)
	}
	pos := make([]int64, len(sh)) // the row-major index of element i
	for i, b := range bits {
		if b {
			for d := range sh {
				idx[d] = append(idx[d], pos[d])
			}
		}
		for d := len(sh) - 1; d >= 0 && i+1 < len(bits); d-- {
			if pos[d]++; pos[d] < int64(sh[d]) {
				break
			}
			pos[d] = 0
		}
	}
	out := make([]*Array[int64], len(sh))
	for d := range out {
		if out[d], err = FromSlice(idx[d], Shape{count}, On(s)); err != nil {
			for _, a := range out[:d] {
				_ = a.Release()
			}
			return nil, fmt.Errorf("gpuarr.%s: %w", call, err)
		}
	}
	return out, nil
}
