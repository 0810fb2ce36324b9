package gcpressure

import "math"

// The pacer moves the background threshold down when the program
// allocates so fast that a collection started at BackgroundThreshold would
// not end before the allocations reach the limit.
//
// A background collection frees nothing until it ends (the GC marks, the
// cleanups run, the drainer frees), and the program goes on allocating
// meanwhile: started with h bytes of headroom, it must end before the
// program allocates h, or the allocations that find the limit wait in the
// reclaim ladder (BENCHMARKS.md, the runs at 0c0a349, has a training loop
// on a slow host that did).
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
