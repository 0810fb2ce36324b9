// Package cleanups waits for the runtime's cleanups (runtime.AddCleanup
// callbacks) after a garbage collection, and runs the functions that finish
// the work those cleanups deferred. Arrays return device and pinned memory
// through cleanups, so "the memory of unreachable arrays is back" means a
// collection, the cleanups it queued, and then these drains.
//
// Package gcpressure collects through Collect; tests use it to make
// garbage's memory come back before they measure. Example collects
// objects with cleanups.
package cleanups

import (
	"runtime"
	"runtime/metrics"
	"time"
)

var cleanupMetrics = []string{"/gc/cleanups/queued:cleanups", "/gc/cleanups/executed:cleanups"}

// counts returns how many cleanups the runtime has queued and run.
func counts() (queued, executed uint64) {
	s := []metrics.Sample{{Name: cleanupMetrics[0]}, {Name: cleanupMetrics[1]}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 || s[1].Value.Kind() != metrics.KindUint64 {
		return 0, 0
	}
	return s[0].Value.Uint64(), s[1].Value.Uint64()
}

// Wait waits until every cleanup queued so far has run, or max elapses; it
// reports whether the queue drained. Go has no API for this, so it polls
// runtime/metrics, yielding first and then sleeping briefly.
func Wait(max time.Duration) bool {
	target, executed := counts()
	if executed >= target {
		return true
	}
	deadline := time.Now().Add(max)
	for pause := time.Duration(0); ; pause = min(2*pause+time.Microsecond, time.Millisecond) {
		if pause == 0 {
			runtime.Gosched()
		} else {
			time.Sleep(pause)
		}
		if _, executed = counts(); executed >= target {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
	}
}

// Collect runs the functions registered with BeforeCollect, a full
// collection, waits (bounded by max) for the cleanups it queued and then
// runs the functions registered with AfterCleanups. It returns the time
// spent.
func Collect(max time.Duration) time.Duration {
	start := time.Now()
	registrations.run()
	runtime.GC()
	Wait(max)
	Drain()
	return time.Since(start)
}
