package gpuarr

import (
	"errors"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/gpuarr/gpuarr/device"
	"github.com/gpuarr/gpuarr/memory"
)

// buffer is one block of device memory and everything that shares it: an
// array and its views hold one reference each, and an operation in flight
// holds one more for its duration (pin), so neither Release nor a cleanup
// on another goroutine can free memory an operation is about to use. The
// last reference frees the block, stream-ordered after every stream that
// used it.
type buffer struct {
	st    *devState
	block *memory.Block
	ptr   device.Ptr
	size  uint64          // bytes requested; views stay inside them
	res   memory.Resource // where block goes back when not st.res (a graph pool, EmptyFrom's resource); nil otherwise

	refs atomic.Int64

	mu  sync.Mutex // guards trk; held across an operation's enqueue
	trk tracking

	nextFree *buffer // the link in deferredFrees, once unreachable
}

// pin adds a reference unless the buffer is already freed (or being
// freed); it reports whether it did.
func (b *buffer) pin() bool {
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

// unref drops a reference; the last one frees the block.
func (b *buffer) unref() error {
	if b.refs.Add(-1) != 0 {
		return nil
	}
	return b.free()
}

// free returns the block to its resource. The block's own stream orders
// the free after its work; the last writer and the streams that read since
// are declared with RecordUse, so the pool reuses the memory only after
// those streams pass this point. Earlier users need nothing: every write
// waited for the uses before it, so they are ordered before the last
// writer. Streams of other devices (peer access) cannot be declared to
// this device's pool: the block's stream waits for them instead.
//
// free takes no lock: only a holder of a reference locks mu (operations
// and host reads pin first, a capture's settle too), and the last
// reference is gone. The atomic drop of each reference orders every
// earlier holder's tracking writes before this.
func (b *buffer) free() error {
	// b.st.res only when the block came from it: a buffer of another
	// resource may be freed before the device's default resource is made
	// (by the sync.Once in devState.resource, which this read would race).
	res := b.res
	if res == nil {
		res = b.st.res
	}
	var first error
	t := &b.trk
	// The usual buffer was used on its block's stream only: nothing to
	// declare, no event to give back.
	if bs := b.block.Stream(); t.writer != bs && t.writer != nil || len(t.readers) > 0 || t.wev != nil {
		first = b.declareUsers(res, bs)
		t.reset()
	}
	t.writer, t.wfresh, t.dirty, t.wcap = nil, false, false, false
	if err := res.Free(b.block); err != nil && first == nil && !errors.Is(err, device.ErrClosed) {
		first = err
	}
	if first != nil {
		counters.freeErrors.Add(1)
		first = fmt.Errorf("gpuarr: freeing %d bytes on %s: %w", b.size, b.st.dev, first)
	}
	if b.res == nil {
		b.recycle()
	}
	return first
}

// declareUsers tells res (or, for another device's stream, the
// block's stream bs) about every stream other than bs that used the
// buffer since its last write, so the memory is reused only after them.
// It returns the first error.
func (b *buffer) declareUsers(res memory.Resource, bs *device.Stream) error {
	var first error
	keep := func(err error) {
		if err != nil && first == nil && !errors.Is(err, device.ErrClosed) {
			first = err
		}
	}
	t := &b.trk
	users := func(s *device.Stream, rec func() (*event, error)) {
		if s == nil || s == bs {
			return
		}
		if s.Device() == b.st.dev {
			keep(res.RecordUse(b.block, s))
			return
		}
		ev, err := rec()
		keep(err)
		if ev == nil {
			return
		}
		if err := bs.Wait(ev.ev); err != nil {
			keep(ev.ev.Synchronize()) // no stream to order by: wait here
		} else {
			counters.streamWaits.Add(1)
		}
	}
	users(t.writer, t.recordWriterLocked)
	for i := range t.readers {
		r := &t.readers[i]
		users(r.s, func() (*event, error) { return t.recordReaderLocked(r) })
	}
	return first
}
