package hosteval

import (
	"fmt"
	"sync"
	"unsafe"

	"github.com/gpuarr/gpuarr/device/dtype"
	"github.com/gpuarr/gpuarr/internal/fusion/expr"
	"github.com/gpuarr/gpuarr/internal/philox"
)

// step is one compiled instruction: it computes the chunk of elements
// lo .. lo+n-1 into its slot's column.
type step func(fr *frame, ls *launch, lo uint64, n int)

// program is a Program compiled for the host: what Kernel analyses once.
type program struct {
	src    *expr.Program
	entry  string
	params []expr.Param

	nslots  int
	owned   []bool // slot has scratch of its own
	aliases []int  // slots pointing into device memory
	consts  []slotFill
	scalars []slotFill
	steps   []step

	value  int // slot of the per-element value
	out    int // elementwise: the slot aliasing out (or scattered from, OutStrided); -1 for reductions
	argPos int // slot of the ArgIndex words (positions, high words, counts), or -1
	third  int // slot of the moments' third words (input ArgIndex+1), or -1

	inputs []inputUse
	red    *redSpec

	frames sync.Pool // of *frame
}

// slotFill is a column holding one value: a constant (bits) or a scalar
// parameter (index).
type slotFill struct {
	slot, size int
	bits       uint64
	index      int
}

// inputUse is what the kernel does with one input.
type inputUse struct {
	used bool // by Code, or as the ArgIndex words
	t    dtype.DType
	size int
}

// compile checks p and builds its steps.
func compile(p *expr.Program) (*program, error) {
	if len(p.Code) == 0 {
		return nil, fmt.Errorf("empty program")
	}
	if p.Rank < 0 {
		return nil, fmt.Errorf("rank %d", p.Rank)
	}
	pr := &program{src: p, entry: p.EntryName(), params: p.Params(), out: -1, argPos: -1, third: -1}
	pr.inputs = make([]inputUse, len(p.Inputs))
	for i, in := range p.Inputs {
		switch {
		case in.Kind == expr.Memory && (!validType(in.T) || in.T == dtype.Bool):
			return nil, fmt.Errorf("input %d: arrays cannot hold %s", i, in.T)
		case in.Kind == expr.Random && !in.T.IsFloat():
			return nil, fmt.Errorf("input %d: random values of type %s (want float32 or float64)", i, in.T)
		case in.Kind == expr.Random && !in.Strided:
			return nil, fmt.Errorf("input %d: a random input must be strided (its counter is its strided offset)", i)
		case in.Kind == expr.Iota && (in.T != dtype.Int64 || !in.Strided):
			return nil, fmt.Errorf("input %d: an iota input must be a strided int64 input (its value is its strided offset)", i)
		case in.Kind != expr.Memory && in.Kind != expr.Random && in.Kind != expr.Iota:
			return nil, fmt.Errorf("input %d: unknown kind %d", i, in.Kind)
		case in.Strided && p.Rank == 0:
			return nil, fmt.Errorf("input %d is strided but the program has rank 0", i)
		}
		pr.inputs[i] = inputUse{t: in.T, size: in.T.Size()}
	}
	for j, t := range p.Scalars {
		if !validType(t) {
			return nil, fmt.Errorf("scalar %d: type %s", j, t)
		}
	}

	n := len(p.Code)
	pr.nslots = n
	last := p.Code[n-1]
	if p.OutStrided && (p.Reduce != expr.NoReduce || p.Rank == 0) {
		return nil, fmt.Errorf("a strided output needs an elementwise program of rank ≥ 1")
	}
	if p.Reduce == expr.NoReduce {
		if last.T == dtype.Bool {
			return nil, fmt.Errorf("the result is bool, which arrays cannot hold (cast it)")
		}
		pr.out = n - 1
		if last.Op.Arity() == 0 && !p.OutStrided {
			// A leaf's column is not written per chunk: copy it out.
			pr.out = n
			pr.nslots++
		}
	}
	pr.value = n - 1
	if err := pr.checkReduce(); err != nil {
		return nil, err
	}
	if pr.argPos >= 0 {
		pr.nslots++
	}
	if pr.third >= 0 {
		pr.nslots++
	}
	pr.owned = make([]bool, pr.nslots)

	for i, in := range p.Code {
		if err := pr.compileInstr(i, in); err != nil {
			return nil, fmt.Errorf("instruction %d (%s.%s): %w", i, in.Op, in.T, err)
		}
	}
	switch {
	case p.OutStrided:
		// The value's column is scattered to out at its strided offsets.
		pr.out = n - 1
		sc := scatterFor(last.T.Size())
		pr.steps = append(pr.steps, func(fr *frame, ls *launch, lo uint64, n int) {
			off := fr.off[:n]
			stridedOffsets(off, lo, ls.dims, ls.outStrides, ls.outOrigin, fr.idx)
			sc(ls.out, ls.outSpan, fr.col[pr.out], off)
		})
	case pr.out == n:
		d, s, k := pr.out, n-1, moveFor(last.T.Size())
		pr.steps = append(pr.steps, func(fr *frame, _ *launch, _ uint64, n int) { k(fr.col[d], fr.col[s], n) })
	}
	if pr.out >= 0 && !p.OutStrided {
		pr.owned[pr.out] = false
		pr.aliases = append(pr.aliases, pr.out)
	}
	if pr.argPos >= 0 {
		pr.argPos = n
		pr.loadInput(pr.argPos, p.ArgIndex)
	}
	if pr.third >= 0 {
		pr.third = pr.nslots - 1
		pr.loadInput(pr.third, p.ArgIndex+1)
	}
	return pr, nil
}

// checkReduce checks the reduction fields and sets red and argPos.
func (pr *program) checkReduce() error {
	p := pr.src
	if p.Reduce == expr.NoReduce {
		return nil
	}
	t := p.ValueType()
	switch {
	case !p.Reduce.Valid():
		return fmt.Errorf("unknown reduction %d", p.Reduce)
	case p.Stage != expr.Final && p.Stage != expr.Partial:
		return fmt.Errorf("unknown stage %d", p.Stage)
	case !validType(t) || t == dtype.Bool:
		return fmt.Errorf("%s of %s values (cast them to a number)", p.Reduce, t)
	case p.Reduce.IsMoments() && !t.IsFloat():
		return fmt.Errorf("%s of %s values: it takes floats", p.Reduce, t)
	}
	pr.red = &redSpec{op: p.Reduce, stage: p.Stage, t: t, wide: p.Wide()}
	pr.red.shifts = (p.Reduce == expr.Var || p.Reduce == expr.Std) && !(p.Stage == expr.Final && p.ArgIndex >= 0)
	if t.IsInt() {
		pr.red.rng = rangeOf(t)
	}
	if err := pr.red.finalConversion(p); err != nil {
		return err
	}
	// ArgIndex means something only for reductions of several words
	// (Arg, Wide Mean, moments) in the Final stage.
	words := p.Words()
	if words < 2 || p.Stage != expr.Final || p.ArgIndex < 0 {
		return nil
	}
	ai := p.ArgIndex
	if ai+words-1 > len(p.Inputs) {
		return fmt.Errorf("ArgIndex %d: the program has %d inputs, %d words need %d after it", ai, len(p.Inputs), words-1, words-1)
	}
	what, article := "positions", "an"
	if p.Reduce.IsMoments() {
		what, article = "counts", "a"
	}
	if in := p.Inputs[ai]; in.Kind != expr.Memory || in.T != p.SecondType() {
		return fmt.Errorf("ArgIndex %d: %s must be %s %s array input", ai, what, article, p.SecondType())
	}
	if words == 3 {
		if in := p.Inputs[ai+1]; in.Kind != expr.Memory || in.T != dtype.Float64 {
			return fmt.Errorf("ArgIndex %d: the third words must be a float64 array input", ai)
		}
	}
	for i, in := range p.Code {
		if (in.Op == expr.OpInput || in.Op == expr.OpRandom) && int(in.Aux) >= ai && int(in.Aux) < ai+words-1 {
			return fmt.Errorf("ArgIndex %d: instruction %d reads the %s input", ai, i, what)
		}
	}
	pr.argPos = 0 // placed after the instructions' slots
	if words == 3 {
		pr.third = 0
	}
	pr.red.positions = true
	return nil
}

// finalConversion sets the result type and the conversion the Final
// stage writes through (see expr.Program.FinalType).
func (r *redSpec) finalConversion(p *expr.Program) error {
	rt := p.FinalType()
	switch {
	case !validType(rt) || rt == dtype.Bool:
		return fmt.Errorf("result type %s", rt)
	case (r.op == expr.Min || r.op == expr.Max || r.op == expr.NanMin || r.op == expr.NanMax) && rt != r.t:
		return fmt.Errorf("%s of %s values writes %s, not %s", r.op, r.t, r.t, rt)
	case r.op.IsMoments() && !rt.IsFloat():
		return fmt.Errorf("%s writes a float, not %s", r.op, rt)
	case r.op.IsArg() && rt != dtype.Int64:
		return fmt.Errorf("%s writes int64 positions, not %s", r.op, rt)
	}
	r.result, r.size = rt, uintptr(rt.Size())
	from := expr.AccType(r.op, r.t)
	switch {
	case r.wide && rt.IsFloat():
		from = dtype.Float64
	case r.wide:
		from = dtype.Int64
	case r.op == expr.Mean || r.op.IsMoments():
		from = dtype.Float64
	}
	r.final = castFor(from, rt)
	return nil
}

func (pr *program) compileInstr(i int, in expr.Instr) error {
	p := pr.src
	if !validType(in.T) {
		return fmt.Errorf("type %d", in.T)
	}
	ops := [3]int32{in.A, in.B, in.C}
	var ts [3]dtype.DType
	for k := 0; k < in.Op.Arity(); k++ {
		if ops[k] < 0 || int(ops[k]) >= i {
			return fmt.Errorf("operand %d is %%%d, not an earlier instruction", k, ops[k])
		}
		ts[k] = p.Code[ops[k]].T
	}
	d, a, b, c := i, int(in.A), int(in.B), int(in.C)
	pr.owned[d] = true
	same := func(k int) error {
		for j := 0; j < k; j++ {
			if ts[j] != in.T {
				return fmt.Errorf("operand %%%d has type %s, want %s", ops[j], ts[j], in.T)
			}
		}
		return nil
	}

	switch op := in.Op; {
	case op == expr.OpInput:
		if in.Aux < 0 || int(in.Aux) >= len(p.Inputs) {
			return fmt.Errorf("input %d of %d", in.Aux, len(p.Inputs))
		}
		src := p.Inputs[in.Aux]
		if src.Kind != expr.Memory || src.T != in.T {
			return fmt.Errorf("input %d is a %s array of kind %d", in.Aux, src.T, src.Kind)
		}
		pr.loadInput(d, int(in.Aux))
	case op == expr.OpRandom:
		if in.Aux < 0 || int(in.Aux) >= len(p.Inputs) {
			return fmt.Errorf("input %d of %d", in.Aux, len(p.Inputs))
		}
		src := p.Inputs[in.Aux]
		if src.Kind != expr.Random || src.T != in.T {
			return fmt.Errorf("input %d is not a random %s input", in.Aux, in.T)
		}
		pr.inputs[in.Aux].used = true
		pr.steps = append(pr.steps, randomStep(d, int(in.Aux), src))
	case op == expr.OpIota:
		if in.Aux < 0 || int(in.Aux) >= len(p.Inputs) {
			return fmt.Errorf("input %d of %d", in.Aux, len(p.Inputs))
		}
		if src := p.Inputs[in.Aux]; src.Kind != expr.Iota || in.T != dtype.Int64 {
			return fmt.Errorf("input %d is not an iota input of this int64 instruction", in.Aux)
		}
		pr.inputs[in.Aux].used = true
		i := int(in.Aux)
		pr.steps = append(pr.steps, func(fr *frame, ls *launch, lo uint64, n int) {
			stridedOffsets(col[int64](fr.col[d], n), lo, ls.dims, ls.in[i].strides, 0, fr.idx)
		})
	case op == expr.OpScalar:
		if in.Aux < 0 || int(in.Aux) >= len(p.Scalars) || p.Scalars[in.Aux] != in.T {
			return fmt.Errorf("scalar %d is not a %s scalar (the program has %v)", in.Aux, in.T, p.Scalars)
		}
		pr.scalars = append(pr.scalars, slotFill{slot: d, size: in.T.Size(), index: int(in.Aux)})
	case op == expr.OpConst:
		pr.consts = append(pr.consts, slotFill{slot: d, size: in.T.Size(), bits: castValue(in.Const, in.T)})
	case op == expr.OpCast:
		k := castFor(ts[0], in.T)
		pr.steps = append(pr.steps, func(fr *frame, _ *launch, _ uint64, n int) { k(fr.col[d], fr.col[a], n) })
	case op.Arity() == 1:
		k := unaryFor(op, in.T)
		if k == nil {
			return fmt.Errorf("%s does not apply to %s", op, in.T)
		}
		if err := same(1); err != nil {
			return err
		}
		pr.steps = append(pr.steps, func(fr *frame, _ *launch, _ uint64, n int) { k(fr.col[d], fr.col[a], n) })
	case op.IsCompare():
		if in.T != dtype.Bool || ts[0] != ts[1] {
			return fmt.Errorf("compares %s with %s into %s (want equal operand types, bool result)", ts[0], ts[1], in.T)
		}
		k := binaryFor(op, ts[0])
		if k == nil {
			return fmt.Errorf("%s does not apply to %s", op, ts[0])
		}
		pr.steps = append(pr.steps, func(fr *frame, _ *launch, _ uint64, n int) { k(fr.col[d], fr.col[a], fr.col[b], n) })
	case op.Arity() == 2:
		k := binaryFor(op, in.T)
		if k == nil {
			return fmt.Errorf("%s does not apply to %s", op, in.T)
		}
		if err := same(2); err != nil {
			return err
		}
		pr.steps = append(pr.steps, func(fr *frame, _ *launch, _ uint64, n int) { k(fr.col[d], fr.col[a], fr.col[b], n) })
	case op == expr.OpWhere:
		if ts[0] != dtype.Bool || ts[1] != in.T || ts[2] != in.T {
			return fmt.Errorf("where(%s, %s, %s) of type %s (want a bool condition and %s values)", ts[0], ts[1], ts[2], in.T, in.T)
		}
		k := ternaryFor(op, in.T)
		pr.steps = append(pr.steps, func(fr *frame, _ *launch, _ uint64, n int) { k(fr.col[d], fr.col[a], fr.col[b], fr.col[c], n) })
	case op == expr.OpFMA:
		k := ternaryFor(op, in.T)
		if k == nil {
			return fmt.Errorf("fma does not apply to %s", in.T)
		}
		if err := same(3); err != nil {
			return err
		}
		pr.steps = append(pr.steps, func(fr *frame, _ *launch, _ uint64, n int) { k(fr.col[d], fr.col[a], fr.col[b], fr.col[c], n) })
	default:
		return fmt.Errorf("unknown op %d", op)
	}
	return nil
}

// loadInput compiles the read of Memory input i into slot d: contiguous
// inputs alias device memory at the chunk (no copy); strided ones gather.
func (pr *program) loadInput(d, i int) {
	pr.inputs[i].used = true
	size := pr.inputs[i].size
	if !pr.src.Inputs[i].Strided {
		pr.owned[d] = false
		pr.aliases = append(pr.aliases, d)
		pr.steps = append(pr.steps, func(fr *frame, ls *launch, lo uint64, _ int) {
			fr.col[d] = unsafe.Add(ls.in[i].ptr, uintptr(lo)*uintptr(size))
		})
		return
	}
	pr.owned[d] = true
	g := gatherFor(size)
	pr.steps = append(pr.steps, func(fr *frame, ls *launch, lo uint64, n int) {
		in := &ls.in[i]
		off := fr.off[:n]
		stridedOffsets(off, lo, ls.dims, in.strides, in.origin, fr.idx)
		g(fr.col[d], in.ptr, in.span, off)
	})
}

// randomStep draws Philox values at the input's strided offsets.
func randomStep(d, i int, src expr.Input) step {
	return func(fr *frame, ls *launch, lo uint64, n int) {
		in := &ls.in[i]
		off := fr.off[:n]
		stridedOffsets(off, lo, ls.dims, in.strides, 0, fr.idx)
		seed, stream := in.seed, in.stream
		switch {
		case src.T == dtype.Float32 && !src.Normal:
			o := col[float32](fr.col[d], n)
			for j, c := range off {
				o[j] = philox.Uniform32(seed, uint64(c), stream)
			}
		case src.T == dtype.Float32:
			o := col[float32](fr.col[d], n)
			for j, c := range off {
				o[j] = philox.Normal32(seed, uint64(c), stream)
			}
		case !src.Normal:
			o := col[float64](fr.col[d], n)
			for j, c := range off {
				o[j] = philox.Uniform64(seed, uint64(c), stream)
			}
		default:
			o := col[float64](fr.col[d], n)
			for j, c := range off {
				o[j] = philox.Normal64(seed, uint64(c), stream)
			}
		}
	}
}

// evalChunk runs every step over elements lo .. lo+n-1.
func (pr *program) evalChunk(fr *frame, ls *launch, lo uint64, n int) {
	for _, st := range pr.steps {
		st(fr, ls, lo, n)
	}
}
