package lifetime

import (
	"sync"
	"sync/atomic"
)

// batchStack is a lock-free stack of *T, linked through a field of T, that
// a goroutine of its own empties in batches: push is one compare-and-swap
// for the caller, and the goroutine, when rung (or anyone calling drain),
// takes the whole stack at once and hands each entry to handle. The
// deferred frees and the late cleanup registrations are such stacks.
type batchStack[T any] struct {
	head   atomic.Pointer[T]
	next   func(*T) **T  // the link field of an entry
	handle func(*T)      // called for each entry, its link cleared first
	wake   chan struct{} // the goroutine's doorbell, buffered 1
	mu     sync.Mutex    // one drain at a time, so drain waits for one in progress
	start  sync.Once

	// waits, when set (tests), is called by the goroutine before each of
	// its drains.
	waits atomic.Pointer[func()]
}

func newBatchStack[T any](next func(*T) **T, handle func(*T)) *batchStack[T] {
	return &batchStack[T]{next: next, handle: handle, wake: make(chan struct{}, 1)}
}

// push adds x and returns the entry it went on top of (nil: the stack
// was empty).
func (s *batchStack[T]) push(x *T) (below *T) {
	s.begin()
	for {
		h := s.head.Load()
		*s.next(x) = h
		if s.head.CompareAndSwap(h, x) {
			return h
		}
	}
}

// begin starts the goroutine, on the first push.
func (s *batchStack[T]) begin() { s.start.Do(func() { go s.loop() }) }

// ring wakes the goroutine for a drain, unless one is already due.
func (s *batchStack[T]) ring() {
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

func (s *batchStack[T]) loop() {
	for range s.wake {
		if w := s.waits.Load(); w != nil {
			(*w)()
		}
		s.drain()
	}
}

// drain handles every entry on the stack, taken at once. A drain that
// finds another under way waits for it, so on return everything pushed
// before the call is handled: it was on the stack when this drain took
// it, or an earlier drain took it and finished first. Entries pushed
// meanwhile wait for the next drain (their pushes ring for it) rather
// than be chased: a drain that took the stack again until it found it
// empty would, beside a goroutine pushing in a loop, keep taking that
// goroutine's newest entries, one or two at a time, contending for the
// stack's head with every push and finding handles not yet released
// (whose cleanups it would register, for Release to stop at once).
func (s *batchStack[T]) drain() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for x := s.head.Swap(nil); x != nil; {
		link := s.next(x)
		next := *link
		*link = nil // a handled entry must not keep the rest reachable
		s.handle(x)
		x = next
	}
}
