package expr

import (
	"fmt"

	"github.com/gpuarr/gpuarr/device/dtype"
)

// MaxRank is the largest Rank a Program may have.
const MaxRank = 8

// Validate checks a Program's structure: operand indexes, operand and
// result types of every instruction, inputs, scalars, Rank, Vector and the
// reduction fields. Back ends call it before compiling; its errors name
// the instruction or field at fault.
func (p *Program) Validate() error {
	if p == nil || len(p.Code) == 0 {
		return fmt.Errorf("expr: program has no instructions")
	}
	if p.Rank < 0 || p.Rank > MaxRank {
		return fmt.Errorf("expr: rank %d out of range [0, %d]", p.Rank, MaxRank)
	}
	for i, in := range p.Inputs {
		if err := p.validateInput(i, in); err != nil {
			return err
		}
	}
	for j, t := range p.Scalars {
		if !Computes(t) || Storage(t) {
			return fmt.Errorf("expr: scalar s%d has type %v; scalars are bool, integers, float32 or float64 (pass a half as float32, a complex number as its parts)", j, t)
		}
	}
	for i, in := range p.Code {
		if err := p.validateInstr(i, in); err != nil {
			return fmt.Errorf("expr: instruction %%%d (%s.%s): %w", i, in.Op, in.T, err)
		}
	}
	if err := p.validateVector(); err != nil {
		return err
	}
	if err := p.validateOut(); err != nil {
		return err
	}
	return p.validateReduce()
}

// validateOut checks OutStrided (an elementwise program of rank ≥ 1
// without vectors) and Columns (a reduction of rank 2, without vectors,
// whose memory inputs are all strided).
func (p *Program) validateOut() error {
	if p.Columns {
		switch {
		case p.Reduce == NoReduce:
			return fmt.Errorf("expr: Columns is for reductions")
		case p.Rank != 2 || p.Vector > 1:
			return fmt.Errorf("expr: Columns needs rank 2 (groups, positions) and no vectors, not rank %d, vector %d", p.Rank, p.Vector)
		case p.ValueType().IsComplex():
			return fmt.Errorf("expr: Columns with %s values (a complex accumulator takes two slots)", p.ValueType())
		}
		for i, in := range p.Inputs {
			if in.Kind == Memory && !in.Strided {
				return fmt.Errorf("expr: Columns with contiguous input in%d (its index needs the flat position)", i)
			}
		}
	}
	switch {
	case !p.OutStrided:
		return nil
	case p.Reduce != NoReduce:
		return fmt.Errorf("expr: a reduction's output cannot be strided")
	case p.Rank == 0:
		return fmt.Errorf("expr: a strided output needs rank ≥ 1 (its strides run over dims)")
	case p.Vector > 1:
		return fmt.Errorf("expr: vector width %d with a strided output", p.Vector)
	}
	return nil
}

func (p *Program) validateInput(i int, in Input) error {
	switch {
	case !Computes(in.T):
		return fmt.Errorf("expr: input in%d has type %v, which programs do not compute with", i, in.T)
	case in.Kind == Memory && in.Normal:
		return fmt.Errorf("expr: input in%d is a memory input marked Normal", i)
	case in.Kind == Random && in.T != dtype.Float32 && in.T != dtype.Float64:
		return fmt.Errorf("expr: random input in%d has type %s; want float32 or float64", i, in.T)
	case in.Kind == Random && !in.Strided:
		return fmt.Errorf("expr: random input in%d must be Strided (its counter is its strided offset)", i)
	case in.Kind == Iota && (in.T != dtype.Int64 || !in.Strided || in.Normal):
		return fmt.Errorf("expr: iota input in%d must be a Strided int64 input (its value is its strided offset)", i)
	case in.Kind > Iota:
		return fmt.Errorf("expr: input in%d has invalid kind %d", i, in.Kind)
	}
	return nil
}

func (p *Program) validateInstr(i int, in Instr) error {
	if in.Op >= numOps {
		return fmt.Errorf("invalid op %d", in.Op)
	}
	if !Computes(in.T) {
		return fmt.Errorf("type %v, which programs do not compute with", in.T)
	}
	var ops [3]dtype.DType
	for k, a := range []int32{in.A, in.B, in.C}[:in.Op.Arity()] {
		if a < 0 || int(a) >= i {
			return fmt.Errorf("operand %c is %%%d, not an earlier instruction", 'A'+k, a)
		}
		ops[k] = p.Code[a].T
	}
	want := func(k int, t dtype.DType) error {
		if ops[k] != t {
			return fmt.Errorf("operand %c has type %s; want %s", 'A'+k, ops[k], t)
		}
		return nil
	}
	numeric := func() error {
		if in.T == dtype.Bool {
			return fmt.Errorf("op %s does not take bool", in.Op)
		}
		return nil
	}
	float := func() error {
		if in.T != dtype.Float32 && in.T != dtype.Float64 {
			return fmt.Errorf("op %s takes floats only, not %s", in.Op, in.T)
		}
		return nil
	}
	first := func(errs ...error) error {
		for _, err := range errs {
			if err != nil {
				return err
			}
		}
		return nil
	}
	all := func(t dtype.DType) error {
		for k := range in.Op.Arity() {
			if err := want(k, t); err != nil {
				return err
			}
		}
		return nil
	}
	switch op := in.Op; {
	case op == OpInput:
		if in.Aux < 0 || int(in.Aux) >= len(p.Inputs) {
			return fmt.Errorf("input index %d out of range (%d inputs)", in.Aux, len(p.Inputs))
		}
		src := p.Inputs[in.Aux]
		if src.Kind != Memory {
			return fmt.Errorf("input in%d is not a memory input", in.Aux)
		}
		if src.T != in.T {
			return fmt.Errorf("input in%d has type %s", in.Aux, src.T)
		}
	case op == OpRandom:
		if in.Aux < 0 || int(in.Aux) >= len(p.Inputs) {
			return fmt.Errorf("input index %d out of range (%d inputs)", in.Aux, len(p.Inputs))
		}
		src := p.Inputs[in.Aux]
		if src.Kind != Random {
			return fmt.Errorf("input in%d is not a random input", in.Aux)
		}
		if src.T != in.T {
			return fmt.Errorf("random input in%d has type %s", in.Aux, src.T)
		}
	case op == OpIota:
		if in.Aux < 0 || int(in.Aux) >= len(p.Inputs) {
			return fmt.Errorf("input index %d out of range (%d inputs)", in.Aux, len(p.Inputs))
		}
		if src := p.Inputs[in.Aux]; src.Kind != Iota || in.T != dtype.Int64 {
			return fmt.Errorf("input in%d is not an iota input of this int64 instruction", in.Aux)
		}
	case op == OpScalar:
		if in.Aux < 0 || int(in.Aux) >= len(p.Scalars) {
			return fmt.Errorf("scalar index %d out of range (%d scalars)", in.Aux, len(p.Scalars))
		}
		if p.Scalars[in.Aux] != in.T {
			return fmt.Errorf("scalar s%d has type %s", in.Aux, p.Scalars[in.Aux])
		}
	}
	if err := storageUse(in, ops); err != nil {
		return err
	}
	switch in.Op.Info().Class {
	case Numeric:
		return first(numeric(), all(in.T))
	case Float:
		return first(float(), all(in.T))
	case Logical:
		return first(all(dtype.Bool), boolOnly(in))
	case Compare:
		if in.T != dtype.Bool {
			return fmt.Errorf("a comparison yields bool, not %s", in.T)
		}
		return want(1, ops[0])
	case Select:
		return first(want(0, dtype.Bool), want(1, in.T), want(2, in.T))
	case Convert:
		if !Castable(ops[0], in.T) {
			return fmt.Errorf("no cast from %s to %s (see Castable)", ops[0], in.T)
		}
	case Part:
		if pt := PartType(ops[0]); pt == dtype.Invalid || in.T != pt {
			return fmt.Errorf("operand A has type %s; %s takes a complex operand and yields its part type", ops[0], in.Op)
		}
	case Compose:
		if ComplexOf(in.T) != dtype.Invalid || PartType(in.T) == dtype.Invalid {
			return fmt.Errorf("%s yields a complex type, not %s", in.Op, in.T)
		}
		return all(PartType(in.T))
	case Integer:
		if !in.T.IsInt() {
			return fmt.Errorf("op %s takes integers only, not %s", in.Op, in.T)
		}
		return all(in.T)
	case Test:
		if in.T != dtype.Bool {
			return fmt.Errorf("op %s yields bool, not %s", in.Op, in.T)
		}
		if !ops[0].IsFloat() {
			return fmt.Errorf("op %s takes a float, not %s", in.Op, ops[0])
		}
	}
	return nil
}

// storageUse checks an instruction against the few uses of storage types
// (see Storage): operands of those types only in casts from halves and in
// OpReal and OpImag, results only from inputs, casts and OpComplex.
func storageUse(in Instr, ops [3]dtype.DType) error {
	for k := range in.Op.Arity() {
		switch t := ops[k]; {
		case IsHalf(t) && in.Op != OpCast:
			return fmt.Errorf("operand %c has type %s, which %s does not take: programs compute halves in float32 (cast it)", 'A'+k, t, in.Op)
		case t.IsComplex() && in.Op != OpReal && in.Op != OpImag:
			return fmt.Errorf("operand %c has type %s, which %s does not take: programs compute complex numbers by parts (real, imag)", 'A'+k, t, in.Op)
		}
	}
	if Storage(in.T) && in.Op != OpInput && in.Op != OpCast && in.Op != OpComplex {
		return fmt.Errorf("op %s does not yield %s, a storage type (see expr.Storage)", in.Op, in.T)
	}
	return nil
}

func boolOnly(in Instr) error {
	if in.T != dtype.Bool {
		return fmt.Errorf("op %s takes bool only, not %s", in.Op, in.T)
	}
	return nil
}

func (p *Program) validateVector() error {
	v := max(p.Vector, 1)
	if v != 1 && v != 2 && v != 4 && v != 8 {
		return fmt.Errorf("expr: vector width %d; want 0, 1, 2, 4 or 8", p.Vector)
	}
	if v == 1 {
		return nil
	}
	largest := p.OutType().Size()
	if p.Reduce != NoReduce {
		largest = 0 // a reduction writes one value per work item, not vectors
	}
	if p.OutType().IsComplex() && p.Reduce == NoReduce {
		return fmt.Errorf("expr: vector width %d with a %s output (complex elements are read and written one at a time)", v, p.OutType())
	}
	for i, in := range p.Inputs {
		if in.Kind != Memory || in.Strided {
			return fmt.Errorf("expr: vector width %d with strided, random or iota input in%d", v, i)
		}
		if in.T.IsComplex() {
			return fmt.Errorf("expr: vector width %d with %s input in%d (complex elements are read one at a time)", v, in.T, i)
		}
		if in.T.Size() < 2 {
			return fmt.Errorf("expr: vector width %d with %s input in%d (elements under 2 bytes)", v, in.T, i)
		}
		largest = max(largest, in.T.Size())
	}
	if v*largest > 16 {
		return fmt.Errorf("expr: vector width %d × %d-byte elements exceeds 16 bytes", v, largest)
	}
	return nil
}

func (p *Program) validateReduce() error {
	switch {
	case p.Reduce == NoReduce:
		return nil
	case p.Reduce >= numReduceOps:
		return fmt.Errorf("expr: invalid reduce op %d", p.Reduce)
	case p.Stage > Partial:
		return fmt.Errorf("expr: invalid reduction stage %d", p.Stage)
	case p.Reduce.IsMoments() && !p.ValueType().IsFloat():
		return fmt.Errorf("expr: %s of %s values: it takes floats (cast them)", p.Reduce, p.ValueType())
	}
	switch vt := p.ValueType(); {
	case vt == dtype.Bool || IsHalf(vt):
		return fmt.Errorf("expr: %s of %s values: reduce them converted (bool to uint8, halves to float32)", p.Reduce, vt)
	case vt.IsComplex() && p.Reduce != Sum && p.Reduce != Prod && p.Reduce != Mean:
		return fmt.Errorf("expr: %s of %s values: complex numbers are not ordered", p.Reduce, vt)
	}
	if w := p.Words(); w >= 2 && p.ArgIndex >= 0 {
		if p.ArgIndex+w-1 > len(p.Inputs) {
			return fmt.Errorf("expr: ArgIndex %d out of range for %d words (%d inputs)", p.ArgIndex, w, len(p.Inputs))
		}
		want := []dtype.DType{p.SecondType(), dtype.Float64}
		for k := range w - 1 {
			if in := p.Inputs[p.ArgIndex+k]; in.Kind != Memory || in.T != want[k] {
				article := "a"
				if want[k] == dtype.Int64 {
					article = "an"
				}
				return fmt.Errorf("expr: ArgIndex input in%d must be %s %s memory input", p.ArgIndex+k, article, want[k])
			}
		}
	}
	return p.validateResult()
}

// validateResult checks Result against FinalType's rules.
func (p *Program) validateResult() error {
	rt, vt := p.Result, p.ValueType()
	switch {
	case rt == dtype.Invalid:
		return nil
	case !Stores(rt):
		return fmt.Errorf("expr: result type %v, which arrays of programs do not hold", rt)
	case p.Reduce.IsMoments() && !rt.IsFloat():
		return fmt.Errorf("expr: %s writes a float, not %s", p.Reduce, rt)
	case p.Reduce.IsArg() && rt != dtype.Int64:
		return fmt.Errorf("expr: %s writes int64 positions, not %s", p.Reduce, rt)
	case p.Reduce.IsArg():
		return nil
	}
	from := AccType(p.Reduce, vt)
	switch {
	case p.Wide():
		from = dtype.Int64
		if rt.IsFloat() {
			from = dtype.Float64
		}
	case p.Reduce == Mean && !vt.IsComplex():
		from = dtype.Float64
	}
	if !Castable(from, rt) {
		return fmt.Errorf("expr: %s of %s values writes %s, which is no cast of %s", p.Reduce, vt, rt, from)
	}
	return nil
}
