// Package gpuarr is GPU arrays for Go: Array[T] is a row-major
// n-dimensional array of a number type in device memory that knows its
// device and which streams touched it, orders those streams by itself, and
// gives its memory back when released or garbage collected. Example shows
// the model end to end; the differences from NumPy close this page.
//
// Every call takes its options last and runs on the default stream of
// device.Default() (constructors) or of the device of the array it writes,
// unless On(s) or OnDevice(dev) says otherwise; an option a call does not
// take is an error naming it. The files are named after NumPy's routine
// groups:
//
//   - creation (construct.go, like.go, ranges.go, random.go): Empty, Zeros,
//     Full, FromSlice, Arange, Linspace, Eye, NewRNG;
//   - manipulation (view.go, index.go, join.go, take.go, copy.go, host.go):
//     views that share memory (Index, Slice, Reshape, Transpose, …),
//     joins and splits, indexing by arrays (bad indices are checked on the
//     device and reported by the next host wait, see Take), and copies;
//   - math (expr.go, ops.go, math.go, bitwise.go, complex.go, scan.go):
//     lazy expressions that Eval and EvalInto compile into one fused kernel
//     per tree, broadcasting as NumPy does, reading and writing strided
//     views in place;
//   - reductions and statistics (reduce.go, moments.go, nan.go, norm.go,
//     logsumexp.go, histogram.go), each one fused pass over any axes;
//   - sorting and searching (sort.go): stable, NaNs last, as NumPy's;
//   - linear algebra (matmul.go, dot.go, einsum.go) on cuBLAS (gonum on the
//     host); decompositions are package linalg's;
//   - the element types and which functions take them (numeric.go), and
//     kernels of your own (Launch, with In, Out and InOut).
//
// # Streams and ordering
//
// Each array's buffer remembers its last writer and the streams that read
// it since. An operation on stream S waits, on the device, for the
// conflicting work of other streams only; work that stays on one stream
// makes no driver call beyond its own. A host read waits for the last
// writer alone, and only when a GPU write may be pending. Capture records
// a stream's operations into a Graph whose replays are ordered like any
// operation.
//
// # Memory and the garbage collector
//
// Arrays allocate from memory.Default of their device, which package
// gcpressure watches: under memory pressure the GC runs first, so that
// unreachable arrays give their memory back before it is needed.
// SetDefaultMemory (or GPUARR_DEFAULT_MEMORY=unified) makes arrays of
// unified memory instead, which CPU code reads in place (package unified).
// Release returns an array's memory at once and makes every later use an
// error matching ErrReleased; an array never released is freed once the GC
// finds it unreachable. Either way the memory goes back in stream order,
// after every stream that used it, and views keep it alive. An array costs
// one Go allocation, its handle.
//
// # Several devices
//
// An operation on device B that touches an array of device A uses peer
// access (package p2p); where the devices cannot be peers it fails naming
// both and the remedies (Clone or Copy the array to B, or run on A).
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
