package lifetime

import (
	"sync"

	"github.com/gpuarr/gpuarr/device"
	"github.com/gpuarr/gpuarr/internal/tracking"
	"github.com/gpuarr/gpuarr/memory"
)

// A Recorder is a capture going on on a stream (gpuarr's Capture), told of
// what the array operations on that stream do while it records: it
// provides the memory every allocation on the stream gets (its private
// pool), and hears of every buffer an operation orders there. Its methods
// run with the buffers of the operation locked: they may Pin a buffer but
// not lock one.
type Recorder interface {
	// Resource is the private pool allocations on the stream come from.
	Resource() memory.Resource
	// Allocated is told of each buffer allocated from Resource.
	Allocated(b *Buffer)
	// Used is told of each buffer a claim orders on the stream, and how.
	Used(b *Buffer, m tracking.Mode)
}

// recorders maps recording streams to their Recorder.
var recorders sync.Map // *device.Stream -> Recorder

// StartRecording registers r for s, which is about to begin capturing; it
// reports false when s already has one.
func StartRecording(s *device.Stream, r Recorder) bool {
	_, dup := recorders.LoadOrStore(s, r)
	return !dup
}

// StopRecording unregisters s's Recorder.
func StopRecording(s *device.Stream) { recorders.Delete(s) }

// recorderOf is the Recorder of s while s captures, else nil: one atomic
// load for a stream that does not capture.
func recorderOf(s *device.Stream) Recorder {
	if !s.IsCapturing() {
		return nil
	}
	if r, ok := recorders.Load(s); ok {
		return r.(Recorder)
	}
	return nil
}

// A Batcher is a Recorder of one graph for many batch sizes (gpuarr's
// Batched capture): an array is batched when its leading extent is
// MaxBatch, and each operation that touches a batched array must say, right
// after issuing its one node, how that node follows the batch size
// (Resizes), or why it cannot (Fixed).
type Batcher interface {
	Recorder
	MaxBatch() int
	// Claimed is told of each claim on the stream, once ordered: its call,
	// and whether it touches a batched array.
	Claimed(call string, batched bool)
	// Resizes records that the operation just issued (the latest claimed)
	// follows the batch size as r says; issued tells whether it became a
	// node.
	Resizes(s *device.Stream, r Resize, issued bool)
	// Fixed records why the operation just claimed cannot follow the
	// batch size.
	Fixed(why string)
}

// Resize is how one captured node follows the batch size n: a kernel
// node gets count = PerRow·n in argument CountArg and the grid for it
// (Vector elements per thread in one pass, Block threads per block); a copy node
// copies RowBytes·n bytes, a memset node (Memset) sets them. A zero Resize
// (a copy of an array onto itself, which issues nothing) needs no update.
type Resize struct {
	Node device.GraphNode // the node, named by Resizes

	K *device.Kernel // nil for a copy or memset
	// Args is an allocation of its own: the CUDA backend hands pointers
	// into it to C, and cgo's checks refuse memory that holds Go pointers
	// anywhere in the same allocation.
	Args     *device.Args
	CountArg int
	PerRow   uint64
	Vector   uint64
	Block    uint32

	RowBytes uint64
	Memset   bool
}

// BatcherOf is the Batcher recording on s, or nil.
func BatcherOf(s *device.Stream) Batcher {
	if b, ok := recorderOf(s).(Batcher); ok && b.MaxBatch() > 0 {
		return b
	}
	return nil
}

// Batched reports whether h is a batched array of b: its leading extent is
// b's largest batch.
func Batched(b Batcher, h *Handle) bool {
	return h.rank > 0 && h.Shape()[0] == b.MaxBatch()
}
