// Package numpytest is gpuarr's differential suite against NumPy: golden
// cases written by a NumPy generator (gen/gen.py) and a Go test that runs
// them through gpuarr's public API on the default device (the host
// backend in CI, CUDA in the GPU bundle). The package has no API; its
// tests are the suite. NumPy is needed only to regenerate the goldens.
//
// # The cases
//
// testdata/<family>.json.gz, one file per family (trees, broadcast,
// casts, differences, math, intops, complex, reductions, reductions_new,
// views, views_new, matmul, errors, evalinto, sortscan), each
// {"version": 1, "cases": [...]}.
// A case:
//
//	id     family/function/type/n, unique
//	fn     the function the case is about (the counts are per fn)
//	in     inputs: {"t": type, "s": shape, "d": base64 of the little-endian
//	       elements} or, for long inputs, {"t", "s", "g": {"seed", "lo",
//	       "hi"}}: SplitMix64 values the runner recomputes
//	expr   the tree: nodes {"op", "t", "r", "a": [operands], "k": {attributes}};
//	       op is a key of the interpreter table (a Go-side name: "Add",
//	       "Step", "SumAs"), t the element type whose row runs it (the
//	       operand's, or the result's for a conversion), r the result's
//	       type; op "in" is input k.i
//	out    NumPy's results, in order (several for TopK, Unique, Split, ...)
//	err    instead of out: the sentinel the call must fail with
//	diff   a row of gpuarr's NumPy-differences table (see below)
//	n, scale  for tolerances: elements per reduced group (a product's
//	       inner extent) and, per result element, the magnitude the error
//	       bound scales with (Σ|x|, |Π|, (|A||B|)ᵢⱼ, Σx²/(n−ddof))
//	zs     the sign of a zero result is not compared
//
// The trees are built from gpuarr's exact operations (IEEE + − × ÷ √ and
// fused multiply-add, Minimum/Maximum, comparisons, Where, in-range Cast,
// Clamp) over views (Transpose, Permute, Step with negative steps, Slice,
// Reshape with −1), with broadcasting, rank-0 and empty arrays, scalars,
// and NaN, ±Inf, ±0, subnormal and extreme values. A function with a
// rounding error of its own (Exp, Pow, a reduction, a matrix product) is
// the root of its case, over such a tree: its error bound then holds as
// stated, with no error of other operations to propagate. float16 and
// bfloat16 cases have one rounding operation each (whether a fused chain
// rounds its intermediate results to the half type is the kernel's
// choice); bfloat16 is emulated in float32 by the generator.
//
// # The runner
//
// TestNumPy decodes each case and evaluates its tree with the interpreter
// table (interp_test.go): per element type, a map from op to a row that
// calls gpuarr. A case whose op or element type has no row yet is
// pending: counted per function and per missing op and logged (go test
// -v), not run. Every other case must pass; the test also fails when
// fewer cases run than executedFloor (numpy_test.go), or a row of the
// table has no golden cases (TestInterpreterTable).
//
// Adding a function: its generator entry (NumPy's answer for random
// operands, under the op name its row will have), regenerate, then its row
// in interp_test.go; raise executedFloor to the new count. Adding an
// element type: a row of gen/numerics.py's TYPES (the families draw from
// its type lists), and in interp_test.go its entry in types and in the
// conversion lists.
//
// # Op names and attributes
//
// The goldens name functions by their Go-side names (NumPy's in the
// generator's references). The functions being added have cases already,
// pending until their rows land; their operands (a) and attributes (k),
// with NumPy's meaning:
//
//	unary math (Sin … Erfc, Floor, Ceil, Trunc, Round, Sign, Rsqrt, Cbrt,
//	  IsNaN, IsInf, IsFinite → bool, Real, Imag, Conj, Angle)   a: x
//	binary (Atan2, Hypot, Copysign, Fmin, Fmax, FloorDiv, Mod, Rem,
//	  BitAnd, BitOr, BitXor, LeftShift, RightShift)              a: x, y
//	BitNot                                                      a: x
//	Clip                      a: x, lo, hi (arrays that broadcast)
//	Var, Std                  k: axis [ints], keepdims, ddof
//	Any, All, CountNonzero, NanSum, NanMean, NanMax, NanMin, LogSumExp
//	                          k: axis [ints], keepdims
//	Norm                      k: ord (1, 2, "inf" or none), axis [one int],
//	                          keepdims: np.linalg.norm (without axis: a
//	                          1-D operand's vector norm, a 2-D operand's
//	                          matrix norm: Frobenius, 1 or inf)
//	PySlice                   k: axis, start, stop, step (Python's slice:
//	                          negatives count from the end, null is None)
//	Squeeze                   k: axis [ints] (none: every extent-1 axis)
//	ExpandDims                k: axis
//	ReshapeStrided            k: shape (Reshape of a strided view: a copy)
//	Ravel                     —
//	BroadcastTo               k: shape
//	Flip                      k: axis [ints] (none: every axis)
//	Roll                      k: shift, axis (none: the flattened array)
//	Diagonal                  k: offset, axis1, axis2
//	Triu, Tril                k: k
//	Eye                       k: n, m, k (no operands; t the element type)
//	Arange                    k: start, stop, step
//	Linspace                  k: start, stop, num, endpoint
//	ZerosLike, OnesLike       a: x;  FullLike also k: v (base64 scalar)
//	Matmul1D, MatmulBatched, MatmulStrided, Dot, Outer
//	                          a: x, y (np.matmul's 1-D and broadcast
//	                          batches; a stepped operand; np.dot, np.outer)
//	Einsum                    a: x, y; k: subscripts
//	Sort, Argsort             k: axis, descending (stable; NaN last)
//	TopK                      k: k, largest; along the last axis; results
//	                          values, indices (int64)
//	Unique                    results: sorted values, counts, inverse
//	                          (of the flattened array), int64
//	SearchSorted              a: sorted 1-D, values; k: side
//	Cumsum, Cumprod, Cummax, Cummin
//	                          k: axis (none: flattened), exclusive
//	Take                      a: x, indices (int64); k: axis (none:
//	                          flattened); an index out of range expects
//	                          the sentinel ErrIndex
//	TakeAlongAxis             a: x, indices; k: axis
//	Put                       a: x, flat indices, values → x after the put
//	IndexAdd                  a: x, indices, source; k: axis → x after it
//	MaskedSelect              a: x, mask → the selected elements, 1-D
//	Nonzero                   results: one int64 index array per axis
//	Concatenate, Stack        a: the arrays; k: axis
//	Split                     k: sections or indices, axis; one result
//	                          per part
//	Pad                       k: widths [[before, after] per axis], v
//	Bincount                  a: x[, weights float64]; k: minlength
//	Histogram                 k: bins, lo, hi; results counts, edges
//	EvalInto                  a: dst (an input), e: e computed into dst
//	                          (e may read dst itself: y = y*2 + x)
//	EvalIntoOverlap           the same, e reading another view of dst (its
//	                          transpose or reverse): NumPy's out= answer,
//	                          computed before any element is written
//
// # Tolerances
//
// Results are compared exactly (the same bits, any NaN matching any NaN)
// unless the root op has a rule in tolerance_test.go:
//
//   - exact: integer and bool results, views, copies, casts, comparisons,
//     Where, Add, Sub, Mul, Div, Sqrt, FMA, Minimum/Maximum, Abs, Neg,
//     Floor, Ceil, Trunc, Round, Sign, Copysign, Fmin/Fmax, FloorDiv, Mod,
//     Rem, Min/Max/ArgMin/ArgMax, sorting, indexing, joining;
//   - Exp, Log, Tanh, Pow: the accuracy internal/fusion/expr documents (4
//     ulp in float32, 1e-14 relative in float64) + 1 ulp for the
//     reference; Sigmoid 6 ulp + 1;
//   - the math functions being added: CUDA's documented maximum ulp error
//     (CUDA C++ Programming Guide, Mathematical Functions) + 1 ulp: in
//     float32/float64, Exp2 2/1, Expm1 1/1, Log2 1/1, Log10 2/1, Log1p
//     1/1, Cbrt 1/1, Rsqrt 2/1, Sin and Cos 2/2, Tan 4/2, Asin, Acos, Atan
//     2/2, Atan2 3/2, Sinh 3/2, Cosh 2/1, Asinh 3/3, Acosh 4/3, Atanh 3/2,
//     Erf 2/2, Erfc 4/5, Hypot 3/2; float16 and bfloat16 within 1 ulp;
//   - sums and means (Sum, SumAs, Mean, MeanAs, NanSum, NanMean, Cumsum,
//     L1 Norm): 2(n+1)·u·Σ|x| + 1 ulp, u the accumulation's unit roundoff
//     (2⁻⁵² for gpuarr's float64 accumulation of float32 and float64,
//     2⁻²³ for the half types, T's own for functions being added);
//     MeanAs of integers within 1 ulp of the exact mean;
//   - products (Prod, ProdAs, Cumprod): 2(n+1)·u·|Π| + 1 ulp;
//   - Var: 2(n+4)·eps·Σx²/(n−ddof) + 2 ulp, Std its square root;
//     LogSumExp (n+6)·eps + 3 ulp; Norm: L1 and the matrix 1- and
//     ∞-norms as sums, 2-norms (n+4)·eps relative, L∞ exact;
//   - matrix products (Matmul and its 1-D, batched and strided forms, Dot,
//     Einsum): (k+2)·u·(|A||B|)ᵢⱼ + 1 ulp, u of T (float32 for the half
//     types), four times that for complex;
//   - complex Mul 4·eps, Div 8·eps relative to |want| (normwise), Abs and
//     Angle as Hypot and Atan2; Linspace and Histogram's edges
//     4·eps·max(|start|, |stop|).
//
// The references are exact or nearly so: exact sums (math.fsum) and
// products rounded once, long double or mpmath values of math functions
// rounded once to the type, NumPy itself for exact operations.
//
// # Intended differences
//
// A case with "diff" holds NumPy's answer where gpuarr's package doc
// (gpuarr/numpy.go) documents another. Its entry in differences_test.go
// computes gpuarr's answer from the operands (Go's truncating integer Div,
// saturating float→integer Cast, the truncated integer Mean), expects the
// row's error (Sum of narrow integers, Mean of no elements) and checks the
// alternative the row names (SumAs[int64] is NumPy's sum), or writes out
// the Cast a Go user needs where NumPy promotes; it also checks NumPy's
// answer against what the row says NumPy does. A row no golden case
// covers has an api check instead (differences_api_test.go): gpuarr's
// public API on small arrays, NumPy's answer written in; a row whose
// difference is that a call does not compile is type-checked against
// gpuarr's declared constraints (differences_compile_test.go).
// TestDifferencesCoverTheTable keeps the entries and the table's rows one
// to one.
package numpytest
