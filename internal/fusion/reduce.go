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
// Var and Std (glen less the degrees of freedom, at least 0). Errors name
// call.
func Reduce(call string, r expr.ReduceOp, resT dtype.DType, out *lifetime.Handle, root *Node, space []int, axes uint64, glen, count int, s *device.Stream) error {
	groups := out.Len()
	if groups == 0 {
		return nil
	}
	l, err := lowerTree(root, space, axes, nil)
	if err != nil {
		return fmt.Errorf("gpuarr.%s: %w", call, err)
	}
	defer l.free()
	l.prog.Reduce, l.prog.Result = r, resT
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
		return l.launchReduce(call, s, out, nil, nil, groups, glen, 1, count)
	}

	// Partial pass into temporaries, then a final pass over them.
	l.prog.Stage = expr.Partial
	partT := expr.AccType(r, vt)
	if r.IsArg() {
		partT = vt
	}
	parts, err := lifetime.Temp(call, s, partT, groups*bpg)
	if err != nil {
		return err
	}
	defer parts.Done()
	var second, third *lifetime.Handle // Arg positions, a Wide Mean's high words, moments' counts; moments' M2s
	if l.prog.HasOut2() {
		if second, err = lifetime.Temp(call, s, l.prog.SecondType(), groups*bpg); err != nil {
			return err
		}
		defer second.Done()
	}
	if l.prog.HasOut3() {
		if third, err = lifetime.Temp(call, s, dtype.Float64, groups*bpg); err != nil {
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
	cfg := gridFor(s.Device(), uint64(groups)*uint64(bpg)*reduceBlock, reduceBlock)
	o := lifetime.Claim{Call: call}
	l.addReads(&o, s)
	o.Add(out, tracking.Write, s)
	if out2 != nil {
		o.Add(out2, tracking.Write, s)
	}
	if out3 != nil {
		o.Add(out3, tracking.Write, s)
	}
	if err := o.Begin(true); err != nil {
		return err
	}
	err = s.LaunchArgs(k, cfg, args)
	o.End()
	if err != nil {
		return fmt.Errorf("gpuarr.%s: %w", call, err)
	}
	return nil
}
