package gcpressure

import (
	"runtime"
	"runtime/metrics"
	"time"
)

var cleanupMetrics = []string{"/gc/cleanups/queued:cleanups", "/gc/cleanups/executed:cleanups"}

// cleanupCounts returns how many cleanups the runtime has queued and run.
func cleanupCounts() (queued, executed uint64) {
	s := []metrics.Sample{{Name: cleanupMetrics[0]}, {Name: cleanupMetrics[1]}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 || s[1].Value.Kind() != metrics.KindUint64 {
		return 0, 0
	}
	return s[0].Value.Uint64(), s[1].Value.Uint64()
}

// WaitForCleanups waits until every cleanup queued so far has run, or max
// elapses; it reports whether the queue drained. Go has no API for this, so
// it polls runtime/metrics, yielding first and then sleeping briefly.
func WaitForCleanups(max time.Duration) bool {
	target, executed := cleanupCounts()
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
		if _, executed = cleanupCounts(); executed >= target {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
	}
}

// CollectAndWait runs a full collection, waits (bounded) for the cleanups
// it queued and then runs the functions registered with AfterCleanups. It
// returns the time spent.
func CollectAndWait(max time.Duration) time.Duration {
	start := time.Now()
	runtime.GC()
	WaitForCleanups(max)
	runDrains()
	return time.Since(start)
}
