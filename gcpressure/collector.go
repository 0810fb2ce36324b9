package gcpressure

import (
	"fmt"
	"sync"
	"time"
)

// Reading is one look at a device's memory: the bytes live in allocations
// and the limit they are measured against.
type Reading struct {
	Live, Limit uint64
}

// Pressure is Live/Limit, or 0 without a limit.
func (r Reading) Pressure() float64 {
	if r.Limit == 0 {
		return 0
	}
	return float64(r.Live) / float64(r.Limit)
}

// Collector applies the eager-collection policy. One Collector serves a
// process (the GC is process-wide); it is safe for concurrent use, and
// concurrent callers share one collection rather than queueing several.
type Collector struct {
	cfg Config

	mu         sync.Mutex
	collecting bool
	avgGC      time.Duration // smoothed duration of a collection
	lastEnd    time.Time     // when the last eager collection finished
	lastFreed  uint64
	counters   Counters

	// gc and now are runtime.GC-plus-wait and time.Now, replaced in tests.
	gc  func() time.Duration
	now func() time.Time
}

// NewCollector returns a collector with the given policy.
func NewCollector(cfg Config) *Collector {
	c := &Collector{cfg: cfg, now: time.Now}
	c.gc = func() time.Duration { return CollectAndWait(cfg.CleanupWaitMax) }
	return c
}

// Config returns the collector's policy.
func (c *Collector) Config() Config { return c.cfg }

// budget is the largest recent GC-time fraction allowed at this pressure.
func (c *Collector) budget(r Reading, blocking bool) float64 {
	b := c.cfg.Budget
	if r.Limit > 0 && c.lastFreed > r.Limit/10 {
		b *= 2 // the last collection paid off
	}
	if blocking {
		b *= 2 // we are about to wait anyway
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

// MaybeCollect runs an eager collection when pressure and the time budget
// call for one. read is called before and after to measure what was freed.
// blocking says the caller is about to wait for the device. It reports
// whether a collection ran.
func (c *Collector) MaybeCollect(read func() Reading, blocking bool) bool {
	if !c.cfg.Enabled {
		return false
	}
	before := read()
	threshold := c.cfg.Threshold
	if blocking {
		threshold = c.cfg.BlockingThreshold
	}
	p := before.Pressure()
	if p < threshold {
		return false
	}
	c.mu.Lock()
	if c.collecting {
		c.mu.Unlock()
		return false
	}
	now := c.now()
	if !c.lastEnd.IsZero() {
		since := now.Sub(c.lastEnd)
		if since <= 0 || float64(c.avgGC)/float64(since) > c.budget(before, blocking) {
			c.counters.Skipped++
			c.mu.Unlock()
			return false
		}
	}
	c.collecting = true
	c.mu.Unlock()

	took := c.gc()
	after := read()
	freed := before.Live - min(after.Live, before.Live)

	c.mu.Lock()
	c.collecting = false
	c.lastEnd = c.now()
	if c.avgGC == 0 {
		c.avgGC = took
	} else {
		c.avgGC = (3*c.avgGC + took) / 4
	}
	c.lastFreed = freed
	c.counters.record(took, freed)
	c.mu.Unlock()
	if c.cfg.Log != nil {
		when := "on allocation"
		if blocking {
			when = "before a blocking wait"
		}
		fmt.Fprintf(c.cfg.Log, "gpuarr gc: eager collection %s at pressure %.2f freed %s in %v\n",
			when, p, FormatBytes(freed), took.Round(time.Microsecond))
	}
	return true
}

// Counters returns a snapshot of what the collector has done.
func (c *Collector) Counters() Counters {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.counters
}

// FormatBytes renders a byte count with a binary unit.
func FormatBytes(n uint64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	div, exp := uint64(unit), 0
	for m := n / unit; m >= unit; m /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB", float64(n)/float64(div), "KMGTPE"[exp])
}
