package gpuarr

import (
	"fmt"
	"slices"

	"github.com/gpuarr/gpuarr/device"
	"github.com/gpuarr/gpuarr/internal/arg"
	"github.com/gpuarr/gpuarr/internal/layout"
	"github.com/gpuarr/gpuarr/internal/lifetime"
	"github.com/gpuarr/gpuarr/internal/tracking"
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
		return nil, fmt.Errorf("gpuarr.%s: %w", call, errNilExpr)
	}
	if n.err != nil {
		return nil, fmt.Errorf("gpuarr.%s: %w", call, n.err)
	}
	s, err := streamFor(call, opts, firstDevice(n))
	if err != nil {
		return nil, err
	}
	out, err := newArray[T](call, n.shape, s)
	if err != nil {
		return nil, err
	}
	if err := evalInto(call, &out.c, n, s); err != nil {
		_ = out.Release()
		return nil, err
	}
	return out, nil
}

// EvalInto computes e into dst, whose shape e must broadcast to. dst may
// be one of e's operands (y = y*2 + x in place: each element is read
// before it is written); it must be contiguous. It runs on the default
// stream of dst's device unless an Option says otherwise.
func EvalInto[T Numeric](dst *Array[T], e Operand[T], opts ...Option) error {
	const call = "EvalInto"
	if err := dst.check(call + ": destination"); err != nil {
		return err
	}
	n := operandNode(e)
	if n == nil {
		return fmt.Errorf("gpuarr.%s: %w", call, errNilExpr)
	}
	if n.err != nil {
		return fmt.Errorf("gpuarr.%s: %w", call, n.err)
	}
	if sh, err := layout.Broadcast(n.shape, dst.c.Shape()); err != nil || !slices.Equal(sh, dst.c.Shape()) {
		return arg.Shapef(call, "the expression's shape %v does not broadcast to %s", n.shape, dst.c.Describe())
	}
	if !dst.c.Contiguous() {
		return fmt.Errorf("gpuarr.%s: %s is a strided view; evaluate into a contiguous array: %w", call, dst.c.Describe(), ErrArgument)
	}
	s, err := streamFor(call, opts, dst.c.Device())
	if err != nil {
		return err
	}
	return evalInto(call, &dst.c, n, s)
}

// elementwiseBlock is the block size of elementwise kernels.
const elementwiseBlock = 256

// evalInto finds (or compiles) the kernel computing root over dst's shape
// and launches it on s, claiming dst and the inputs like any operation.
// An expression whose shape has a plan skips the lowering (plan.go).
func evalInto(call string, dst *lifetime.Handle, root *node, s *device.Stream) error {
	var w planWalk
	if s.IsCapturing() || !w.scan(root, dst) {
		return evalLowered(call, dst, root, s, nil)
	}
	if p := stateOf(s.Device()).plans.find(w.key()); p != nil {
		return w.run(call, p, dst, s)
	}
	return evalLowered(call, dst, root, s, &w)
}

// evalLowered is evalInto through the full lowering; w, when not nil, is
// the expression's walk, whose signature gets the plan found.
func evalLowered(call string, dst *lifetime.Handle, root *node, s *device.Stream, w *planWalk) error {
	l, err := lowerTree(root, dst.Shape(), 0)
	if err != nil {
		return fmt.Errorf("gpuarr.%s: %w", call, err)
	}
	defer l.free()
	if dst.Len() == 0 {
		return nil
	}
	l.vectorize(dst, l.prog.ValueType())
	st := stateOf(s.Device())
	l.key = l.prog.AppendKey(l.key[:0])
	k, err := st.kernel(&l.prog, l.key)
	if err != nil {
		return fmt.Errorf("gpuarr.%s: %w", call, err)
	}
	if w != nil {
		st.plans.remember(w, l, k)
	}
	a := l.args
	a.Reset()
	ok := a.Append(device.ArgPtr, uint64(dst.Ptr())) && a.Append(device.ArgU64, uint64(l.n)) && l.appendLeafArgs(a)
	if !ok {
		return fmt.Errorf("gpuarr.%s: the expression has too many operands for one kernel's parameters: %w", call, ErrArgument)
	}
	// One thread per vector (the kernel's grid-stride loop covers the
	// rest past 2³¹-1 blocks): on an H200 this full grid moved 4.35 TB/s
	// for a+b against 4.10 with the grid capped at 8 blocks per SM.
	v := uint64(max(1, l.prog.Vector))
	cfg := device.Linear((uint64(l.n)+v-1)/v, elementwiseBlock)
	o := lifetime.Claim{Call: call}
	l.addReads(&o, s)
	o.Add(dst, tracking.Write, s)
	if err := o.Begin(true); err != nil {
		return err
	}
	err = s.LaunchArgs(k, cfg, a)
	if err == nil {
		noteElementwiseResize(s, dst, l, k, a, v)
	}
	o.End()
	if err != nil {
		return fmt.Errorf("gpuarr.%s: %w", call, err)
	}
	return nil
}

// noteElementwiseResize tells a Batched capture on s how the elementwise
// launch just issued follows the batch size: its element count (argument
// 1) and grid scale with the rows when dst and every array operand are
// batched, contiguous and of one element count, so that the first n rows
// of each are the first elements of the flat index space.
func noteElementwiseResize(s *device.Stream, dst *lifetime.Handle, l *lowered, k *device.Kernel, a *device.Args, v uint64) {
	b := lifetime.BatcherOf(s)
	if b == nil {
		return
	}
	if !lifetime.Batched(b, dst) {
		return // batch-independent (a weight, say): stays as captured
	}
	if len(l.dims) > 0 {
		b.Fixed("an operand is broadcast or strided, so the kernel indexes by the captured shape; " +
			"make the operands contiguous arrays of the batch's shape")
		return
	}
	for _, lf := range l.leaves {
		switch {
		case lf.rnd != nil:
			b.Fixed("random numbers are drawn for the captured size; draw them outside the capture")
			return
		case lf.c == nil || lf.strided || lf.c.Len() != dst.Len() || !lifetime.Batched(b, lf.c):
			b.Fixed("an operand is not a contiguous array of the batch's shape (broadcast, strided or of another shape)")
			return
		}
	}
	own := new(device.Args)
	*own = *a
	b.Resizes(s, lifetime.Resize{
		K: k, Args: own, CountArg: 1, PerRow: uint64(dst.Len()) / uint64(b.MaxBatch()),
		Vector: v, Block: elementwiseBlock,
	}, true)
}

// gridFor is a grid-stride launch over work items (reductions): enough
// blocks to fill the device (8 resident blocks of 256 threads per
// multiprocessor), fewer when there is less work.
func gridFor(dev *device.Device, items uint64, block uint32) device.LaunchConfig {
	cfg := device.Linear(max(items, 1), block)
	if sms := dev.Info().Multiprocessors; sms > 0 {
		cfg.Grid.X = min(cfg.Grid.X, uint32(sms*8))
	}
	return cfg
}
