//go:build gpuarrbench

package driver

// Benchmark probes: what a backend that reaches its driver through cgo
// offers a benchmark that measures the binding itself, the same driver
// calls made in a C loop inside the backend and timed there. They exist
// only in builds with -tags gpuarrbench (the GPU bundle's benchmark
// programs), so no product code can come to depend on them. The host
// backend has no C side and implements neither.

// CallProbe is implemented by a Device whose backend calls its driver
// through a C shim.
type CallProbe interface {
	// CtxGetCurrent makes one trivial driver call (cuCtxGetCurrent)
	// through the binding, as every driver call is made.
	CtxGetCurrent() (uintptr, error)
	// BenchCtxGetCurrentC makes the same call n times in a C loop and
	// returns the nanoseconds the loop took.
	BenchCtxGetCurrentC(n int) (int64, error)
	// CgoNoop is an empty call into the shim: the floor under every call
	// through the binding.
	CgoNoop()
}

// LaunchProbe is implemented by a Stream whose backend launches through a
// C shim.
type LaunchProbe interface {
	// BenchLaunchC launches f n times on the stream in a C loop and
	// returns the nanoseconds the loop took. The arguments are marshalled
	// once, as a C program would; keep n below the launch queue's depth and
	// synchronize the stream between calls so no launch waits for space.
	BenchLaunchC(f Function, grid, block Dim3, sharedBytes uint32, args *Args, n int) (int64, error)
	// BenchLaunchSpacedC launches f (no arguments, grid and block 1) n
	// times in a C loop, pausing gapNs after each, and returns the
	// nanoseconds spent inside the launch calls: how a launch's cost
	// depends on the pace of submission.
	BenchLaunchSpacedC(f Function, n int, gapNs int64) (int64, error)
}

// HandoffProbe is implemented by a Stream whose backend launches through a
// C shim: the driver's own cost of a producer/consumer round, the floor
// under the array layer's cross-stream hand-off.
type HandoffProbe interface {
	// BenchHandoffC runs n rounds in a C loop and returns the nanoseconds
	// the loop took. A round launches fill (fillArgs) on this stream, the
	// producer, then copyFn (copyArgs): on this stream too with
	// HandoffOneStream; otherwise on cons, which waits for the producer's
	// fill before the copy while the producer's next fill waits for the
	// copy, ordered as ordering says. Both launches use grid, block and
	// sharedBytes; arguments are marshalled once; what orders the streams
	// (events, or flag memory) is made before the clock starts. Keep n
	// below the launch queue's depth and synchronize both streams between
	// calls.
	BenchHandoffC(fill Function, fillArgs *Args, copyFn Function, copyArgs *Args, grid, block Dim3, sharedBytes uint32, cons Stream, ordering HandoffOrdering, n int) (int64, error)
}

// HandoffOrdering is how a HandoffProbe's C round orders its two streams.
type HandoffOrdering int

const (
	// HandoffOneStream runs both launches on the producer: nothing to order.
	HandoffOneStream HandoffOrdering = iota
	// HandoffEvents orders each hand-off with one cuEventRecord and one
	// cuStreamWaitEvent, as the array layer's tracking does.
	HandoffEvents
	// HandoffStreamMemOps orders each hand-off with one cuStreamWriteValue64
	// of a flag in device memory and one cuStreamWaitValue64 for it.
	HandoffStreamMemOps
)
