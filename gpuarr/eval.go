package gpuarr

import (
	"fmt"
	"slices"

	"github.com/gpuarr/gpuarr/internal/arg"
	"github.com/gpuarr/gpuarr/internal/fusion"
	"github.com/gpuarr/gpuarr/internal/layout"
)

// Eval computes e into a new array of e's shape with one fused kernel. It
// runs on the default stream of the device of e's first array (the
// Option's stream when one is given), ordered after other streams' writes
// to the arrays it reads, like any operation. Every array in e must be
// reachable from that device (its own, or a peer's).
func Eval[T Numeric](e Operand[T], opts ...Option) (*Array[T], error) {
	const call = "Eval"
	n := operandNode(e)
	if n == nil {
		return nil, fmt.Errorf("gpuarr.%s: %w", call, fusion.ErrNilExpr)
	}
	if n.Err() != nil {
		return nil, fmt.Errorf("gpuarr.%s: %w", call, n.Err())
	}
	s, err := streamFor(call, opts, fusion.FirstDevice(n))
	if err != nil {
		return nil, err
	}
	out, err := newArray[T](call, n.Shape(), s)
	if err != nil {
		return nil, err
	}
	if err := fusion.EvalInto(call, &out.c, n, s); err != nil {
		_ = out.Release()
		return nil, err
	}
	return out, nil
}

// EvalInto computes e into dst, whose shape e must broadcast to. dst may
// be one of e's operands (y = y*2 + x in place: each element is read
// before it is written); operands that overlap dst otherwise (a shifted
// view of the same memory) read unspecified values. dst may be a strided
// view (EvalInto(x.Index(gpuarr.Colon, gpuarr.At(0)), e) is NumPy's
// x[:, 0] = e), except a broadcast one, whose elements share memory. It
// runs on the default stream of dst's device unless an Option says
// otherwise.
func EvalInto[T Numeric](dst *Array[T], e Operand[T], opts ...Option) error {
	const call = "EvalInto"
	if err := dst.check(call + ": destination"); err != nil {
		return err
	}
	n := operandNode(e)
	if n == nil {
		return fmt.Errorf("gpuarr.%s: %w", call, fusion.ErrNilExpr)
	}
	if n.Err() != nil {
		return fmt.Errorf("gpuarr.%s: %w", call, n.Err())
	}
	if sh, err := layout.Broadcast(n.Shape(), dst.c.Shape()); err != nil || !slices.Equal(sh, dst.c.Shape()) {
		return arg.Shapef(call, "the expression's shape %v does not broadcast to %s", n.Shape(), dst.c.Describe())
	}
	if st := dst.c.Strides(); st != nil {
		for d, e := range dst.c.Shape() {
			if e > 1 && st[d] == 0 {
				return fmt.Errorf("gpuarr.%s: %s is a broadcast view (axis %d repeats its memory), whose elements cannot be written apart: %w",
					call, dst.c.Describe(), d, ErrArgument)
			}
		}
	}
	s, err := streamFor(call, opts, dst.c.Device())
	if err != nil {
		return err
	}
	return fusion.EvalInto(call, &dst.c, n, s)
}
