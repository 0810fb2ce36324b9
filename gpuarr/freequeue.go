package gpuarr

import (
	"github.com/gpuarr/gpuarr/gcpressure"
)

// freeQueue holds buffers whose last handle the GC found unreachable, for
// one goroutine to free in a batch.
//
// A collection queues the cleanups of thousands of arrays at once and the
// runtime runs them on several goroutines. Freeing there put all of them
// on the pool's locks together and beside the program's own allocations
// (on an H200 training loop under a 4 GiB limit the loop ran at a third of
// its speed for about a millisecond after each collection). A cleanup now
// only pushes its buffer here, one compare-and-swap, and a single drainer
// goroutine frees them. Every collection gcpressure runs drains the queue
// itself before it counts as done (gcpressure.AfterCleanups), so the
// reclaim ladder retries on memory that is back in the pool. Release never
// comes here: it frees at once, in the caller.
type freeQueue struct {
	*batchStack[buffer] // linked through buffer.nextFree
}

var deferredFrees = newFreeQueue()

func newFreeQueue() freeQueue {
	q := freeQueue{newBatchStack(func(b *buffer) **buffer { return &b.nextFree }, freeQueued)}
	gcpressure.AfterCleanups(q.drain)
	return q
}

// push queues b, whose last reference is gone, and rings the drainer when
// the queue was empty (a non-empty queue already has a drain coming).
func (q freeQueue) push(b *buffer) {
	if below, _ := q.batchStack.push(b); below == nil {
		q.ring()
	}
}

func freeQueued(b *buffer) {
	_ = b.free() // counted in counters.freeErrors; a cleanup has no one to tell
}
