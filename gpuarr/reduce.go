package gpuarr

import (
	"fmt"

	"github.com/gpuarr/gpuarr/device"
	"github.com/gpuarr/gpuarr/device/driver"
	"github.com/gpuarr/gpuarr/internal/expr"
)

// Reductions take any operand — an array or a whole expression, which is
// then computed inside the reduction kernel (fused map-reduce: Sum(Mul(x,
// x)) reads x once and writes nothing else) — and reduce all its
// elements, or one axis with the Axis option. They return a device array
// (shape Shape{} for a full reduction, read it with Item), so a
// reduction does not wait for the GPU.
//
// Float sums, products and means accumulate in float64 in a tree order,
// so float32 results are as accurate as a float64 reference rounded to
// float32. Integer sums and products wrap in T (they accumulate in 64
// bits, which gives the same result). Min and Max are NaN when any
// element is NaN. Sum of no elements is 0 and Prod 1; Min, Max, Mean,
// ArgMin and ArgMax of no elements are errors.

type axisOption int

func (axisOption) isOption() {}

// Axis makes a reduction work along axis k (negative k counts from the
// last axis): the result has the operand's shape without that axis.
func Axis(k int) Option { return axisOption(k) }

// Sum adds the elements.
func Sum[T Numeric](x Operand[T], opts ...Option) (*Array[T], error) {
	return reduceTo[T, T]("Sum", expr.Sum, x, opts)
}

// Prod multiplies the elements.
func Prod[T Numeric](x Operand[T], opts ...Option) (*Array[T], error) {
	return reduceTo[T, T]("Prod", expr.Prod, x, opts)
}

// Min is the least element (NaN if any is NaN).
func Min[T Numeric](x Operand[T], opts ...Option) (*Array[T], error) {
	return reduceTo[T, T]("Min", expr.Min, x, opts)
}

// Max is the greatest element (NaN if any is NaN).
func Max[T Numeric](x Operand[T], opts ...Option) (*Array[T], error) {
	return reduceTo[T, T]("Max", expr.Max, x, opts)
}

// Mean is the average (integers: truncated toward zero).
func Mean[T Numeric](x Operand[T], opts ...Option) (*Array[T], error) {
	return reduceTo[T, T]("Mean", expr.Mean, x, opts)
}

// ArgMin is the flat position (row-major; along the axis with Axis) of
// the first least element; a NaN counts as the least.
func ArgMin[T Numeric](x Operand[T], opts ...Option) (*Array[int64], error) {
	return reduceTo[int64, T]("ArgMin", expr.ArgMin, x, opts)
}

// ArgMax is the position of the first greatest element; a NaN counts as
// the greatest.
func ArgMax[T Numeric](x Operand[T], opts ...Option) (*Array[int64], error) {
	return reduceTo[int64, T]("ArgMax", expr.ArgMax, x, opts)
}

// Item copies a one-element array's value to the host (waiting for the
// kernel that computes it, like any host read).
func (a *Array[T]) Item() (T, error) {
	var v [1]T
	if err := a.check("Item"); err != nil {
		return v[0], err
	}
	if a.c.n != 1 {
		return v[0], shapeError("Item", "%s does not have exactly one element", a.c.describe())
	}
	err := a.download("Item", v[:])
	return v[0], err
}

// reduceBlock is the block size of reduction kernels.
const reduceBlock = 256

func reduceTo[R, T Numeric](call string, r expr.ReduceOp, x Operand[T], opts []Option) (*Array[R], error) {
	n := operandNode(x)
	if n == nil {
		return nil, fmt.Errorf("gpuarr.%s: %w", call, errNilExpr)
	}
	if n.err != nil {
		return nil, fmt.Errorf("gpuarr.%s: %w", call, n.err)
	}
	axis := -1
	for _, o := range opts {
		if a, ok := o.(axisOption); ok {
			axis = int(a)
			if axis < 0 {
				axis += len(n.shape)
			}
			if axis < 0 || axis >= len(n.shape) {
				return nil, shapeError(call, "axis %d out of range for shape %v", int(a), n.shape)
			}
		}
	}
	s, err := streamFor(call, opts, firstDevice(n))
	if err != nil {
		return nil, err
	}
	space := n.shape
	total := space.Len()
	glen, outShape := total, Shape{}
	if axis >= 0 {
		glen = space[axis]
		outShape = append(append(Shape{}, space[:axis]...), space[axis+1:]...)
	}
	if glen == 0 && r != expr.Sum && r != expr.Prod {
		return nil, shapeError(call, "%s of no elements (shape %v%s) is undefined", r, space, axisNote(axis))
	}
	out, err := newArray[R](call, outShape, s)
	if err != nil {
		return nil, err
	}
	if err := reduceInto(call, r, &out.c, n, space, axis, glen, s); err != nil {
		_ = out.Release()
		return nil, err
	}
	return out, nil
}

func axisNote(axis int) string {
	if axis < 0 {
		return ""
	}
	return fmt.Sprintf(", axis %d", axis)
}

// reduceInto runs the reduction of root over space (along axis, or all)
// into out: one kernel when there are enough groups to fill the device,
// else a partial pass that splits each group over several blocks and a
// final pass over the partials (then, for sums and products, a cast from
// the accumulator to the result type).
func reduceInto(call string, r expr.ReduceOp, out *core, root *node, space Shape, axis, glen int, s *device.Stream) error {
	groups := out.n
	if groups == 0 {
		return nil
	}
	l, err := lowerTree(root, space, axis)
	if err != nil {
		return fmt.Errorf("gpuarr.%s: %w", call, err)
	}
	defer l.free()
	l.prog.Reduce = r
	dev := s.Device()
	sms := max(dev.Info().Multiprocessors, 4)
	bpg := 1
	if groups < sms*4 {
		bpg = max(1, min((sms*8+groups-1)/groups, (glen+reduceBlock*8-1)/(reduceBlock*8)))
	}
	if groups == 1 {
		l.vectorize(nil, l.prog.ValueType())
	} else {
		l.prog.Vector = 1
	}
	vt := l.prog.ValueType()
	if bpg == 1 {
		l.prog.Stage = expr.Final
		return l.launchReduce(call, s, out, nil, groups, glen, 1, glen)
	}

	// Partial pass into temporaries, then a final pass over them.
	l.prog.Stage = expr.Partial
	partT := expr.AccType(r, vt)
	if r.IsArg() {
		partT = vt
	}
	parts, err := tempCore(call, s, partT, groups*bpg)
	if err != nil {
		return err
	}
	defer parts.buf.unref()
	var pos *core
	if r.IsArg() {
		if pos, err = tempCore(call, s, expr.Int64, groups*bpg); err != nil {
			return err
		}
		defer pos.buf.unref()
	}
	if err := l.launchReduce(call, s, parts, pos, groups, glen, bpg, glen); err != nil {
		return err
	}

	fin := &lowered{space: Shape{groups, bpg}, n: groups * bpg, args: new(driver.Args)}
	fin.prog = expr.Program{Reduce: r, Stage: expr.Final, ArgIndex: -1, Vector: 1,
		Inputs: []expr.Input{{Kind: expr.Memory, T: partT}},
		Code:   []expr.Instr{{Op: expr.OpInput, T: partT, A: -1, B: -1, C: -1}}}
	fin.leaves = []leaf{{c: parts}}
	if r.IsArg() {
		fin.prog.ArgIndex = 1
		fin.prog.Inputs = append(fin.prog.Inputs, expr.Input{Kind: expr.Memory, T: expr.Int64})
		fin.leaves = append(fin.leaves, leaf{c: pos})
	}
	resT := expr.ResultType(r, partT)
	wantT := expr.ResultType(r, vt)
	if resT == wantT {
		return fin.launchReduce(call, s, out, nil, groups, bpg, 1, glen)
	}
	// The final pass yields the accumulator type: round it to the result.
	acc, err := tempCore(call, s, resT, groups)
	if err != nil {
		return err
	}
	defer acc.buf.unref()
	if err := fin.launchReduce(call, s, acc, nil, groups, bpg, 1, glen); err != nil {
		return err
	}
	cast := &node{op: expr.OpCast, t: wantT, shape: Shape{groups},
		args: [3]*node{{op: expr.OpInput, t: resT, arr: acc, shape: Shape{groups}}}}
	flat := &core{buf: out.buf, off: out.off, p: out.p, n: out.n, typ: out.typ}
	flat.setShape(Shape{groups})
	return evalInto(call, flat, cast, s)
}

// launchReduce launches l's reduction kernel writing out (and out2).
func (l *lowered) launchReduce(call string, s *device.Stream, out, out2 *core, groups, glen, bpg, count int) error {
	st := stateOf(s.Device())
	l.key = l.prog.AppendKey(l.key[:0])
	k, err := st.kernel(&l.prog, l.key)
	if err != nil {
		return fmt.Errorf("gpuarr.%s: %w", call, err)
	}
	args := l.args
	args.Reset()
	ok := args.Append(driver.ArgPtr, uint64(out.ptr()))
	if out2 != nil {
		ok = ok && args.Append(driver.ArgPtr, uint64(out2.ptr()))
	}
	ok = ok && args.Append(driver.ArgU64, uint64(groups)) && args.Append(driver.ArgU64, uint64(glen)) &&
		args.Append(driver.ArgU64, uint64(bpg)) && args.Append(driver.ArgU64, uint64(count)) && l.appendLeafArgs(args)
	if !ok {
		return fmt.Errorf("gpuarr.%s: the expression has too many operands for one kernel's parameters: %w", call, ErrArgument)
	}
	cfg := gridFor(s.Device(), uint64(groups)*uint64(bpg)*reduceBlock, reduceBlock)
	o := op{call: call}
	l.addReads(&o, s)
	o.add(out, modeWrite, s)
	if out2 != nil {
		o.add(out2, modeWrite, s)
	}
	if err := o.begin(true); err != nil {
		return err
	}
	err = s.LaunchArgs(k, cfg, args)
	o.end()
	if err != nil {
		return fmt.Errorf("gpuarr.%s: %w", call, err)
	}
	return nil
}

// tempCore allocates an untracked-by-GC scratch array of n elements of t
// on s; the caller drops it with buf.unref (stream-ordered like any free).
func tempCore(call string, s *device.Stream, t expr.DType, n int) (*core, error) {
	buf, err := allocBuffer(call, s, uint64(n)*uint64(t.Size()))
	if err != nil {
		return nil, err
	}
	c := &core{n: n, typ: elemTypeNamed(t.String(), uintptr(t.Size()))}
	c.bind(buf, 0)
	c.setShape(Shape{n})
	return c, nil
}
