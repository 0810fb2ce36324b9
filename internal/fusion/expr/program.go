package expr

import (
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"math"
	"strings"

	"github.com/gpuarr/gpuarr/device/dtype"
)

// Instr is one SSA instruction: its result has type T; A, B, C index
// earlier instructions of the same Program.
type Instr struct {
	Op      Op
	T       dtype.DType
	A, B, C int32
	Aux     int32   // Input or scalar index (leaves)
	Const   float64 // OpConst's value
}

// InputKind says what an input is.
//
// A Random input is Philox4x32-10 (Random123's constants: multipliers
// 0xD2511F53, 0xCD9E8D57, Weyl steps 0x9E3779B9, 0xBB67AE85), with key
// (seed low 32 bits, seed high 32 bits) and counter (c low, c high, stream
// low, stream high), where c is the input's element offset (as for a
// strided input, its strides applied to idx). With x0..x3 the output
// words, both back ends compute
//
//	Uniform float32 = float32(x0>>8)·2⁻²⁴, in [0, 1)
//	Uniform float64 = float64((x0<<32 | x1)>>11)·2⁻⁵³, in [0, 1)
//	Normal float32  = float32(sqrt(-2·ln(u1))·cos(2π·u2)), in float64, with
//	                  u1 = float64((x0>>8)+1)·2⁻²⁴, u2 = float64(x1>>8)·2⁻²⁴
//	Normal float64  = the same with u1 = float64(((x0<<32|x1)>>11)+1)·2⁻⁵³
//	                  and u2 = float64((x2<<32|x3)>>11)·2⁻⁵³
//
// Uniform values agree bit for bit between the back ends; Normal values
// to the float64 accuracy of ln and cos (float32 results almost always
// bit for bit).
type InputKind uint8

const (
	Memory InputKind = iota // an array in device memory
	Random                  // a Philox stream (see InputKind)
	Iota                    // positions: the element offset its strides give (Int64)
)

// Input is one array or random operand.
type Input struct {
	Kind    InputKind
	T       dtype.DType // element type (Random: the generated type; Iota: Int64)
	Normal  bool        // Random only: normal instead of uniform
	Strided bool        // addressed through dims and strides (always true for Random and Iota)
}

// ReduceOp is what a reduction computes per group.
//
// Each group's values (the last instruction at each position) are
// combined into an accumulator of AccType: float sums, products and means
// in float64, integer sums and products in 64 bits (wrapping), integer
// means exactly in 128 bits (Wide: a low and a high word). Float sums and
// products must be accurate to float64-reference tolerance: a tree or
// pairwise order, or sequential runs of at most a few thousand elements
// combined in a tree. Min and Max propagate NaN; NanMin and NanMax ignore
// it (IEEE minNum/maxNum: NaN only when every value is NaN). ArgMin and
// ArgMax give the position k of the first minimum or maximum; a NaN
// counts as both the least and the greatest value, so the first NaN wins.
//
// The moments (Var, Std, NanMean) take float values and accumulate three
// Float64 words: S, the sum of the values' deviations from the group's
// shift K, the count n and M2, the sum of squared deviations from the
// mean (NanMean skips NaN values, takes K = 0 and needs only S and n).
// For Var and Std, K is the group's value at position 0 (0 for an empty
// group), the same for every part of the group. A run of values is
// folded into n, S = Σ(x−K) and S2 = Σ(x−K)², then M2 = S2 − S²/n; two
// accumulators combine by Chan's rule, n = na + nb, S = Sa + Sb,
// M2 = M2a + M2b + δ²·na·nb/n with δ = Sb/nb − Sa/na (no δ term when na
// or nb is 0). A value of ±Inf or NaN in a Var or Std group makes M2
// NaN. The back ends agree to within rounding, not bit for bit.
//
// Identities, for empty groups and for empty parts of a Partial stage:
// Sum and Mean 0, Prod 1, Min +Inf or the type's largest value, Max -Inf
// or its smallest, NanMin and NanMax NaN (floats; integers as Min and
// Max), the moments 0, 0, 0, and for the Arg reductions the Min or Max
// value with position -1, which loses to any real position. In the Final
// stage the result is written in FinalType (Result, or by default
// ResultType), computed from the accumulator as FinalType's doc says, bit
// for bit on both back ends (Mean divides by count). In the Partial stage
// the parts of a group partition its positions in any way the back end
// likes; the Arg reductions, Wide means and moments write a second word
// per part to out2 (moments a third to out3), and with ArgIndex ≥ 0 a
// Final stage over the parts reads those words from that input (and the
// third from the next).
type ReduceOp uint8

const (
	NoReduce ReduceOp = iota
	Sum
	Prod
	Min // NaN if any element is NaN
	Max
	Mean   // Sum / count
	ArgMin // position k of the first minimum (the first NaN, if any); Int64
	ArgMax
	NanMin  // the least value that is not NaN; NaN when all are NaN
	NanMax  // the greatest value that is not NaN; NaN when all are NaN
	Var     // variance: the sum of squared deviations from the mean over count
	Std     // the square root of Var
	NanMean // the mean of the values that are not NaN; NaN when all are NaN

	numReduceOps
)

var reduceNames = [...]string{"none", "sum", "prod", "min", "max", "mean", "argmin", "argmax",
	"nanmin", "nanmax", "var", "std", "nanmean"}

func (r ReduceOp) String() string {
	if int(r) < len(reduceNames) {
		return reduceNames[r]
	}
	return "reduce?"
}

// IsArg reports whether r yields positions.
func (r ReduceOp) IsArg() bool { return r == ArgMin || r == ArgMax }

// IsMoments reports whether r accumulates moments: a sum, a count and a
// sum of squared deviations (Var, Std, NanMean; see ReduceOp).
// Moments take float values only.
func (r ReduceOp) IsMoments() bool { return r == Var || r == Std || r == NanMean }

// IsNan reports whether r ignores NaN values (NanMin, NanMax, NanMean).
func (r ReduceOp) IsNan() bool { return r == NanMin || r == NanMax || r == NanMean }

// Stage says what a reduction kernel writes.
type Stage uint8

const (
	// Final: out[g] = the group's result, of type ResultType.
	Final Stage = iota
	// Partial: each group is split into bpg parts; block part p of group
	// g reduces positions k ≡ chunks of its part and writes its partial
	// accumulator (AccType) to out[g·bpg+p] (Arg: the value to out, in
	// the input's type, and its position k (Int64) to out2; Wide Mean:
	// the low word to out and the high word (Int64) to out2; moments:
	// the sum to out, the count to out2 and the sum of squared
	// deviations to out3, all Float64). A Final program over the
	// partials (groups × bpg, contiguous; ArgIndex naming the out2 words
	// when there are any, ArgIndex+1 the out3 words) finishes.
	Partial
)

// Program is one fused kernel: Code evaluated once per element of an
// iteration space and, with Reduce set, reduced per group (see ReduceOp).
//
// An elementwise kernel computes out[i] = value of the last instruction at
// i, for i in [0, n); out is contiguous, or with OutStrided written at
// out + Σ_d idx_d·outStrides_d·size like a strided input (its strides
// never map two elements to one address). A contiguous input (Strided
// false) is read at its base + i·size. A strided input is read at
// base + Σ_d idx_d·strides_d·size, where idx is i decomposed row-major over
// dims (dims[Rank-1] varies fastest); strides are in elements, may be 0
// (broadcast) or negative. An Iota input's value (OpIota) is that offset
// itself, Σ_d idx_d·strides_d, as an Int64: with row-major strides of a
// shape broadcast over the space, the position within that shape.
// Index64 false promises that n, every offset and every intermediate
// index fit in a signed 32-bit integer, so 32-bit index arithmetic is
// allowed; Index64 true needs 64-bit arithmetic throughout.
//
// A reduction's iteration space is groups × glen (n = groups·glen): element
// i belongs to group i / glen at position k = i mod glen. Each group is
// reduced to one value, as ReduceOp says.
//
// Vector V > 1 (elementwise, or a reduction with groups == 1) promises that
// no input is Strided, Random or Iota, that out is not strided, that every
// input's element size is ≥ 2 bytes (an elementwise output's may be 1:
// bool, int8, uint8), that no operand is complex, and that every address
// (out and inputs) is aligned to V × its element size, where V = 16 / the
// largest element size, at most 8 (8 for 2-byte operands, or a 1-byte
// output alone; a reduction's at most 4). (Every array address is a
// multiple of its element size, which complex loads and stores use.) The
// kernel may then read and write V consecutive elements at once; it
// handles the n mod V tail itself.
type Program struct {
	Code    []Instr // the last instruction is the value per element
	Inputs  []Input
	Scalars []dtype.DType
	Rank    int  // dims parameters (0 when no input is Strided, Random or Iota)
	Index64 bool // 64-bit index arithmetic needed
	Vector  int  // elements per vector access; 0 or 1: none
	// OutStrided (elementwise only): out is addressed through dims and
	// out strides, like a strided input, instead of contiguously.
	OutStrided bool
	// Columns (reductions only; Rank 2 over dims [groups, glen], every
	// Memory input Strided, groups ≤ 256 and the block size a multiple of
	// groups): each block takes one part of every group at once, thread t
	// group t mod groups, so that when the groups lie innermost in memory
	// a warp reads consecutive addresses. The results are as without it.
	Columns bool

	Reduce ReduceOp
	Stage  Stage
	// ArgIndex ≥ 0 (a Final stage over the partials of a reduction with
	// two outputs, see HasOut2): each partial's second word comes from
	// Inputs[ArgIndex] (SecondType) at the same element, not from the
	// value: its position k for the Arg reductions, the high 64 bits of
	// its 128-bit sum for a Wide Mean, the count for moments, whose third
	// word (the sum of squared deviations, Float64) comes from
	// Inputs[ArgIndex+1]. Those inputs are not used by Code.
	ArgIndex int
	// Result is the element type a Final reduction writes; the zero value
	// (dtype.Invalid) means ResultType(Reduce, ValueType()). See FinalType for the types allowed.
	Result dtype.DType
}

// ValueType is the type of the per-element value (the last instruction).
func (p *Program) ValueType() dtype.DType { return p.Code[len(p.Code)-1].T }

// AccType is the accumulator of a reduction of values of type t: Sum and
// Prod accumulate floats in Float64, complex numbers in Complex128,
// signed integers in Int64 and unsigned in Uint64 (wrapping modulo 2⁶⁴);
// Mean accumulates floats in Float64, complex numbers in Complex128 and
// integers exactly in 128 bits (Wide), whose low word is the Uint64
// AccType returns and whose high word is an Int64 beside it; the moments
// accumulate a Float64 sum, count and sum of squared deviations; Min,
// Max, NanMin, NanMax and the Arg reductions keep t.
func AccType(r ReduceOp, t dtype.DType) dtype.DType {
	switch {
	case Wide(r, t):
		return dtype.Uint64
	case r.IsMoments():
		return dtype.Float64
	case r == Sum || r == Prod || r == Mean:
		switch {
		case t.IsComplex():
			return dtype.Complex128
		case t.IsFloat():
			return dtype.Float64
		case t.IsSigned():
			return dtype.Int64
		default:
			return dtype.Uint64
		}
	}
	return t
}

// Wide reports whether r over values of type t accumulates in 128 bits:
// a Mean of integers. The accumulator is a two's-complement 128-bit sum
// of the values (sign-extended from a signed t, zero-extended from an
// unsigned one), exact for any count below 2⁶⁴.
func Wide(r ReduceOp, t dtype.DType) bool { return r == Mean && t.IsInt() }

// ResultType is the element type a Final reduction writes by default:
// Int64 for the Arg reductions, the value type otherwise.
func ResultType(r ReduceOp, t dtype.DType) dtype.DType {
	if r.IsArg() {
		return dtype.Int64
	}
	return t
}

// FinalType is the element type the Final stage writes: Result when set,
// else ResultType. The Arg reductions write Int64; Var, Std and NanMean
// write a float type (of values that are floats); the others write any
// type OpCast converts to (Castable) from the type named below, and the
// value written is then:
//
//   - Min, Max, NanMin, NanMax: the value converted to Result as OpCast converts (from
//     the value type: uint8 values to a Bool result, float32 values to a
//     half result);
//   - Sum, Prod: the accumulator converted to Result as OpCast converts
//     (from AccType: integers wrap, floats round, float→int saturates);
//   - Mean of floats: the float64 sum divided by count in float64, then
//     converted to Result as OpCast converts; of complex values the same
//     for each part (from Complex128);
//   - Mean of integers (Wide): with S the exact 128-bit sum, c = count,
//     q = ⌊|S| / c⌋ and r = |S| − q·c (q < 2⁶⁴ always, since |S| < c·2⁶⁴):
//     for an integer Result, ±q (truncated toward zero, the sign of S)
//     as a 64-bit two's-complement value, then truncated to Result's
//     width; for a float Result, ±(float64(q) + float64(r) / float64(c))
//     with each conversion and operation rounded to nearest in float64
//     (q and r converted as unsigned), then rounded to Result. count = 0
//     gives 0 for an integer Result and NaN for a float one;
//   - Var: the sum of squared deviations M2 divided by count in float64
//     (count is the divisor: the number of values less the degrees of
//     freedom, at least 0, so that M2/0 gives +Inf or NaN), rounded to
//     Result; Std: the square root (sqrt.rn) of that float64 quotient,
//     rounded to Result;
//   - NanMean: the float64 sum of the values that are not NaN divided by
//     their number (NaN when there are none), rounded to Result.
func (p *Program) FinalType() dtype.DType {
	if p.Result != dtype.Invalid {
		return p.Result
	}
	return ResultType(p.Reduce, p.ValueType())
}

// Wide reports whether the program's reduction accumulates in 128 bits.
func (p *Program) Wide() bool { return Wide(p.Reduce, p.ValueType()) }

// Words is the number of words in the reduction's accumulator: 3 for the
// moments (sum, count, sum of squared deviations), 2 for the Arg
// reductions (value, position) and Wide Means (low, high), else 1.
func (p *Program) Words() int {
	switch {
	case p.Reduce.IsMoments():
		return 3
	case p.Reduce.IsArg() || p.Wide():
		return 2
	}
	return 1
}

// SecondType is the type of the accumulator's second word (Words ≥ 2):
// Float64 for the moments' count, Int64 otherwise.
func (p *Program) SecondType() dtype.DType {
	if p.Reduce.IsMoments() {
		return dtype.Float64
	}
	return dtype.Int64
}

// HasOut2 reports whether the kernel writes a second output, out2: a
// Partial stage of an Arg reduction (positions), of a Wide Mean (the
// high words of the 128-bit sums) or of moments (the counts).
func (p *Program) HasOut2() bool {
	return p.Reduce != NoReduce && p.Stage == Partial && p.Words() >= 2
}

// HasOut3 reports whether the kernel writes a third output, out3: a
// Partial stage of moments (the sums of squared deviations).
func (p *Program) HasOut3() bool {
	return p.Reduce != NoReduce && p.Stage == Partial && p.Words() == 3
}

// OutType is the type the kernel writes to out.
func (p *Program) OutType() dtype.DType {
	switch {
	case p.Reduce == NoReduce:
		return p.ValueType()
	case p.Stage == Partial && p.Reduce.IsArg():
		return p.ValueType()
	case p.Stage == Partial:
		return AccType(p.Reduce, p.ValueType())
	}
	return p.FinalType()
}

// Param is one kernel parameter: its name (for PTX and messages) and type
// (Uint64 for addresses, counts and dims; Int64 for strides).
type Param struct {
	Name string
	T    dtype.DType
}

// Params lists the kernel's parameters in order. Both back ends take
// them so:
//
//	elementwise:  out u64 · n u64
//	reduction:    out u64 · [out2 u64, Partial stage with Words ≥ 2]
//	              · [out3 u64, Partial stage with Words = 3]
//	              · groups u64 · glen u64 · bpg u64 · count u64
//	then:         dims[Rank] u64               (only when Rank > 0)
//	              [out strides[Rank] s64]       (OutStrided only)
//	              per input i: [base u64]       (address; the seed for a Random input; none for Iota)
//	                           [stream u64]     (Random inputs only)
//	                           [strides[Rank] s64, in elements] (Strided inputs only)
//	              per scalar j: the scalar's parameter type (ParamType)
func (p *Program) Params() []Param {
	var ps []Param
	u := func(name string) { ps = append(ps, Param{name, dtype.Uint64}) }
	u("out")
	if p.Reduce == NoReduce {
		u("n")
	} else {
		if p.HasOut2() {
			u("out2")
		}
		if p.HasOut3() {
			u("out3")
		}
		u("groups")
		u("glen")
		u("bpg")
		u("count")
	}
	for d := 0; d < p.Rank; d++ {
		u(fmt.Sprintf("dim%d", d))
	}
	if p.OutStrided {
		for d := 0; d < p.Rank; d++ {
			ps = append(ps, Param{fmt.Sprintf("out_stride%d", d), dtype.Int64})
		}
	}
	for i, in := range p.Inputs {
		if in.Kind != Iota {
			u(fmt.Sprintf("in%d", i))
		}
		if in.Kind == Random {
			u(fmt.Sprintf("in%d_stream", i))
		}
		if in.Strided {
			for d := 0; d < p.Rank; d++ {
				ps = append(ps, Param{fmt.Sprintf("in%d_stride%d", i, d), dtype.Int64})
			}
		}
	}
	for j, t := range p.Scalars {
		ps = append(ps, Param{fmt.Sprintf("s%d", j), ParamType(t)})
	}
	return ps
}

// Key is a canonical encoding of the program: two programs with equal
// keys compile to the same kernel. It is binary (not for reading) and
// cheap, since every materialization computes one to look its kernel up.
func (p *Program) Key() string { return string(p.AppendKey(nil)) }

// AppendKey appends the key to b (see Key), allocating nothing when b has
// room.
func (p *Program) AppendKey(b []byte) []byte {
	flags := byte(0)
	if p.Index64 {
		flags |= 1
	}
	if p.OutStrided {
		flags |= 2
	}
	if p.Columns {
		flags |= 4
	}
	b = append(b, byte(p.Rank), byte(p.Vector), flags, byte(p.Reduce), byte(p.Stage), byte(p.ArgIndex+1),
		byte(p.Result), byte(len(p.Inputs)), byte(len(p.Scalars)))
	for _, in := range p.Inputs {
		k := byte(in.Kind)
		if in.Normal {
			k |= 4
		}
		if in.Strided {
			k |= 8
		}
		b = append(b, k, byte(in.T))
	}
	for _, t := range p.Scalars {
		b = append(b, byte(t))
	}
	for _, in := range p.Code {
		b = append(b, byte(in.Op), byte(in.T))
		b = binary.LittleEndian.AppendUint32(b, uint32(in.A))
		b = binary.LittleEndian.AppendUint32(b, uint32(in.B))
		b = binary.LittleEndian.AppendUint32(b, uint32(in.C))
		b = binary.LittleEndian.AppendUint32(b, uint32(in.Aux))
		if in.Op == OpConst {
			b = binary.LittleEndian.AppendUint64(b, math.Float64bits(in.Const))
		}
	}
	return b
}

// EntryName is the kernel's PTX entry point: gpuarr_ew_ or gpuarr_red_
// and a hash of the key.
func (p *Program) EntryName() string {
	h := fnv.New64a()
	h.Write([]byte(p.Key()))
	kind := "ew"
	if p.Reduce != NoReduce {
		kind = "red"
	}
	return fmt.Sprintf("gpuarr_%s_%016x", kind, h.Sum64())
}

// String is a readable listing, for errors and debugging.
func (p *Program) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "program %s (rank %d, vector %d, index64 %t, reduce %s, stage %d", p.EntryName(), p.Rank, p.Vector, p.Index64, p.Reduce, p.Stage)
	if p.OutStrided {
		b.WriteString(", strided out")
	}
	if p.Columns {
		b.WriteString(", columns")
	}
	if p.Reduce != NoReduce && p.Result != dtype.Invalid {
		fmt.Fprintf(&b, ", result %s", p.Result)
	}
	b.WriteString(")\n")
	for i, in := range p.Code {
		fmt.Fprintf(&b, "  %%%d = %s.%s", i, in.Op, in.T)
		switch {
		case in.Op == OpInput || in.Op == OpRandom || in.Op == OpIota:
			fmt.Fprintf(&b, " in%d", in.Aux)
		case in.Op == OpScalar:
			fmt.Fprintf(&b, " s%d", in.Aux)
		case in.Op == OpConst:
			fmt.Fprintf(&b, " %g", in.Const)
		}
		for k, a := range []int32{in.A, in.B, in.C}[:in.Op.Arity()] {
			if k >= 0 {
				fmt.Fprintf(&b, " %%%d", a)
			}
		}
		b.WriteByte('\n')
	}
	return b.String()
}

// Valid reports whether r is one of the reductions above (NoReduce
// included).
func (r ReduceOp) Valid() bool { return r < numReduceOps }
