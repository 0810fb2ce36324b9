package memory

import (
	"sync"
	"time"
)

// The tracer's clock. An event's time is read on the allocation path, so
// the clock is the cheapest one that is monotonic and comparable across
// threads: on amd64 with an invariant time-stamp counter (constant rate,
// and the same count on every core, as the kernel keeps it; haveTSC), a
// read of the counter, which the reader turns into nanoseconds with a
// rate calibrated once per process against the monotonic clock; elsewhere
// the monotonic clock itself (time.Since of the tracer's start).
//
// Resolution: a nanosecond either way (a counter tick is shorter). Times
// are nanoseconds since the tracer started; on the counter they are read
// at the calibrated rate, the same for every read of a trace: they differ
// from the monotonic clock by the calibration's error (the clocks' jitter
// over traceCalibration, parts per million of the time since the start)
// and by the frequency corrections the system applies to the monotonic
// clock afterwards (NTP's, typically tens of parts per million).
// The ring makes the times of a trace nondecreasing in its order
// (traceRing).

// traceCalibration is the least interval between the two readings of the
// counter and the monotonic clock that fix the counter's rate: the first
// trace read in a process waits for what is left of it.
const traceCalibration = 20 * time.Millisecond

// traceClock is one tracer's clock.
type traceClock struct {
	start time.Time // the tracer's start, with its monotonic reading
	base  uint64    // the counter at start (tsc)
	tsc   bool      // ticks are counter ticks, not nanoseconds
}

// tscRate is the process's calibration of the counter: first is read at
// the first counter clock, and the rate is fixed at the first trace read.
var tscRate struct {
	first     sync.Once
	t0        time.Time
	tsc0      uint64
	calibrate sync.Once
	nsPerTick float64
}

// newTraceClock starts a clock now; useTSC picks the counter when the
// processor has an invariant one.
func newTraceClock(useTSC bool) traceClock {
	c := traceClock{tsc: useTSC && haveTSC()}
	if c.tsc {
		tscRate.first.Do(func() { tscRate.t0 = time.Now(); tscRate.tsc0 = readTSC() })
	}
	c.start = time.Now()
	if c.tsc {
		c.base = readTSC()
	}
	return c
}

// now is the clock's reading in ticks: counter ticks since the start, or
// nanoseconds.
func (c *traceClock) now() int64 {
	if c.tsc {
		return int64(readTSC() - c.base)
	}
	return c.sinceStart()
}

func (c *traceClock) sinceStart() int64 { return int64(time.Since(c.start)) }

// tickScale turns a clock's ticks into nanoseconds.
type tickScale struct {
	tsc       bool
	nsPerTick float64
}

func (t tickScale) ns(ticks int64) int64 {
	switch {
	case !t.tsc:
		return ticks
	case ticks <= 0: // a core whose counter lags the start's
		return 0
	}
	return int64(float64(ticks) * t.nsPerTick)
}

// scale returns the clock's tickScale; on the counter the first call in a
// process may wait for the calibration (tscNsPerTick).
func (c *traceClock) scale() tickScale {
	if !c.tsc {
		return tickScale{}
	}
	return tickScale{tsc: true, nsPerTick: tscNsPerTick()}
}

// tscNsPerTick is the counter's calibrated period in nanoseconds. The
// first call waits until traceCalibration has passed since the first
// counter clock started.
func tscNsPerTick() float64 {
	tscRate.calibrate.Do(func() {
		if wait := traceCalibration - time.Since(tscRate.t0); wait > 0 {
			time.Sleep(wait)
		}
		// The counter read on both sides of the monotonic clock, the
		// tightest of a few tries.
		var ns, ticks uint64
		best := ^uint64(0)
		for range 5 {
			a := readTSC()
			d := time.Since(tscRate.t0)
			b := readTSC()
			if b-a < best {
				best, ns, ticks = b-a, uint64(d), a+(b-a)/2-tscRate.tsc0
			}
		}
		tscRate.nsPerTick = 1
		if ticks > 0 && ns > 0 {
			tscRate.nsPerTick = float64(ns) / float64(ticks)
		}
	})
	return tscRate.nsPerTick
}
