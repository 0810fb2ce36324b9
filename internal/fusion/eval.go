package fusion

import (
	"fmt"

	"github.com/gpuarr/gpuarr/device"
	"github.com/gpuarr/gpuarr/internal/arg"
	"github.com/gpuarr/gpuarr/internal/fusion/ptxgen"
	"github.com/gpuarr/gpuarr/internal/lifetime"
	"github.com/gpuarr/gpuarr/internal/tracking"
)

// elementwiseBlock is the block size of elementwise kernels over single
// elements; vectorBlock of those over vectors (Vector > 1), whose threads
// each take ptxgen.VectorsPerThread of them: smaller blocks of those
// stream faster (BENCHMARKS.md, elementwise).
const (
	elementwiseBlock = 256
	vectorBlock      = 128
)

// elementwiseLaunch is the launch of an elementwise kernel of vector
// width v over n elements: a grid that covers them in one pass of the
// kernel's grid-stride loop (up to 2³¹-1 blocks).
func elementwiseLaunch(n, v uint64) device.LaunchConfig {
	if v > 1 {
		return device.Linear((n+perThread(v)-1)/perThread(v), vectorBlock)
	}
	return device.Linear(n, elementwiseBlock)
}

// perThread is the elements one thread of an elementwise kernel of vector
// width v takes in one pass of its loop.
func perThread(v uint64) uint64 {
	if v > 1 {
		return v * ptxgen.VectorsPerThread
	}
	return 1
}

// EvalInto computes root into dst on s: it finds (or compiles) the kernel
// computing root over dst's shape (root's shape broadcasts to it; dst is
// contiguous, or a strided view whose strides map no two elements to one
// address) and launches it, claiming dst and the inputs like any
// operation. An expression whose shape has a plan skips the lowering
// (plan.go). The result is root's values as if computed before dst is
// written: an array operand reading dst's memory other than element by
// element in place makes the evaluation go through a temporary
// (overlap.go). Errors name call.
func EvalInto(call string, dst *lifetime.Handle, root *Node, s *device.Stream) error {
	var w planWalk
	if s.IsCapturing() || !dst.Contiguous() || !w.scan(root, dst) {
		return evalLowered(call, dst, root, s, nil)
	}
	for i := 0; i < w.nleaves; i++ {
		if clobbers(dst, w.leaves[i]) {
			return evalApart(call, dst, root, s)
		}
	}
	if p := stateOf(s.Device()).plans.find(w.key()); p != nil {
		return w.run(call, p, dst, s)
	}
	return evalLowered(call, dst, root, s, &w)
}

// evalLowered is EvalInto through the full lowering; w, when not nil, is
// the expression's walk, whose signature gets the plan found.
func evalLowered(call string, dst *lifetime.Handle, root *Node, s *device.Stream, w *planWalk) error {
	l, err := lowerTree(root, dst.Shape(), 0, false, dst.Strides())
	if err != nil {
		return fmt.Errorf("gpuarr.%s: %w", call, err)
	}
	defer l.free()
	if dst.Len() == 0 {
		return nil
	}
	for _, lf := range l.leaves {
		if lf.c != nil && clobbers(dst, lf.c) {
			return evalApart(call, dst, root, s)
		}
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
		return fmt.Errorf("gpuarr.%s: the expression has too many operands for one kernel's parameters: %w", call, arg.ErrArgument)
	}
	// A grid that covers every element in one pass (the kernel's
	// grid-stride loop covers the rest past 2³¹-1 blocks): a full grid
	// streams faster than one capped at a few blocks per multiprocessor
	// (BENCHMARKS.md, elementwise).
	v := uint64(max(1, l.prog.Vector))
	cfg := elementwiseLaunch(uint64(l.n), v)
	o := lifetime.Claim{Call: call}
	l.addReads(&o, s)
	o.Add(dst, tracking.Write, s)
	if err := o.BeginLaunch(); err != nil {
		return err
	}
	err = o.LaunchArgs(s, k, cfg, a)
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
		Vector: perThread(v), Block: elementwiseLaunch(1, v).Block.X,
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
