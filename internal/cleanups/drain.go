package cleanups

import (
	"sync"
	"sync/atomic"
)

// Cleanups that free device memory may hand the work to a queue instead of
// doing it on the runtime's cleanup goroutines (package gpuarr does: a
// collection queues thousands of cleanups at once, and several cleanup
// goroutines freeing into one pool contend for its locks and with the
// program's own allocations). Such a layer registers the function that
// finishes its queued frees (package gcpressure's AfterCleanups), and
// Collect calls it after the cleanups have run, so that the memory is back
// in the pool before the collection counts as done.

var drains struct {
	mu   sync.Mutex
	list atomic.Pointer[[]func()]
}

// AfterCleanups registers f to run at the end of every Collect, after the
// cleanups it queued have run. f must be safe to call from any goroutine
// and concurrently with itself.
func AfterCleanups(f func()) {
	drains.mu.Lock()
	defer drains.mu.Unlock()
	var l []func()
	if old := drains.list.Load(); old != nil {
		l = append(l, *old...)
	}
	l = append(l, f)
	drains.list.Store(&l)
}

// Drain calls the functions registered with AfterCleanups.
func Drain() {
	if l := drains.list.Load(); l != nil {
		for _, f := range *l {
			f()
		}
	}
}
