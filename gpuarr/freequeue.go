package gpuarr

import (
	"sync"
	"sync/atomic"

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
	head  atomic.Pointer[buffer] // a stack linked through buffer.nextFree
	wake  chan struct{}          // the drainer's doorbell, buffered 1
	mu    sync.Mutex             // one drain at a time, so drain waits for one in progress
	start sync.Once

	// drainerWaits, when set (tests), is called by the drainer goroutine
	// before each of its drains.
	drainerWaits atomic.Pointer[func()]
}

var deferredFrees = newFreeQueue()

func newFreeQueue() *freeQueue {
	q := &freeQueue{wake: make(chan struct{}, 1)}
	gcpressure.AfterCleanups(q.drain)
	return q
}

// push queues b, whose last reference is gone, and rings the drainer when
// the queue was empty (a non-empty queue already has a drain coming).
func (q *freeQueue) push(b *buffer) {
	for {
		h := q.head.Load()
		b.nextFree = h
		if q.head.CompareAndSwap(h, b) {
			if h == nil {
				q.start.Do(func() { go q.drainer() })
				select {
				case q.wake <- struct{}{}:
				default:
				}
			}
			return
		}
	}
}

func (q *freeQueue) drainer() {
	for range q.wake {
		if w := q.drainerWaits.Load(); w != nil {
			(*w)()
		}
		q.drain()
	}
}

// drain frees every queued buffer. A drain that finds another under way
// waits for it, so on return everything queued before the call is free.
func (q *freeQueue) drain() {
	q.mu.Lock()
	defer q.mu.Unlock()
	for b := q.head.Swap(nil); b != nil; b = q.head.Swap(nil) {
		for b != nil {
			next := b.nextFree
			b.nextFree = nil
			_ = b.free() // counted in counters.freeErrors; a cleanup has no one to tell
			b = next
		}
	}
}
