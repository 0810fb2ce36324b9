package lifetime

import "github.com/gpuarr/gpuarr/internal/cleanups"

// freeQueue holds buffers whose last handle the GC found unreachable, for
// one goroutine to free in a batch.
//
// A collection queues the cleanups of thousands of arrays at once and the
// runtime runs them on several goroutines; freeing there would put all of
// them on the pool's locks together and beside the program's own
// allocations. A cleanup only pushes its buffer here, one compare-and-swap,
// and a single drainer goroutine frees them. Every collection package
// gcpressure runs drains the queue itself before it counts as done
// (cleanups.AfterCleanups), so the reclaim ladder retries on memory that
// is back in the pool. Release never comes here: it frees at once, in the
// caller.
type freeQueue struct {
	*batchStack[Buffer] // linked through Buffer.nextFree
}

var deferredFrees = newFreeQueue()

func newFreeQueue() freeQueue {
	q := freeQueue{newBatchStack(func(b *Buffer) **Buffer { return &b.nextFree }, freeQueued)}
	cleanups.AfterCleanups(q.drain)
	return q
}

// push queues b, whose last reference is gone, and rings the drainer when
// the queue was empty (a non-empty queue already has a drain coming).
func (q freeQueue) push(b *Buffer) {
	if q.batchStack.push(b) == nil {
		q.ring()
	}
}

func freeQueued(b *Buffer) {
	_ = b.free() // counted in counters.freeErrors; a cleanup has no one to tell
}
