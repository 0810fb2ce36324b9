package lifetime

import (
	"fmt"
	"runtime"
	"sync/atomic"
	"unsafe"

	"github.com/gpuarr/gpuarr/internal/arg"
	"github.com/gpuarr/gpuarr/internal/cleanups"
)

// A handle's memory goes back by Release, or when the GC finds the handle
// unreachable: a runtime.AddCleanup whose argument is the buffer, never
// the handle (which would keep it reachable), drops the handle's
// reference. Cleanups run on runtime goroutines, several at once; the one
// that drops the last reference queues the buffer for deferredFrees'
// drainer rather than freeing it there (freequeue.go). A failed free
// cannot be reported from there; it is counted (counters.freeErrors).
//
// The cleanup is registered late, by a goroutine of its own (the
// registrar), not by the constructor: registering and stopping a cleanup
// take the runtime's global specials lock twice, and most arrays of a
// tight loop are released (or become garbage) within a few hundred
// allocations. A new handle only joins a list, one compare-and-swap; the
// registrar registers the handles of the list that are still unreleased
// when the list has pendingBatch entries, after every GC cycle, and before
// every collection package gcpressure runs. A handle released before that
// never touches the runtime's specials at all.
//
// The list holds its handles strongly, so a handle cannot become
// unreachable unregistered: an array dropped for the GC within the last
// pendingBatch allocations is freed one collection later than it would
// have been, unless gcpressure's collection (the one that matters under
// memory pressure) flushes the list first, which it does.

// Handle states (handleState): a handle starts pending, becomes tracked
// when its cleanup is registered, and released by Release in either.
const (
	statePending uint32 = iota
	stateTracked
	stateReleased
)

// handleState is where a handle is in its life. Its Load reports whether
// it was released, which is all the operations ask.
type handleState struct{ v atomic.Uint32 }

// Load reports whether the handle was released.
func (s *handleState) Load() bool { return s.v.Load() == stateReleased }

// Release gives h's memory back now (its reference to the buffer; views
// keep theirs), stream-ordered: work already issued on any stream that
// uses the buffer still sees it. Later uses of h fail with ErrReleased;
// Release again does nothing and returns nil. The zero Array is an error
// matching ErrArgument.
func (h *Handle) Release() error {
	if h.buf == nil {
		return fmt.Errorf("gpuarr.Release: %w", arg.ErrZeroArray)
	}
	switch h.released.v.Swap(stateReleased) {
	case stateReleased:
		return nil
	case stateTracked:
		// Set before the registrar's compare-and-swap made the handle
		// tracked. From pending the registrar skips the handle, or its
		// compare-and-swap fails and it stops the cleanup itself.
		(*runtime.Cleanup)(h.link).Stop()
	}
	h.endLease()
	return h.buf.Unref()
}

// dropBuffer is a handle's cleanup: it drops the handle's reference, and
// queues the buffer when that was the last.
func dropBuffer(b *Buffer) {
	if b.refs.Add(-1) == 0 {
		deferredFrees.push(b)
	}
}

// pendingBatch is the list length that wakes the registrar: long enough
// that the handles of a loop's temporaries are released before it looks,
// and that waking it (a futex call) is a few ns per array; short enough
// that the list holds little (gcpressure's collections flush it first
// anyway).
const pendingBatch = 4096

// Every pendingBatch-th add rings, counted in Handle.pendingDepth (modulo 1<<16).
var _ = [1]struct{}{}[(1<<16)%pendingBatch]

// cleanupRegistrar is the list of handles waiting for their cleanup, a
// stack linked through Handle.link, and the goroutine that works it.
type cleanupRegistrar struct {
	*batchStack[Handle]
}

var registrar = newCleanupRegistrar()

func newCleanupRegistrar() *cleanupRegistrar {
	r := &cleanupRegistrar{batchStack: newBatchStack(pendingLink, (*Handle).register)}
	cleanups.BeforeCollect(r.flush)
	r.watchGC()
	return r
}

// pendingLink is h's link as the registrar's list sees it: the next
// handle. The drain clears it before it registers h.
func pendingLink(h *Handle) **Handle { return (**Handle)(unsafe.Pointer(&h.link)) }

// add puts h on the list; every pendingBatch-th entry rings the registrar.
// It is the batch stack's push written out for handles, counting: each
// entry holds its depth (1 at the bottom, modulo 1<<16), its neighbour's
// plus one, so that the list needs no counter of its own, which would cost
// every array a second atomic operation.
func (r *cleanupRegistrar) add(h *Handle) {
	r.begin()
	for {
		below := r.head.Load()
		depth := uint16(1)
		if below != nil {
			// below's depth was written before below was published, and
			// never changes after.
			depth = below.pendingDepth + 1
		}
		h.link, h.pendingDepth = unsafe.Pointer(below), depth
		if r.head.CompareAndSwap(below, h) {
			if depth%pendingBatch == 0 {
				r.ring()
			}
			return
		}
	}
}

// flush registers the cleanup of every listed handle that is still
// unreleased and empties the list. On return every handle added before
// the call is registered or released.
func (r *cleanupRegistrar) flush() { r.drain() }

// watchGC flushes the list after every GC cycle, so that a program that
// stops allocating still has its dropped arrays collected by the next
// one: a sentinel object's cleanup runs once per cycle and re-arms.
func (r *cleanupRegistrar) watchGC() {
	runtime.AddCleanup(new(gcSentinel), func(r *cleanupRegistrar) {
		r.flush()
		r.watchGC()
	}, r)
}

// gcSentinel is big enough to be its own allocation (the runtime batches
// tiny pointer-free objects, whose cleanups may never run).
type gcSentinel struct{ _ [32]byte }

// register gives h its cleanup unless it was released meanwhile.
func (h *Handle) register() {
	if h.released.v.Load() != statePending {
		return
	}
	c := runtime.AddCleanup(h, dropBuffer, h.buf)
	h.link = unsafe.Pointer(&c)
	if !h.released.v.CompareAndSwap(statePending, stateTracked) {
		c.Stop() // Release won the race: it dropped the reference itself
		return
	}
	counters.registered.Add(1)
}
