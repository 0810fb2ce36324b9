package lifetime

import (
	"errors"
	"fmt"
	"sync/atomic"

	"github.com/gpuarr/gpuarr/device"
	"github.com/gpuarr/gpuarr/internal/tracking"
	"github.com/gpuarr/gpuarr/memory"
)

// Buffer is one block of device memory and everything that shares it: an
// array and its views hold one reference each, and an operation in flight
// holds one more for its duration (Pin), so neither Release nor a cleanup
// on another goroutine can free memory an operation is about to use. The
// last reference frees the block, stream-ordered after every stream that
// used it. Its tracking.State (whose lock only a holder of a reference may
// take) records those streams.
type Buffer struct {
	st    *devState
	block *memory.Block
	ptr   device.Ptr
	size  uint64          // bytes requested; views stay inside them
	res   memory.Resource // where block goes back when not st.res (managed memory, a graph pool, a foreign resource); nil otherwise

	refs atomic.Int64

	tracking.State

	nextFree *Buffer // the link in deferredFrees, once unreachable
}

// Resource is the resource the buffer's memory came from when it is not
// the device's default one (managed memory, a capture's private pool, a
// foreign resource), else nil.
func (b *Buffer) Resource() memory.Resource { return b.res }

// Span is the memory the buffer occupies (for tests of where memory went).
func (b *Buffer) Span() (lo, hi device.Ptr) { return b.ptr, b.ptr.Add(b.size) }

// Pin adds a reference unless the buffer is already freed (or being
// freed); it reports whether it did.
func (b *Buffer) Pin() bool {
	for {
		r := b.refs.Load()
		if r <= 0 {
			return false
		}
		if b.refs.CompareAndSwap(r, r+1) {
			return true
		}
	}
}

// Unref drops a reference; the last one frees the block.
func (b *Buffer) Unref() error {
	if b.refs.Add(-1) != 0 {
		return nil
	}
	return b.free()
}

// free returns the block to its resource. The block's own stream orders
// the free after its work; the streams that used the buffer since its last
// write are declared to the resource (tracking.State.Release), so the pool
// reuses the memory only after they pass this point.
//
// free takes no lock: only a holder of a reference locks the record
// (operations and host reads pin first, a capture's settle too), and the
// last reference is gone. The atomic drop of each reference orders every
// earlier holder's tracking writes before this.
func (b *Buffer) free() error {
	// b.st.res only when the block came from it: a buffer of another
	// resource may be freed before the device's default resource is made
	// (by the sync.Once in devState.resource, which this read would race).
	res, blk, size := b.res, b.block, b.size
	if res == nil {
		res = b.st.res
	}
	var first error
	if b.State.Shared(blk.Stream()) {
		first = b.State.Release(res, blk)
	}
	// Cleared before the block goes back: its next holder may take b at
	// once (recycle.go).
	b.block, b.ptr, b.size, b.res = nil, 0, 0, nil
	if err := res.Free(blk); err != nil && first == nil && !errors.Is(err, device.ErrClosed) {
		first = err
	}
	if first != nil {
		counters.freeErrors.Add(1)
		first = fmt.Errorf("gpuarr: freeing %d bytes on %s: %w", size, b.st.dev, first)
	}
	return first
}
