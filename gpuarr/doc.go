// Package gpuarr is GPU arrays for Go: Array[T] is a row-major
// n-dimensional array of a number type in device memory that knows its
// device and which streams touched it, orders those streams by itself, and
// gives its memory back when released or garbage collected. Example shows
// the model end to end; the differences from NumPy close this page.
//
// The functions are grouped below as NumPy's reference groups its
// routines: array creation, array manipulation, mathematical functions,
// reductions and statistics, sorting and searching, linear algebra, and
// the element types. Every call takes its options last; a call runs on the
// default stream of device.Default() (constructors) or of the device of
// the array it writes, unless On(s) or OnDevice(dev) says otherwise; a
// call given an option it does not take fails naming it.
//
// # Array creation
//
// Empty, Zeros, Ones, Full and FromSlice take a Shape; EmptyLike,
// ZerosLike, OnesLike and FullLike another array's; Arange, Linspace
// (Endpoint) and Eye their parameters. Random numbers (NumPy's random):
// an RNG (NewRNG) gives UniformExpr and NormalExpr, expressions drawn
// where they are evaluated, the same numbers on every backend.
//
// # Array manipulation
//
// Views share their array's memory: Index is NumPy's basic indexing (At,
// S, From, To, Every, Colon, NewAxis, Ellipsis; negative positions and
// steps count from the end, as in Python), with Slice, Reshape (a copy
// when no strides express it, as in NumPy), Ravel, Transpose, Permute,
// Squeeze, ExpandDims, Flip, BroadcastTo and Diagonal. Roll, Triu and
// Tril copy. Joining and splitting: Concatenate, Stack, Split, SplitAt,
// Pad. Indexing by arrays: Take, TakeAlongAxis, Put, IndexAdd,
// MaskedSelect, Compress, Nonzero; bad indices are checked on the device
// and reported by the next host wait (see Take), unless Clip() or Wrap()
// makes every index valid. Copy, Clone, ToSlice, CopyFromHost and
// CopyToHost move data.
//
// # Mathematical functions
//
// Elementwise functions build a lazy Expr; Eval and EvalInto compile the
// whole tree into one fused kernel, cached per device by the tree's shape
// and types: PTX written by Go and JIT-compiled by the driver, the same
// program run in Go on the host backend. Operands broadcast with NumPy's
// rules; strided views are read in place, and EvalInto writes into them
// (NumPy's x[...] = e).
//
//   - Arithmetic: Add, Sub, Mul, Div (Go's truncating / on integers), Neg,
//     FMA, Pow, FloorDiv and Mod (NumPy's // and %), Rem (Go's %, NumPy's
//     fmod); Scalar makes a constant operand.
//   - Trigonometric and hyperbolic: Sin, Cos, Tan, Asin, Acos, Atan,
//     Atan2, Hypot, Sinh, Cosh, Tanh, Asinh, Acosh, Atanh.
//   - Exponents and logarithms: Exp, Exp2, Expm1, Log, Log2, Log10, Log1p,
//     Sqrt, Cbrt, Rsqrt, Sigmoid.
//   - Rounding: Floor, Ceil, Trunc, Round (half to even).
//   - Special functions: Erf, Erfc.
//   - Miscellaneous: Abs, Sign, Copysign, Minimum and Maximum (NaN
//     propagating), Fmin and Fmax (NaN ignoring), Clamp (NumPy's clip).
//   - Logic: Less, LessEqual, Greater, GreaterEqual, Equal, NotEqual,
//     IsNaN, IsInf, IsFinite give a Mask (And, Or, Not); Where selects by
//     one, FromMask converts one.
//   - Bitwise, on integers: BitAnd, BitOr, BitXor, Invert, LeftShift,
//     RightShift.
//   - Complex numbers: Complex, Real, Imag, Conj, ComplexAbs, Angle.
//   - Sums, products, differences: Cumsum, Cumprod, Cummax, Cummin (and
//     CumsumAs, CumprodAs naming the result type), single-pass scans that
//     take expressions.
//
// Launch runs kernels of your own on arrays (In, Out, InOut).
//
// # Reductions and statistics
//
// Sum, Prod, Min, Max, Mean, ArgMin, ArgMax, Var and Std (Ddof), NanSum,
// NanMean, NanMin, NanMax, Any and All (of a Truth), CountNonzero,
// LogSumExp, Norm (Ord), and SumAs, ProdAs, MeanAs, VarAs, StdAs naming
// the result type, take expressions and any axes (Axis, KeepDims), each
// in one fused pass (LogSumExp and the matrix norms in two or three).
// Bincount and Histogram count.
//
// # Sorting and searching
//
// Sort, Argsort (Descending), TopK, Unique, UniqueAll and SearchSorted:
// stable sorts with NaNs last, as NumPy's.
//
// # Linear algebra
//
// Matmul and MatmulInto (NumPy's matmul: vectors, broadcast stacks, any
// views), Dot, Outer and Einsum (the contractions that map to batched
// GEMM) run cuBLAS (gonum on the host); float32 products use TF32 only
// when TF32() asks. Decompositions and solvers are package linalg's.
//
// # Element types
//
// An Array holds any Element (numeric.go lists the groups each function
// takes): Go's integers and floats, bool (one byte, 0 or 1: comparisons
// Eval into bool arrays, Where takes them, Max and Min are any and all,
// CountNonzero and Nonzero find the true elements), Float16 and BFloat16
// (Go has no 16-bit floats: structs holding the bits, made with ToFloat16
// and ToBFloat16; they compute in float32 and round each result to
// nearest even, as NumPy and PyTorch do, and Matmul multiplies them on
// tensor cores accumulating in float32), and complex64 and complex128
// (real part first, as C99 and NumPy store them; NumPy's formulas for Mul
// and Div; Sum, Prod, Mean and Matmul take them). Cast converts between
// them; Go converts nothing implicitly, and neither does an expression:
// its operands have one type.
//
// # Streams and ordering
//
// Each array's buffer remembers its last writer and the streams that read
// it since. An operation on stream S waits, on the device, for the
// conflicting work of other streams only; work that stays on one stream
// makes no driver call beyond its own. A host read waits for the last
// writer alone, and only when a GPU write may be pending. Capture records
// a stream's operations into a Graph whose memory is private to it
// (GraphPool) and whose replays are ordered like any operation; a graph
// captured Batched replays for every batch size up to its largest.
//
// # Memory and the garbage collector
//
// Arrays allocate from memory.Default of their device, whose allocations
// package gcpressure watches: under memory pressure the GC runs first, so
// that unreachable arrays give their memory back before it is needed.
// SetDefaultMemory (or GPUARR_DEFAULT_MEMORY=unified) makes every array a
// device allocates unified memory instead, which CPU code reads in place
// (package unified): for porting a program to the GPU a piece at a time.
// Release returns an array's memory at once, is idempotent, and makes every
// later use of the handle an error matching ErrReleased; an array never
// released is freed once the GC finds it unreachable. Either way the
// memory goes back in stream order, after every stream that used it, and
// views keep it alive. An array costs one Go allocation, its handle.
//
// # Several devices
//
// An operation on device B that touches an array of device A uses peer
// access (package p2p). Where the devices cannot be peers it fails naming
// both and the remedies: copy the array to B (Clone, Copy) or run the
// operation on A. Copy and Clone between devices go direct with peer
// access and through pinned host memory without it.
//
// # Errors
//
// Every failure is an error naming the operation, the arrays and the
// devices involved: ErrShape, ErrReleased, ErrArgument, and the device
// layer's errors (device.ErrOutOfMemory, ...) wrapped for errors.Is. A nil
// *Array or the zero Array is an ErrArgument error wherever an error can be
// returned, and a panic that says so in the accessors that return none.
//
// # Boundaries
//
// This package is the array API. Its wings are internal: array lifetime
// and memory (internal/lifetime), stream ordering (internal/tracking) and
// the fusion compiler (internal/fusion); packages that extend arrays
// (unified, collective, linalg) reach them through internal/arrayhook. It
// must not manage memory pools (package memory), run garbage collections
// (package gcpressure), or enable peer access or stage copies except
// through package p2p.
package gpuarr
