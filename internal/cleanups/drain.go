package cleanups

import (
	"sync"
	"sync/atomic"
)

// Cleanups that free device memory may hand the work to a queue instead of
// doing it on the runtime's cleanup goroutines (internal/lifetime does: a
// collection queues thousands of cleanups at once, and several cleanup
// goroutines freeing into one pool contend for its locks and with the
// program's own allocations). Such a layer registers the function that
// finishes its queued frees (package gcpressure's AfterCleanups), and
// Collect calls it after the cleanups have run, so that the memory is back
// in the pool before the collection counts as done.
//
// A layer may also register its cleanups late (internal/lifetime does, for
// the handles of the last few hundred allocations): it registers the
// function that finishes the registrations with BeforeCollect, and
// Collect calls it before the collection, so that the collection sees
// every object that is garbage by then.

// hooks is a list of functions that Collect calls; adding copies the list,
// so calling it takes no lock.
type hooks struct {
	mu   sync.Mutex
	list atomic.Pointer[[]func()]
}

func (h *hooks) add(f func()) {
	h.mu.Lock()
	defer h.mu.Unlock()
	var l []func()
	if old := h.list.Load(); old != nil {
		l = append(l, *old...)
	}
	l = append(l, f)
	h.list.Store(&l)
}

func (h *hooks) run() {
	if l := h.list.Load(); l != nil {
		for _, f := range *l {
			f()
		}
	}
}

var drains, registrations hooks

// AfterCleanups registers f to run at the end of every Collect, after the
// cleanups it queued have run. f must be safe to call from any goroutine
// and concurrently with itself.
func AfterCleanups(f func()) { drains.add(f) }

// Drain calls the functions registered with AfterCleanups.
func Drain() { drains.run() }

// BeforeCollect registers f to run at the start of every Collect, before
// the collection: it finishes cleanup registrations a layer deferred. f
// must be safe to call from any goroutine and concurrently with itself.
func BeforeCollect(f func()) { registrations.add(f) }
