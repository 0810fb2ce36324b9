package gcpressure

import "github.com/gpuarr/gpuarr/memory"

// The package's counters in memory.Metrics (and so in expvar's "gpuarr"
// map, through package memory/memhttp):
//
//	gc/eager_collections   eager collections run (EagerCounters.Collections)
//	gc/eager_skipped       eager collections the time budget refused
//	gc/eager_bytes_freed   device bytes they freed
//	gc/eager_seconds       time callers waited in them
//	gc/eager_enabled       1 while eager collection is on (Eager), else 0
//	gc/ladder_runs         allocations that entered the reclaim ladder
//	gc/ladder_steps        the ladder's steps, every level together
//	gc/ladder_collections  collections the ladder ran
//	gc/ladder_bytes_freed  device bytes its steps freed
//	gc/host_charged_bytes  pinned and managed bytes charged (HostCharged)
//
// They read the process's state as Stats does, without creating it when
// nothing has used the package yet.
func init() { memory.RegisterMetrics(publishMetrics) }

func publishMetrics(set func(string, float64)) {
	if !processStarted() {
		return
	}
	t := Stats()
	set("gc/eager_collections", float64(t.Eager.Collections))
	set("gc/eager_skipped", float64(t.Eager.Skipped))
	set("gc/eager_bytes_freed", float64(t.Eager.BytesFreed))
	set("gc/eager_seconds", t.Eager.Time.Seconds())
	set("gc/ladder_runs", float64(t.LadderRuns()))
	var steps uint64
	for _, n := range t.Reclaim.Runs {
		steps += n
	}
	set("gc/ladder_steps", float64(steps))
	set("gc/ladder_collections", float64(t.Reclaim.Collections))
	set("gc/ladder_bytes_freed", float64(t.Reclaim.BytesFreed))
	set("gc/host_charged_bytes", float64(HostCharged()))
	on := 0.0
	if Eager() {
		on = 1
	}
	set("gc/eager_enabled", on)
}
