package lifetime

import "sync/atomic"

// counters count what tests check of the lifetime machinery. Only slow
// paths touch them.
var counters struct {
	freeErrors atomic.Uint64 // frees that failed (cleanups cannot report them)
	registered atomic.Uint64 // handles that got a GC cleanup (cleanup.go)
}

// Counts returns the counters now: the frees that failed, and the handles
// that got a GC cleanup. They are process-wide.
func Counts() (freeErrors, cleanupsRegistered uint64) {
	return counters.freeErrors.Load(), counters.registered.Load()
}
