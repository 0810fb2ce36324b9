package gcpressure

import "math"

// The pacer moves the background threshold down when the program
// allocates so fast that a collection started at BackgroundThreshold would
// not end before the allocations reach the limit.
//
// A background collection frees nothing until it ends (the GC marks, the
// cleanups run, the drainer frees), and the program goes on allocating
// meanwhile: started with h bytes of headroom, it must end before the
// program allocates h. On an H100 host whose collections took 2.6 ms, a
// training loop that allocates about 140 MB per millisecond outran the
// 410 MB that 0.90 leaves under a 4 GiB limit: its allocations failed and
// waited in the reclaim ladder (up to 13 ms) several times a run. A faster
// host of the same kind never did.
//
// Each collection measures the rate at which the program made garbage
// since the previous one ended (what it freed over that interval) and the
// collector keeps a smoothed collection time; the next collection starts
// when the headroom falls to paceMargin times what the program allocates
// in a collection time, or at BackgroundThreshold if that is later, and
// never below paceFloor. Go's own GC pacer does the same with its heap
// goal: it starts marking early enough to finish before the heap reaches
// the goal, from the allocation rate it measured.
const (
	paceMargin = 1.5
	paceFloor  = 0.6
)

// pace sets the paced threshold from the last collection: it freed freed
// bytes made over intervalNs since the one before ended, against limit.
// Called with c.mu held, after avgGC was updated.
func (c *collector) pace(freed uint64, intervalNs int64, limit uint64) {
	if intervalNs <= 0 || limit == 0 {
		return
	}
	rate := float64(freed) / float64(intervalNs) // bytes per ns
	headroom := paceMargin * rate * float64(c.avgGC.Load())
	t := min(max(1-headroom/float64(limit), paceFloor), 1)
	c.paced.Store(math.Float64bits(t))
}
