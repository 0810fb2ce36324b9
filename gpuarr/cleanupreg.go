package gpuarr

import (
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/gpuarr/gpuarr/internal/cleanups"
)

// A handle's cleanup (the runtime.AddCleanup that drops its buffer
// reference when the GC finds it unreachable) is registered late, by a
// goroutine of its own, not by the constructor.
//
// Registering and stopping a cleanup take the runtime's global specials
// lock twice and cost more than the pool's whole alloc+free: on an H100
// host they were about 45 % of Empty+Release. Most arrays of a tight loop
// are released (or become garbage) within a few hundred allocations, so a
// new handle only joins a list, one compare-and-swap; the registrar
// registers the handles of the list that are still unreleased when the
// list has pendingBatch entries, after every GC cycle, and before every
// collection gcpressure runs. A handle released before that never touches
// the runtime's specials at all.
//
// The list holds its handles strongly, so a handle cannot become
// unreachable unregistered: the price is that an array dropped for the GC
// within the last pendingBatch allocations is freed one collection later
// than it would have been, unless gcpressure's collection (the one that
// matters under memory pressure) flushes the list first, which it does.

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

// pendingBatch is the list length that wakes the registrar: long enough
// that the handles of a loop's temporaries are released before it looks,
// and that waking it (a futex call, 10-15 µs on the GPU hosts' VMs) is a
// few ns per array; short enough that the list holds little (4096 handles
// are 576 KiB; gcpressure's collections flush it first anyway).
const pendingBatch = 4096

// cleanupRegistrar is the list of handles waiting for their cleanup, a
// stack linked through core.pendingNext, and the goroutine that works it.
type cleanupRegistrar struct {
	*batchStack[core]
	watched sync.Once
}

var registrar = newCleanupRegistrar()

func newCleanupRegistrar() *cleanupRegistrar {
	r := &cleanupRegistrar{batchStack: newBatchStack(func(c *core) **core { return &c.pendingNext }, (*core).register)}
	r.depth = func(c *core) *uint32 { return &c.pendingDepth }
	cleanups.BeforeCollect(r.flush)
	return r
}

// add puts c on the list; every pendingBatch-th entry rings the registrar.
func (r *cleanupRegistrar) add(c *core) {
	r.watched.Do(r.watchGC)
	if _, depth := r.push(c); depth%pendingBatch == 0 {
		r.ring()
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

// register gives c its cleanup unless it was released meanwhile.
func (c *core) register() {
	if c.released.v.Load() != statePending {
		return
	}
	h := runtime.AddCleanup(c, dropBuffer, c.buf)
	c.cleanup = h
	if !c.released.v.CompareAndSwap(statePending, stateTracked) {
		h.Stop() // Release won the race: it dropped the reference itself
		return
	}
	counters.registered.Add(1)
}
