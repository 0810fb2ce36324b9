package tracking

import "sync/atomic"

// counters count the driver calls tracking makes, so tests can prove that
// same-stream work makes none and clean host reads do not synchronize.
// Host waits are always counted; records and stream waits, which a
// cross-stream hand-off makes on every launch, only once Counts has been
// called (counting), so that a program that never asks pays a plain load
// per hand-off instead of two contended read-modify-writes.
var counters struct {
	counting     atomic.Bool   // Counts was called: count records and waits
	hostSyncs    atomic.Uint64 // host waits for GPU work (hostWait, and waitOn's CPU waits in a capture)
	streamWaits  atomic.Uint64 // cross-stream waits issued (Stream.Wait, RecordWait)
	eventRecords atomic.Uint64 // events recorded for such waits
}

// countRecords counts n events recorded for waits, once counting.
func countRecords(n uint64) {
	if counters.counting.Load() {
		counters.eventRecords.Add(n)
	}
}

// countWaits counts n cross-stream waits issued, once counting.
func countWaits(n uint64) {
	if counters.counting.Load() {
		counters.streamWaits.Add(n)
	}
}

// countHandoffs counts n hand-offs, a record and a wait each, once
// counting.
func countHandoffs(n uint64) {
	if counters.counting.Load() {
		counters.eventRecords.Add(n)
		counters.streamWaits.Add(n)
	}
}

// Counts returns the counters now. They are process-wide. Host waits count
// from the start; records and stream waits from the first call to Counts
// (so a caller compares two calls, the first made before the work it
// counts).
func Counts() (hostSyncs, streamWaits, eventRecords uint64) {
	counters.counting.Store(true)
	return counters.hostSyncs.Load(), counters.streamWaits.Load(), counters.eventRecords.Load()
}
