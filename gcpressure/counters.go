package gcpressure

import (
	"time"

	"github.com/gpuarr/gpuarr/memory"
)

// EagerCounters is what eager collection has done so far.
type EagerCounters struct {
	Collections uint64        // eager collections run
	Skipped     uint64        // collections the time budget refused
	BytesFreed  uint64        // device bytes freed by them (cleanups included)
	Time        time.Duration // total time callers waited in them, cleanup waits included
	MaxPause    time.Duration // longest single wait
	// Background counts the collections that ran on a goroutine of their
	// own (policy.Background), which no caller waited for, and
	// BackgroundTime their wall time (it is not in Time: the program ran
	// on meanwhile, the GC using spare cores).
	Background     uint64
	BackgroundTime time.Duration
}

func (c *EagerCounters) record(took time.Duration, freed uint64, background bool) {
	c.Collections++
	c.BytesFreed += freed
	if background {
		c.Background++
		c.BackgroundTime += took
		return
	}
	c.Time += took
	c.MaxPause = max(c.MaxPause, took)
}

// ReclaimCounters is what the reclaim ladder has done so far.
type ReclaimCounters struct {
	// Runs counts the ladder's steps by level, in the order the package
	// documentation lists them: Runs[0] synchronized the default stream (it
	// counts the allocations that entered the ladder), Runs[1] collected,
	// Runs[2] synchronized the whole device, and Runs[3] counts the
	// allocations that got past every step, after which the allocator
	// releases cached segments and retries a last time.
	Runs        [memory.ReclaimLevels]uint64
	Collections uint64        // collections the ladder ran (shared ones not counted twice)
	BytesFreed  uint64        // device bytes live before a step and not after
	Time        time.Duration // total time in the ladder's steps, synchronizations included
	MaxPause    time.Duration // longest single step
	// CollectTime and CollectMaxPause are Time and MaxPause of the
	// collection steps alone: the ladder's share of GC time.
	CollectTime, CollectMaxPause time.Duration
	Errors                       uint64 // synchronizations that failed (the ladder goes on)
}

// Totals is everything this package has done in the process: eager
// collections and the reclaim ladder.
type Totals struct {
	Eager   EagerCounters
	Reclaim ReclaimCounters
}

// Collections counts every collection, eager or forced by the ladder.
func (t Totals) Collections() uint64 { return t.Eager.Collections + t.Reclaim.Collections }

// GCTime is the time spent in collections, eager or the ladder's (cleanup
// waits included, the ladder's synchronizations not).
func (t Totals) GCTime() time.Duration { return t.Eager.Time + t.Reclaim.CollectTime }

// MaxPause is the longest single collection, eager or the ladder's.
func (t Totals) MaxPause() time.Duration { return max(t.Eager.MaxPause, t.Reclaim.CollectMaxPause) }

// LadderRuns counts the allocations that entered the reclaim ladder.
func (t Totals) LadderRuns() uint64 { return t.Reclaim.Runs[levelSyncStream] }
