// Package expr is the intermediate form of gpuarr's fused kernels: a
// Program is a small SSA list of typed instructions evaluated once per
// element of an iteration space, optionally followed by a reduction. Two
// back ends consume it and must agree bit for bit where this page says so:
// package ptxgen turns a Program into PTX text for the CUDA driver's JIT,
// and package hosteval runs it in Go on the host backend. Package fusion
// builds Programs from expression trees (broadcasting, views, casts) and
// launches them; this package has no device code and no state. The op
// table (ops.go) says what each operation is; dtype.DType names the types,
// of which Computes and Stores say which programs take. Example builds a
// Program and lists its kernel's parameters.
//
// # Kernel parameters
//
// A Program's kernel takes its parameters in this order (Params lists them):
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
//
// # Iteration space and indexing
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
// reduced to one value; see Reduce.
//
// # Reductions
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
//
// # Vectors
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
//
// # Semantics the back ends share
//
//   - Arithmetic is in the instruction's type. Float + - * / and Sqrt are
//     correctly rounded (IEEE round to nearest), FMA is fused (one
//     rounding), so these agree bit for bit between back ends. Integer
//     arithmetic wraps (two's complement). Integer division truncates
//     toward zero; x / 0 is 0; MinInt / -1 is MinInt. Rem is the
//     remainder with A's sign (Go's %, C's fmod; exact for floats): x Rem
//     0 is 0 and MinInt Rem -1 is 0 for integers.
//   - Min and Max of floats return NaN when either operand is NaN
//     (NumPy's minimum/maximum); -0 and +0 may come out either way.
//   - Comparisons of floats are IEEE (false with a NaN, except Ne).
//   - Abs of an unsigned type is the identity; Abs(MinInt) is MinInt; Neg
//     of an unsigned type wraps.
//   - Exp, Log, Sqrt, Tanh, Pow take floats only. Special values follow
//     C99/Go math: Exp(+Inf)=+Inf, Exp(-Inf)=0, Log(0)=-Inf, Log(x<0)=NaN,
//     Tanh(±Inf)=±1, Pow as Go's math.Pow. The GPU's Exp, Log, Tanh and
//     Pow are within 4 ulp (float32) or 1e-14 relative (float64) of the
//     correctly rounded result.
//   - Cast: int→int truncates (wraps) or extends by the source's
//     signedness; int→float rounds to nearest; float→float rounds to
//     nearest; float→int truncates toward zero and saturates to the target
//     range, NaN → 0; Bool→number is 0 or 1; number→Bool is x != 0. To a
//     half (Float16, BFloat16) only from Float32 or Float64, rounding once
//     to nearest, ties to even (a float64 is not rounded to float32 first),
//     overflow to ±Inf, subnormals kept, NaN to the canonical NaN 0x7FFF
//     (package half defines these conversions; both back ends agree with it
//     bit for bit); from a half only to Float32 (exact). Between the complex
//     types, each part as floats convert. Castable lists the casts.
//   - Storage types (Storage: the halves and the complex types) are
//     loaded, stored and converted, not computed with: OpReal and OpImag
//     take a complex value's parts (the real part is first in memory, as in
//     C99 and NumPy), OpComplex joins two; Sum, Prod and Mean reduce
//     complex values in Complex128 (Prod: ar·br − ai·bi, ar·bi + ai·br,
//     each operation rounded). A Bool array stores one byte an element, 0
//     or 1; a load takes any nonzero byte as true.
//   - Random inputs are Philox4x32-10 (Random123's constants: multipliers
//     0xD2511F53, 0xCD9E8D57, Weyl steps 0x9E3779B9, 0xBB67AE85), with key
//     (seed low 32 bits, seed high 32 bits) and counter (c low, c high,
//     stream low, stream high) where c is the input's element offset (as
//     for a strided input, its strides applied to idx). With x0..x3 the
//     output words:
//     Uniform float32 = float32(x0>>8) · 2⁻²⁴ in [0, 1);
//     Uniform float64 = float64((x0<<32 | x1) >> 11) · 2⁻⁵³ in [0, 1);
//     Normal float32 = float32(sqrt(-2·ln(u1))·cos(2π·u2)) computed in
//     float64 with u1 = float64((x0>>8)+1)·2⁻²⁴ and u2 = float64(x1>>8)·2⁻²⁴;
//     Normal float64 = the same with u1 = float64(((x0<<32|x1)>>11)+1)·2⁻⁵³
//     and u2 = float64((x2<<32|x3)>>11)·2⁻⁵³.
//     Uniform values agree bit for bit between back ends; Normal values to
//     the float64 accuracy of ln and cos (float32 results almost always
//     bit for bit).
package expr
