package gpuarr

import "sync/atomic"

// counters count the driver calls tracking makes, so tests can prove that
// same-stream work makes none and clean host reads do not synchronize.
// Only slow paths touch them.
var counters struct {
	hostSyncs    atomic.Uint64 // host reads that waited for GPU work
	streamWaits  atomic.Uint64 // cross-stream waits issued (Stream.Wait)
	eventRecords atomic.Uint64 // events recorded for such waits
	freeErrors   atomic.Uint64 // frees that failed (cleanups cannot report them)
	registered   atomic.Uint64 // handles that got a GC cleanup (cleanupreg.go)
}
