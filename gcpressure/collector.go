package gcpressure

import (
	"fmt"
	"math"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gpuarr/gpuarr/internal/cleanups"
	"github.com/gpuarr/gpuarr/internal/units"
	"github.com/gpuarr/gpuarr/memory"
)

// reading is one look at a device's memory: the bytes live in allocations
// and the limit they are measured against.
type reading struct {
	Live, Limit uint64
}

// Pressure is Live/Limit, or 0 without a limit.
func (r reading) Pressure() float64 {
	if r.Limit == 0 {
		return 0
	}
	return float64(r.Live) / float64(r.Limit)
}

// collector applies the eager-collection policy. One collector serves a
// process (the GC is process-wide); it is safe for concurrent use, and
// concurrent callers share one collection rather than queueing several.
type collector struct {
	cfg     policy
	enabled atomic.Bool // cfg.Enabled, switchable at run time

	mu       sync.Mutex
	cur      *collection // the collection in flight, if any
	inFlight atomic.Bool // cur != nil, for the gauges' lock-free check
	last     *collection // the last one that ended
	started  uint64      // collections started so far (eager and forced)
	counters EagerCounters

	// The budget's inputs, written under mu and read without it by the
	// fast refusal check (refuses) that callers make before reading the
	// device. lastEnd is in c.now's nanoseconds; ended says it is set.
	avgGC     atomic.Int64 // smoothed duration of a collection, ns
	lastEnd   atomic.Int64
	ended     atomic.Bool
	lastFreed atomic.Uint64
	// paced is the background threshold the pacer set (pacer.go), as
	// math.Float64bits; 0 until a collection has measured a rate.
	paced atomic.Uint64

	// gc and now are runtime.GC-plus-wait and time.Now, replaced in tests;
	// joining, when set (tests), is called as collectFor starts waiting for
	// a collection under way.
	gc      func(wait time.Duration) time.Duration
	now     func() time.Time
	joining func()
}

// collection is one collection in flight; done closes when it ends.
type collection struct {
	seq   uint64
	done  chan struct{}
	took  time.Duration
	freed uint64
}

// newCollector returns a collector with the given policy.
func newCollector(cfg policy) *collector {
	c := &collector{cfg: cfg, now: time.Now, gc: cleanups.Collect}
	c.enabled.Store(cfg.Enabled)
	return c
}

// currentPolicy returns the collector's policy.
func (c *collector) policy() policy {
	cfg := c.cfg
	cfg.Enabled = c.enabled.Load()
	return cfg
}

// SetEnabled turns eager collection on or off and returns the previous
// setting. Forced collections (Collect) are not affected.
func (c *collector) setEnabled(on bool) (was bool) { return c.enabled.Swap(on) }

// isEnabled reports whether eager collection is on.
func (c *collector) isEnabled() bool { return c.enabled.Load() }

// threshold is the pressure below which maybeCollect does nothing.
//
// Collections in the caller follow CUDA.jl: Threshold on allocation, the
// lower BlockingThreshold before a blocking wait, which hides the
// collection. In background mode BackgroundThreshold applies to both: a
// background collection does not overlap the wait (nobody waits for it),
// and every collection slows the program wherever it runs (the runtime
// stops the world and its mark workers take the idle processors), so the
// lower threshold would only add collections.
//
// BackgroundThreshold is higher (0.90) because a background collection
// need not end before the allocations reach it, only before they reach the
// limit, and the later it starts the more each frees. A program that
// allocates fast enough to outrun a collection started there gets a lower
// threshold from the pacer (pacer.go). BENCHMARKS.md has the training-loop
// runs behind these choices (ede5657, 422aa7e, 0c0a349).
func (c *collector) threshold(blocking bool) float64 {
	switch {
	case c.cfg.Background:
		if p := c.paced.Load(); p != 0 {
			return min(c.cfg.BackgroundThreshold, math.Float64frombits(p))
		}
		return c.cfg.BackgroundThreshold
	case blocking:
		return c.cfg.BlockingThreshold
	}
	return c.cfg.Threshold
}

// budget is the largest recent GC-time fraction allowed at this pressure.
func (c *collector) budget(r reading, blocking bool) float64 {
	b := c.cfg.Budget
	if r.Limit > 0 && c.lastFreed.Load() > r.Limit/10 {
		b *= 2 // the last collection paid off
	}
	if blocking {
		b *= 2 // we are about to wait anyway
	}
	if c.cfg.Background {
		// Collections run beside the program: the budget bounds the GC's
		// share of the CPU, not stalls, and spare cores absorb most of it.
		b *= 4
	}
	p := r.Pressure()
	if p > 0.90 {
		b *= 2
	}
	if p > 0.95 {
		b *= 2
	}
	return b
}

// refuses reports whether the time budget forbids a collection now at
// reading r. It takes no lock, so callers use it to avoid measuring the
// device at all while the budget is spent.
func (c *collector) refuses(r reading, blocking bool) bool {
	return c.refusesAt(r, blocking, c.now())
}

func (c *collector) refusesAt(r reading, blocking bool, now time.Time) bool {
	if !c.ended.Load() {
		return false
	}
	since := now.UnixNano() - c.lastEnd.Load()
	return since <= 0 || float64(c.avgGC.Load())/float64(since) > c.budget(r, blocking)
}

// maybeCollect runs an eager collection when pressure and the time budget
// call for one. read is called before and after to measure what was freed.
// blocking says the caller is about to wait for the device. It reports
// whether a collection ran; a caller that finds another collection under
// way does not wait for it.
func (c *collector) maybeCollect(read func() reading, blocking bool) bool {
	if !c.enabled.Load() {
		return false
	}
	before := read()
	p := before.Pressure()
	if p < c.threshold(blocking) {
		return false
	}
	c.mu.Lock()
	if c.cur != nil {
		c.mu.Unlock()
		return false
	}
	if c.refusesAt(before, blocking, c.now()) {
		c.counters.Skipped++
		c.mu.Unlock()
		return false
	}
	col := c.startLocked()
	c.mu.Unlock()

	background := c.cfg.Background
	collect := func() {
		took, freed := c.run(col, before, read, c.cfg.CleanupWaitMax, func(took time.Duration, freed uint64) {
			c.counters.record(took, freed, background)
		})
		if memory.Tracing() {
			memory.TraceMark(nil, memory.OpEagerGC, freed, took, fmt.Sprintf("%s at pressure %.2f", eagerWhen(blocking, background), p))
		}
		if c.cfg.Log != nil {
			when := "on allocation"
			switch {
			case blocking:
				when = "before a blocking wait"
			case background:
				when = "in the background"
			}
			fmt.Fprintf(c.cfg.Log, "gpuarr gc: eager collection %s at pressure %.2f freed %s in %v\n",
				when, p, units.FormatBytes(freed), took.Round(time.Microsecond))
		}
	}
	if background {
		// The caller goes on allocating: there is headroom above the
		// threshold, and a caller that runs out waits for this collection
		// in the reclaim ladder (Collect joins it).
		go collect()
		return true
	}
	collect()
	return true
}

// eagerWhen says where an eager collection ran, for marks on a timeline.
func eagerWhen(blocking, background bool) string {
	switch {
	case background:
		return "in the background"
	case blocking:
		return "before a blocking wait"
	}
	return "on allocation"
}

// Collect runs a collection whatever the policy says (the reclaim ladder
// does), waiting up to wait for the cleanups it queues. Its result covers
// every object unreachable when Collect was called: a collection already
// under way may have begun before they became garbage, so Collect waits for
// it and then starts (or joins) a later one. ran says whether this caller
// ran the collection rather than sharing another caller's; took is the
// collection's duration and freed what it freed, as read measures.
func (c *collector) collect(read func() reading, wait time.Duration) (ran bool, took time.Duration, freed uint64) {
	c.mu.Lock()
	want := c.started + 1 // the first collection to start after this call
	for {
		if cur := c.cur; cur != nil {
			c.mu.Unlock()
			<-cur.done
			if cur.seq >= want {
				return false, cur.took, cur.freed
			}
			c.mu.Lock()
			continue
		}
		if last := c.last; last != nil && last.seq >= want {
			// One started after this call and ended while we waited.
			c.mu.Unlock()
			return false, last.took, last.freed
		}
		col := c.startLocked()
		c.mu.Unlock()
		took, freed = c.run(col, read(), read, wait, nil)
		return true, took, freed
	}
}

// collectFor is the reclaim ladder's collection for an allocation of need
// bytes. When a collection is under way (a background one that the
// allocation outran), it waits for it, and if that collection freed at
// least need bytes it stops there (joined): the allocator retries on what
// it freed rather than stalling for a second collection. Otherwise it is
// Collect. A caller that joined and still fails should Collect later; the
// ladder does so at its next level.
func (c *collector) collectFor(read func() reading, wait time.Duration, need uint64) (ran, joined bool, took time.Duration, freed uint64) {
	c.mu.Lock()
	cur := c.cur
	c.mu.Unlock()
	if cur != nil {
		if c.joining != nil {
			c.joining()
		}
		<-cur.done
		if cur.freed >= need {
			return false, true, cur.took, cur.freed
		}
	}
	ran, took, freed = c.collect(read, wait)
	return ran, false, took, freed
}

// startLocked marks a collection as under way.
func (c *collector) startLocked() *collection {
	c.started++
	c.cur = &collection{seq: c.started, done: make(chan struct{})}
	c.inFlight.Store(true)
	return c.cur
}

// run performs col: the collection, the smoothing of its duration, and the
// hand-off to callers waiting for it. record (when not nil) counts the
// collection under c.mu before the waiters are released, so a caller that
// waited for col sees it counted.
func (c *collector) run(col *collection, before reading, read func() reading, wait time.Duration, record func(took time.Duration, freed uint64)) (time.Duration, uint64) {
	start := c.now().UnixNano()
	took := c.gc(wait)
	after := read()
	freed := before.Live - min(after.Live, before.Live)

	c.mu.Lock()
	end := c.now().UnixNano()
	if avg := c.avgGC.Load(); avg == 0 {
		c.avgGC.Store(int64(took))
	} else {
		c.avgGC.Store((3*avg + int64(took)) / 4)
	}
	if c.ended.Load() {
		c.pace(freed, start-c.lastEnd.Load(), after.Limit)
	}
	c.lastFreed.Store(freed)
	c.lastEnd.Store(end)
	c.ended.Store(true)
	col.took, col.freed = took, freed
	if record != nil {
		record(took, freed)
	}
	c.cur, c.last = nil, col
	c.inFlight.Store(false)
	c.mu.Unlock()
	close(col.done)
	return took, freed
}

// snapshot returns what the collector's eager collections
// have done (forced ones are counted by their callers, the ladder).
func (c *collector) snapshot() EagerCounters {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.counters
}

// collecting reports whether a collection is in flight. maybeCollect does
// nothing then, so the gauges skip their reading of the device.
func (c *collector) collecting() bool { return c.inFlight.Load() }

// waitIdle returns when no collection is in flight (a background one may
// still be running after the allocation that started it returned).
func (c *collector) waitIdle() {
	c.mu.Lock()
	cur := c.cur
	c.mu.Unlock()
	if cur != nil {
		<-cur.done
	}
}
