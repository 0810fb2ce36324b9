// Package ptxgen turns an expr.Program into PTX text: one .entry per
// module, named p.EntryName(), taking exactly p.Params(), preceded by the
// caller's header and by the tables of the math library functions
// (mathlib.go) the program uses, whose bodies the entry holds as copies
// (mathlib_inline.go). Generate validates the program first (expr.Validate) and
// refuses what it cannot compile with an error naming the problem.
// Example generates one.
//
// # Registers
//
// Every instruction gets fresh virtual registers (ptxas allocates the real
// ones): Bool in %p predicates, integers of up to 32 bits in %r (.b32),
// 64-bit integers in %rd, float32 in %f, float64 in %fd. Integers of 8 and
// 16 bits compute in 32 bits and are re-normalized (sign- or zero-extended
// from their width) after every operation that can leave their range, so
// wrapping, comparisons and division behave as in the narrow type; they
// load with ld.global.s8/u8/s16/u16 straight into 32-bit registers and
// store truncating. Scalars, constants and whatever depends only on them
// are computed once before the loops. The storage types (storage.go): a
// Bool array's bytes load into predicates (nonzero: true) and store as 0
// or 1; Float16 and BFloat16 live as their bits in %r, converted with
// cvt.f32.f16 (BFloat16: the bits shifted up) and rounded by
// cvt.rn.f16.f32 (BFloat16: on the bits, which needs no sm_80 cvt), from
// float64 through a round-to-odd float32, NaN selected to 0x7FFF; a
// complex value is a pair of registers "{%f1, %f2}", loaded and stored
// with ld/st.global.v2.
//
// # Elementwise kernels
//
// A 1-D launch of any shape. With Vector V > 1 a grid-stride loop walks
// vectors of V elements, VectorsPerThread of them per thread and
// iteration, ntid apart, all loaded (ld.global.v4.f32, v2.f64, …) before
// any is computed (one st.global.vN each, no division; a vector past the
// end loads the last one and stores nothing), then a second grid-stride
// loop takes the n mod V tail, element by element; with V = 1 only the
// second loop runs. Such a kernel over one array of 32-bit types, without
// pow or hypot, declares .maxnreg 32, which keeps a full SM of threads
// resident (registerCap).
// Indexes are 32-bit unless Index64 (the first index and the step are
// computed in 64 bits and the step clamped to 2³¹, so huge grids cannot
// wrap them). A contiguous input is read at base + i·size; a strided or
// Random input decomposes i over dims (div/mul/sub per dimension, the only
// divisions) and dots the indexes with its strides. Loads are plain
// ld.global: out may alias an input element for element.
//
// # Reduction kernels
//
// A 1-D grid of blocks whose size is a multiple of 32, at most 1024. Work
// item b = g·bpg + q is part q of group g; blocks take work items in a
// block-stride loop. Within an item, thread tid reduces positions
// k = q·ntid + tid, stepping by bpg·ntid, into an accumulator (AccType, or
// the value type and an s64 position for ArgMin/ArgMax, or for a Wide
// Mean a 128-bit sum in two b64 registers, added with an explicit carry).
// With Vector > 1
// (groups == 1, contiguous, aligned) threads read V elements at a time,
// two vectors per iteration into two accumulators, and part 0 takes the
// glen mod V tail. Then the block combines: shfl.sync.down within each
// warp (64-bit values as two 32-bit halves), one 8-byte slot per warp in
// .shared memory (a second slot array for positions and high words),
// bar.sync, the first warp combines the slots, and thread 0 writes out[g]
// (Final, in FinalType; Mean divides by count in float64, a Wide Mean
// divides its 128-bit sum by count exactly, rem.u64 then 64 steps of long
// division) or out[b] (Partial, the accumulator; Arg: value to out[b] and
// position to out2[b]; Wide: low word to out[b], high word to out2[b]).
// A Final kernel must be launched with bpg = 1.
//
// A Columns reduction (groups innermost in memory, as when summing an
// NHWC array over N, H and W) instead makes each block take part q of
// every group: thread tid folds group tid mod groups, rows
// q·RB + tid div groups stepping by bpg·RB (RB = ntid div groups), four
// rows per iteration into two accumulators, with the element's indexes
// known (no division); consecutive threads read consecutive groups, so a
// warp reads whole rows. The threads of a group then combine through
// per-thread .shared slots, and thread c writes group c's result or part.
//
// Every combination is commutative given positions (ties and NaNs go to
// the lower position, position -1 loses), so threads, lanes and warps may
// combine in any order. Each thread sums its run of about
// glen / (bpg·ntid) elements sequentially in float64, so a float sum is
// within (run + 64)·2⁻⁵³·Σ|x| of the exact one before its final
// rounding (package gpuarr's Sum states the resulting bound). Moments
// (Var, Std, NanMean) fold each thread's run into f64 sums of deviations
// from the group's shift, its value at position 0, which every thread
// evaluates first; runs and warps then combine by Chan's rule, three
// words per accumulator (a third .shared slot array).
//
// # Scan kernels
//
// GenerateScan writes the scan of an elementwise program (expr.Scan): a
// single pass with a decoupled look-back over tiles of expr.Scan.Tile
// elements, rows handled as segments; see scan.go.
//
// # Semantics
//
// As documented in package expr: float arithmetic with .rn (never
// contracted into FMA), FMA with fma.rn, integer division guarded against
// x/0 (0) and MinInt/-1 (MinInt), float Min/Max returning NaN when either
// operand is NaN, Ne true on NaN (setp.neu), float→int by cvt.rzi plus a
// clamp for narrow types and an explicit NaN → 0 (the GPU's cvt gives the
// integer indefinite value for NaN).
package ptxgen
