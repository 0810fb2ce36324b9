package gpuarr

import (
	"sync"
	"sync/atomic"
)

// Counters is a snapshot of the tracking's driver calls, for tests.
type Counters struct {
	HostSyncs, StreamWaits, EventRecords, FreeErrors, CleanupsRegistered uint64
}

// ReadCounters returns the counters now. They are process-wide: tests
// that compare them must not run in parallel with others.
func ReadCounters() Counters {
	return Counters{
		HostSyncs:          counters.hostSyncs.Load(),
		StreamWaits:        counters.streamWaits.Load(),
		EventRecords:       counters.eventRecords.Load(),
		FreeErrors:         counters.freeErrors.Load(),
		CleanupsRegistered: counters.registered.Load(),
	}
}

// Sub is c - o, field by field.
func (c Counters) Sub(o Counters) Counters {
	return Counters{c.HostSyncs - o.HostSyncs, c.StreamWaits - o.StreamWaits, c.EventRecords - o.EventRecords,
		c.FreeErrors - o.FreeErrors, c.CleanupsRegistered - o.CleanupsRegistered}
}

// HoldDrainer stops the deferred-free queue's drainer goroutine before its
// next drain until the returned function is called, so that tests see
// which frees other paths make.
func HoldDrainer() (release func()) { return hold(&deferredFrees.waits) }

// HoldRegistrar stops the cleanup registrar's goroutine before its next
// flush until the returned function is called, so that only the flushes
// of collections (and GC cycles) register cleanups meanwhile.
func HoldRegistrar() (release func()) { return hold(&registrar.waits) }

// hold makes the goroutine that calls *waits block until release.
func hold(waits *atomic.Pointer[func()]) (release func()) {
	gate := make(chan struct{})
	w := func() { <-gate }
	waits.Store(&w)
	var once sync.Once
	return func() {
		once.Do(func() {
			waits.Store(nil)
			close(gate)
		})
	}
}
