package gcpressure

import (
	"sync"
	"sync/atomic"
)

// refreshShare: a gauge measures again once the bytes announced since its
// last reading reach 1/refreshShare of the limit, so its estimate is never
// more than that share above the truth.
const refreshShare = 64

// gauge estimates a memory's pressure between readings, so that the check
// made on every allocation costs an atomic add and a few loads instead of a
// look at the allocator's statistics (which takes its locks) or the driver.
//
// The estimate is the last reading's live bytes plus every byte announced
// since: an upper bound as long as all allocations are announced (frees
// only lower the truth). An estimate below the threshold is trusted; one
// above it is checked against the collector's time budget without a
// reading, and only then measured for real.
type gauge struct {
	read func() reading

	mu          sync.Mutex // one reading at a time
	valid       atomic.Bool
	live, limit atomic.Uint64
	// since, written on every allocation, has a cache line of its own so
	// that the fields read beside it stay shared between cores.
	_     [64]byte
	since atomic.Uint64 // bytes announced since the last reading
	_     [56]byte
}

func newGauge(read func() reading) *gauge { return &gauge{read: read} }

// reading measures for real and restarts the estimate from it.
func (g *gauge) measure() reading {
	g.mu.Lock()
	defer g.mu.Unlock()
	s0 := g.since.Load()
	r := g.read()
	g.live.Store(r.Live)
	g.limit.Store(r.Limit)
	g.valid.Store(true)
	g.since.Add(-s0) // announcements made during the read stay counted
	return r
}

// estimate is the reading the gauge believes in without measuring, and
// whether it is fresh enough to be believed. It loads since before live:
// reading stores live before lowering since, so a concurrent reading can
// make the estimate high, never low.
func (g *gauge) estimate() (reading, bool) {
	since := g.since.Load()
	limit := g.limit.Load()
	ok := g.valid.Load() && since < limit/refreshShare
	return reading{Live: g.live.Load() + since, Limit: limit}, ok
}

// check announces n bytes about to be allocated (0 before a blocking wait)
// and collects when c's policy says so. It reports whether a collection ran.
func (g *gauge) check(c *collector, n uint64, blocking bool) bool {
	if !c.enabled.Load() {
		return false
	}
	g.since.Add(n)
	if c.collecting() {
		// maybeCollect would neither start another collection nor wait for
		// this one. reading the device here would cost every allocation of
		// the collection's few milliseconds a look at the allocator's
		// statistics, under the locks its cleanups are freeing through;
		// the collection's own closing reading restarts the estimate.
		return false
	}
	if est, ok := g.estimate(); ok {
		if est.Pressure() < c.threshold(blocking) || c.refuses(est, blocking) {
			return false
		}
	}
	return c.maybeCollect(g.measure, blocking)
}
