package fusion

import (
	"fmt"

	"github.com/gpuarr/gpuarr/device"
	"github.com/gpuarr/gpuarr/device/dtype"
	"github.com/gpuarr/gpuarr/internal/arg"
	"github.com/gpuarr/gpuarr/internal/fusion/expr"
	"github.com/gpuarr/gpuarr/internal/lifetime"
	"github.com/gpuarr/gpuarr/internal/tracking"
)

// reduceBlock is the block size of reduction kernels.
const reduceBlock = 256

// Reduce runs the reduction r of root over space (along the axes in the
// bit set axes, glen elements per group) into out, whose elements have
// type resT, on s, claiming out and the inputs like any operation: one
// kernel when there are enough groups to fill the device, else a partial
// pass that splits each group over several blocks into scratch arrays and
// a final pass over the partials. count is the divisor of Mean (glen),
// Var and Std (glen less the degrees of freedom, at least 0). An operand
// that reads out's memory makes the reduction go through a temporary
// (overlap.go). Errors name call.
func Reduce(call string, r expr.ReduceOp, resT dtype.DType, out *lifetime.Handle, root *Node, space []int, axes uint64, glen, count int, s *device.Stream) error {
	groups := out.Len()
	if groups == 0 {
		return nil
	}
	l, err := lowerTree(root, space, axes, true, nil)
	if err != nil {
		return fmt.Errorf("gpuarr.%s: %w", call, err)
	}
	defer l.free()
	for _, lf := range l.leaves {
		if lf.c != nil && meets(out, lf.c) {
			return reduceApart(call, r, resT, out, root, space, axes, glen, count, s)
		}
	}
	l.prog.Reduce, l.prog.Result = r, resT
	dev := s.Device()
	sms := max(dev.Info().Multiprocessors, 4)
	bpg := 1
	switch {
	case l.columns(groups, glen):
		// One block takes a part of every group: enough parts to fill the
		// device, each thread folding at least 16 positions.
		l.prog.Columns = true
		rows := reduceBlock / groups
		bpg = max(1, min(sms*8, glen/(rows*16)))
	case groups < sms*4:
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
		return l.launchReduce(call, s, out, nil, nil, groups, glen, 1, count)
	}

	// Partial pass into temporaries, then a final pass over them.
	l.prog.Stage = expr.Partial
	partT := expr.AccType(r, vt)
	if r.IsArg() {
		partT = vt
	}
	parts, err := lifetime.Temp(call, s, partT, []int{groups * bpg})
	if err != nil {
		return err
	}
	defer parts.Done()
	var second, third *lifetime.Handle // Arg positions, a Wide Mean's high words, moments' counts; moments' M2s
	if l.prog.HasOut2() {
		if second, err = lifetime.Temp(call, s, l.prog.SecondType(), []int{groups * bpg}); err != nil {
			return err
		}
		defer second.Done()
	}
	if l.prog.HasOut3() {
		if third, err = lifetime.Temp(call, s, dtype.Float64, []int{groups * bpg}); err != nil {
			return err
		}
		defer third.Done()
	}
	if err := l.launchReduce(call, s, parts, second, third, groups, glen, bpg, count); err != nil {
		return err
	}

	// The final pass combines each group's partials and writes resT.
	fin := &lowered{space: []int{groups, bpg}, n: groups * bpg, args: new(device.Args)}
	fin.prog = expr.Program{Reduce: r, Stage: expr.Final, ArgIndex: -1, Vector: 1, Result: resT,
		Inputs: []expr.Input{{Kind: expr.Memory, T: partT}},
		Code:   []expr.Instr{{Op: expr.OpInput, T: partT, A: -1, B: -1, C: -1}}}
	fin.leaves = []leaf{{c: parts}}
	if second != nil {
		fin.prog.ArgIndex = 1
		fin.prog.Inputs = append(fin.prog.Inputs, expr.Input{Kind: expr.Memory, T: l.prog.SecondType()})
		fin.leaves = append(fin.leaves, leaf{c: second})
	}
	if third != nil {
		fin.prog.Inputs = append(fin.prog.Inputs, expr.Input{Kind: expr.Memory, T: dtype.Float64})
		fin.leaves = append(fin.leaves, leaf{c: third})
	}
	return fin.launchReduce(call, s, out, nil, nil, groups, bpg, 1, count)
}

// reduceApart is Reduce into a temporary of out's shape, then copied into
// out: for an operand that reads out's memory (overlap.go).
func reduceApart(call string, r expr.ReduceOp, resT dtype.DType, out *lifetime.Handle, root *Node, space []int, axes uint64, glen, count int, s *device.Stream) error {
	tmp, err := lifetime.Temp(call, s, resT, out.Shape())
	if err != nil {
		return err
	}
	defer tmp.Done()
	overlapTemps.Add(1)
	if err := Reduce(call, r, resT, tmp, root, space, axes, glen, count, s); err != nil {
		return err
	}
	return EvalInto(call, out, Leaf(tmp, resT), s)
}

// launchReduce launches l's reduction kernel writing out (and out2, out3).
func (l *lowered) launchReduce(call string, s *device.Stream, out, out2, out3 *lifetime.Handle, groups, glen, bpg, count int) error {
	st := stateOf(s.Device())
	l.key = l.prog.AppendKey(l.key[:0])
	k, err := st.kernel(&l.prog, l.key)
	if err != nil {
		return fmt.Errorf("gpuarr.%s: %w", call, err)
	}
	args := l.args
	args.Reset()
	ok := args.Append(device.ArgPtr, uint64(out.Ptr()))
	if out2 != nil {
		ok = ok && args.Append(device.ArgPtr, uint64(out2.Ptr()))
	}
	if out3 != nil {
		ok = ok && args.Append(device.ArgPtr, uint64(out3.Ptr()))
	}
	ok = ok && args.Append(device.ArgU64, uint64(groups)) && args.Append(device.ArgU64, uint64(glen)) &&
		args.Append(device.ArgU64, uint64(bpg)) && args.Append(device.ArgU64, uint64(count)) && l.appendLeafArgs(args)
	if !ok {
		return fmt.Errorf("gpuarr.%s: the expression has too many operands for one kernel's parameters: %w", call, arg.ErrArgument)
	}
	items := uint64(groups) * uint64(bpg)
	if l.prog.Columns {
		items = uint64(bpg) // a block takes every group of a part
	}
	cfg := gridFor(s.Device(), items*reduceBlock, reduceBlock)
	o := lifetime.Claim{Call: call}
	l.addReads(&o, s)
	o.Add(out, tracking.Write, s)
	if out2 != nil {
		o.Add(out2, tracking.Write, s)
	}
	if out3 != nil {
		o.Add(out3, tracking.Write, s)
	}
	if err := o.BeginLaunch(); err != nil {
		return err
	}
	err = o.LaunchArgs(s, k, cfg, args)
	o.End()
	if err != nil {
		return fmt.Errorf("gpuarr.%s: %w", call, err)
	}
	return nil
}

// columns reports whether the reduction should run as a Columns program
// (expr.Program.Columns): its space collapsed to [groups, glen], at most
// 64 groups, every array operand strided, and some operand with the
// groups innermost in memory (stride ±1 between groups) and its
// positions apart, which the usual kernel, one group per block, would
// read a word per 32-byte sector.
func (l *lowered) columns(groups, glen int) bool {
	if groups < 2 || groups > 64 || l.prog.Rank != 2 || l.dims[0] != groups || l.dims[1] != glen ||
		l.prog.ValueType().IsComplex() { // a complex accumulator takes two slots (the block path has them)
		return false
	}
	inner := false
	for i, lf := range l.leaves {
		if l.prog.Inputs[i].Kind != expr.Memory {
			continue
		}
		if !lf.strided {
			return false
		}
		s0, s1 := lf.strides[0], lf.strides[1]
		if s0 != 0 && s0 != 1 && s0 != -1 {
			return false
		}
		inner = inner || s0 != 0 && s1 != 1 && s1 != -1
	}
	return inner
}
