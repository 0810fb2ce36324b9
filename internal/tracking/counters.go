package tracking

import "sync/atomic"

// counters count the driver calls tracking makes, so tests can prove that
// same-stream work makes none and clean host reads do not synchronize.
// Only slow paths touch them.
var counters struct {
	hostSyncs    atomic.Uint64 // host waits for GPU work (hostWait, and waitOn's CPU waits in a capture)
	streamWaits  atomic.Uint64 // cross-stream waits issued (Stream.Wait, RecordWait)
	eventRecords atomic.Uint64 // events recorded for such waits
}

// Counts returns the counters now. They are process-wide.
func Counts() (hostSyncs, streamWaits, eventRecords uint64) {
	return counters.hostSyncs.Load(), counters.streamWaits.Load(), counters.eventRecords.Load()
}
