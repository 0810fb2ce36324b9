// Package gpuarr is GPU arrays for Go: Array[T] holds a row-major
// n-dimensional array of a fixed-size number type in device memory,
// knows its device and which streams touched it, orders those streams by
// itself, and gives its memory back when released or garbage collected.
//
// # Quick start
//
//	x, err := gpuarr.FromSlice([]float32{1, 2, 3, 4, 5, 6}, gpuarr.Shape{2, 3})
//	...
//	defer x.Release()
//	rows, err := x.Slice(1, 2)   // a view: shares x's memory
//	vals, err := rows.ToSlice()  // [4 5 6]
//
// Constructors (Empty, Zeros, Ones, Full, FromSlice) take the shape as a
// Shape value and options last. Custom kernels run on arrays with Launch,
// each array wrapped in In, Out or InOut to say how the kernel uses it.
//
// # Expressions, reductions, matmul, random numbers
//
// Elementwise arithmetic is lazy: Add, Sub, Mul, Div, Neg, Abs, Minimum,
// Maximum, Pow, Exp, Log, Sqrt, Tanh, Sigmoid, FMA, Clamp, Cast, the
// comparisons (Less, ..., giving a Mask) and Where build an Expr[T]
// without computing anything. Eval (into a new array) or EvalInto (into an
// existing one) compiles the whole tree into one kernel — generated as PTX
// by Go code and JIT-compiled by the driver, so no CUDA toolkit is needed;
// the host backend runs the same program in Go — and caches it per device
// by the tree's shape and types (scalar values are parameters). When every
// array operand is a contiguous array of the result's shape, a repeated
// expression shape skips lowering altogether: one walk over the tree
// finds the kernel and the launch, whatever the arrays and their size:
//
//	// z = x*y + 1 in one pass over memory
//	z, err := gpuarr.Eval(gpuarr.Add(gpuarr.Mul(x, y), gpuarr.Scalar[float32](1)))
//
// Operands broadcast with NumPy's rules; strided views (Transpose,
// Permute, Step) are read in place; an empty array is contiguous whatever
// view it came from. Reductions (Sum, Prod, Min, Max, Mean, ArgMin,
// ArgMax; all elements or any axes, KeepDims; SumAs, ProdAs and MeanAs
// naming the result type like NumPy's dtype=) accept an expression and
// fuse it (Sum(Mul(x, x)) reads x once). Matmul multiplies matrices
// with cuBLAS (gonum on the host). RNG draws uniform and normal numbers
// that are the same on every backend for the same seed, as expressions
// (UniformExpr, NormalExpr) that Eval computes, fused with the rest. The semantics
// every backend shares (integer division by zero, NaN in Minimum, casts
// that saturate) are in internal/expr's package doc and on each function.
//
// # Streams
//
// Simple code never names a stream: everything runs on device.Default()'s
// default stream, and operations on existing arrays on the default stream
// of the array's device. A goroutine that wants its work to overlap with
// others' takes a stream of its own and passes On(s) to each call:
//
//	s, _ := dev.NewStream()
//	y, _ := gpuarr.Zeros[float32](gpuarr.Shape{n}, gpuarr.On(s))
//	gpuarr.Launch(k, cfg, gpuarr.In(x), gpuarr.Out(y), uint64(n), gpuarr.On(s))
//
// That is the one way to choose where work runs (OnDevice(dev) picks a
// device's default stream). It needs no manual synchronization for
// correctness: each array's buffer remembers its last writer (a stream and
// an event) and the streams that read it since. An operation on stream S
// that reads an array waits, on the device, for the last write when another
// stream made it; one that writes also waits for other streams' reads.
// Events are recorded lazily — only when another stream or the host must
// wait — so work that stays on one stream makes no driver call beyond its
// own. Tracking is per buffer: views of one buffer used on different
// streams are ordered with each other even when they do not overlap.
//
// Host reads (ToSlice, CopyToHost) take no stream: if a GPU write may be
// pending (a dirty bit), they wait for that writer's event alone, then
// copy; an array nothing wrote since the last host read costs no wait.
//
// # Graphs (Capture, Replay, GraphPool)
//
// Capture(s, fn) records the array operations fn issues on s (a stream
// from NewStream) into a graph, and Graph.Replay runs it on any stream of
// the device as one operation: it waits on the device for the writers of
// the arrays the graph reads and the readers of those it writes, and marks
// the arrays it writes as written on its stream, so host reads and other
// streams order themselves against replays as against any operation.
//
// Every allocation fn makes comes from a pool private to the graph, or to
// the graphs sharing a GraphPool (WithPool) — PyTorch's pool= argument.
// Arrays fn frees make their memory reusable later in the same capture
// (replays run in capture order). The graph keeps a reference on every
// array it touches, so dropping every handle, Release and the GC leave its
// memory alone until Graph.Close; a pool's memory goes back to the driver
// when its last graph is closed. Replays of a pool's graphs on different
// streams are ordered after one another, since they share memory. Graph
// pools grow on memory.Expandable where the device has virtual memory
// management, so a pool costs its working set rounded up to 2 MiB granules.
//
// Inside fn, what cannot replay correctly fails with device.ErrStreamCapture
// naming the operation: a host read of an array written in the capture,
// an upload from a Go slice (CopyFromHost, FromSlice: upload before the
// capture), a cuBLAS call (Matmul), and work on another stream that waits
// on the capture. Compile expressions before capturing (run fn once), as
// with PyTorch's warm-up.
//
// # One graph for many batch sizes (Batched, ReplayBatch)
//
// Capture(s, fn, Batched(max)) runs fn once, on arrays whose leading
// (batch) axis has max rows, and Graph.ReplayBatch(n) replays the graph
// for the first n rows (1 ≤ n ≤ max): before the launch, the instantiated
// graph's kernel nodes get the element count and grid of n rows and its
// copy and memset nodes n rows' bytes (cuGraphExecKernelNodeSetParams,
// cuGraphExecMemcpyNodeSetParams, cuGraphExecMemsetNodeSetParams; the
// host backend updates its recorded operations the same way), so every batch size costs one capture and one
// graph's memory instead of a graph per size. Rows n and beyond are not
// touched. Changing n costs a node update per resized node; replaying the
// same n again costs what Replay costs, and Replay replays max rows.
//
// An array is batched when its leading extent is max. Each operation the
// capture records that touches a batched array must be one that resizes:
// an elementwise kernel (Eval, EvalInto) whose output and array operands
// are all batched, contiguous and of one shape, a Copy between two
// batched arrays, or a fill (Zeros, Ones, Full) of a batched array. Work on arrays that are not batched (weights) replays as
// captured at every size. Anything else that touches a batched array —
// a reduction (Sum over the batch is compiled for one size), Matmul or
// another library call, a kernel of your own (Launch: gpuarr cannot know
// how its arguments scale), a broadcast or strided operand, random
// numbers — makes Capture fail with a *NotResizableError (matching
// ErrNotResizable) naming the operation: run it outside the capture, or
// capture a graph per size. Since the rule goes by the leading extent, a
// batch-independent array that happens to have max rows counts as
// batched: choose max to differ from such extents, or keep the array's
// work outside the capture. A batch size outside 1..max fails with
// ErrBatchSize, ReplayBatch of a graph captured without Batched with
// ErrArgument.
//
// # Raw stream capture
//
// Operations on a stream between device.Stream.BeginCapture and
// EndCapture, without Capture, are recorded the same way but without
// private memory or replay tracking. Tracking checks Stream.IsCapturing, an
// atomic flag (no driver call, so same-stream use stays free):
//
//   - An array written on a capturing stream is marked captured: its data
//     exists only once the graph is launched. While the capture goes on, a
//     host read (ToSlice, CopyToHost) fails with an error matching
//     device.ErrStreamCapture that names the array (waiting would
//     invalidate the capture). After a raw EndCapture, tracking cannot know
//     which stream launches the graph, or when: every host read of a
//     captured array synchronizes the whole device, and the array stays
//     captured (a later launch writes it again) until a write outside any
//     capture. Capture does better: see above.
//   - An operation on another stream that must wait for a use made in a
//     capture still going on fails with device.ErrStreamCapture: CUDA
//     would silently join that stream into the capture.
//   - An operation on a capturing stream that must wait for another
//     stream's work outside the capture does not wait on the device (CUDA
//     forbids dependencies across a capture's boundary): the CPU waits for
//     that work's event, so it is done before anything captured can run.
//   - A host read of an array the capturing stream wrote before
//     BeginCapture, with no event marking the write, fails with
//     device.ErrStreamCapture: read it before BeginCapture or after
//     EndCapture.
//
// With a raw capture, allocate and release arrays outside it: allocations
// on a capturing stream come from the general pool, which may hand the
// memory to other work once it is freed.
//
// # Memory and the garbage collector
//
// Arrays allocate from memory.Default of their device (the caching pool),
// all through one function (alloc.go), where package gcpressure hooks its
// eager collection. Each Array handle has a runtime.AddCleanup whose
// argument is its buffer, never the array: when the handle becomes
// unreachable the buffer loses a reference, and the last reference returns
// the memory to the pool — in the order of the stream that allocated it,
// after every other stream that used it (memory.Resource.RecordUse), so
// kernels still running keep their data. The cleanup only queues the
// buffer; one goroutine frees the queue in a batch, and every collection
// gcpressure runs finishes the queue before it returns (freequeue.go).
// The cleanup is registered late, in a batch by a goroutine of its own,
// so a handle released soon after it was made never pays for one
// (cleanupreg.go); the batch is registered before every collection
// gcpressure runs and after every GC cycle, so an array dropped within
// the last few thousand allocations is collected by the next gcpressure
// collection or the second GC cycle. A freed buffer object is reused by
// the next allocation on its device (recycle.go), so an array costs one Go
// allocation, its 144-byte handle.
// Release frees at once, in the caller,
// is idempotent, and makes every later use of that handle an error
// matching ErrReleased; views keep the buffer alive after their parent is
// released.
//
// # Several devices
//
// An operation on device B that touches an array of device A uses peer
// access, which package p2p enables once per pair. When the devices cannot
// be peers the operation fails with an error naming both devices and the
// two remedies: copy the array to B (Clone or Copy) or run the operation
// on A. Copy and Clone between devices go direct with peer access and
// through pinned host memory without it.
//
// # Errors
//
// Every failure is an error value naming the operation and the arrays and
// devices involved: ErrShape (negative extents, overflowing sizes,
// mismatched shapes or lengths), ErrReleased, ErrArgument (among others,
// an Option the call does not take), and the device layer's errors
// (device.ErrOutOfMemory, device.ErrPeerAccessUnsupported, ...) wrapped
// so errors.Is matches them. A nil *Array or the zero Array is an
// ErrArgument error wherever an error can be returned, and a panic that
// says so in the accessors that return none (see Array); Err tells
// whether an array can be used.
//
// # Differences from NumPy
//
// Semantics follow NumPy's unless Go's rules decide otherwise. Every
// intended difference is a row of this table:
//
//	what                        NumPy                     gpuarr, and why
//	Sum, Prod of int8 … int32,  an int64 (uint64) result  an error matching ErrArgument that names SumAs
//	  uint8 … uint32                                      and ProdAs: a Go function cannot return a type
//	                                                      wider than T, and wrapping in T would be a
//	                                                      silent wrong answer; SumAs[int64](x) is
//	                                                      NumPy's sum(x), SumAs[T] wraps on request
//	Mean of integers            a float64 result          T: the exact mean (a 128-bit sum) truncated
//	                                                      toward zero, as Go's integer division;
//	                                                      MeanAs[float64](x) is NumPy's mean(x)
//	Mean of no elements         NaN and a warning         an error matching ErrShape (Go has no warnings)
//	Div of integers             true division (/) or      truncation toward zero, as Go's /; x/0 is 0,
//	                              floor division (//)     MinInt/-1 is MinInt
//	mixed element types         promoted to a common one  a compile error: Go converts nothing
//	                                                      implicitly (convert with Cast)
//	Cast of floats to integers  undefined out of range    saturates at the type's range, NaN → 0, the
//	                                                      same on every backend
//	linalg.Lstsq, Pinv,         rcond/tol=None picks the  linalg.DefaultTol (any negative value) picks
//	  MatrixRank tolerance        default; lstsq's -1 is  it: Go has no None, and one sentinel is
//	                              machine epsilon         clearer than two
//	linalg.MatrixRank of an     a ValueError              0: an empty matrix has rank 0
//	  empty matrix
//
// # Boundaries
//
// This package owns Array, its buffers and their tracking state, the
// launch API for kernels on arrays, array copies, and the expression
// front end (building, broadcasting, lowering to internal/expr programs,
// the per-device kernel and plan caches). Code generation is internal/ptxgen's and
// the host evaluator internal/hosteval's. It allocates only
// through memory.Resource and orders streams only through the device
// package's events; it must not manage memory pools (package memory), run
// garbage collections itself (package gcpressure), or enable peer access
// or stage copies except through package p2p.
package gpuarr
