package gpuarr

import "sync"

// Counters is a snapshot of the tracking's driver calls, for tests.
type Counters struct {
	HostSyncs, StreamWaits, EventRecords, Frees, FreeErrors uint64
}

// ReadCounters returns the counters now. They are process-wide: tests
// that compare them must not run in parallel with others.
func ReadCounters() Counters {
	return Counters{
		HostSyncs:    counters.hostSyncs.Load(),
		StreamWaits:  counters.streamWaits.Load(),
		EventRecords: counters.eventRecords.Load(),
		Frees:        counters.frees.Load(),
		FreeErrors:   counters.freeErrors.Load(),
	}
}

// Sub is c - o, field by field.
func (c Counters) Sub(o Counters) Counters {
	return Counters{c.HostSyncs - o.HostSyncs, c.StreamWaits - o.StreamWaits, c.EventRecords - o.EventRecords,
		c.Frees - o.Frees, c.FreeErrors - o.FreeErrors}
}

// HoldDrainer stops the deferred-free queue's drainer goroutine before its
// next drain until the returned function is called, so that tests see
// which frees other paths make.
func HoldDrainer() (release func()) {
	gate := make(chan struct{})
	w := func() { <-gate }
	deferredFrees.drainerWaits.Store(&w)
	var once sync.Once
	return func() {
		once.Do(func() {
			deferredFrees.drainerWaits.Store(nil)
			close(gate)
		})
	}
}
