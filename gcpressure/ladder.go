package gcpressure

import (
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/gpuarr/gpuarr/device"
	"github.com/gpuarr/gpuarr/internal/units"
	"github.com/gpuarr/gpuarr/memory"
)

// The reclaim ladder's steps, by the level memory passes to Reclaim. The
// allocator retries after each and stops at the first that succeeds, so
// the cheap steps come first:
//
//	levelSyncStream  synchronize the device's default stream, so that frees
//	                 ordered on it (stream-ordered pools) can be reused
//	levelCollect     run the GC and wait for the cleanups it queued: the
//	                 buffers of unreachable arrays go back to the pool; a
//	                 background collection under way that frees enough is
//	                 shared instead (collector.collectFor)
//	levelSyncDevice  synchronize every stream of the device, and collect if
//	                 the collect step only shared an earlier collection
//	levelGiveUp      nothing left here: Reclaim reports false and the
//	                 allocator releases its cached segments, retries once
//	                 more and only then fails with its status report
//
// memory.Reclaimer passes only the device, not the allocating stream; the
// default stream is the allocating one in code that names no stream, and
// levelSyncDevice covers the others.
const (
	levelSyncStream = iota
	levelCollect
	levelSyncDevice
	levelGiveUp
)

// The ladder's levels are exactly the calls memory makes.
var _ = [1]struct{}{}[memory.ReclaimLevels-levelGiveUp-1]

var levelNames = [...]string{"sync the default stream", "collect", "sync the device", "give up"}

// ladder is the reclaim ladder: a memory.Reclaimer that frees memory
// for an allocation about to fail. Install makes the process's ladder
// memory's default; a pool may also name one in its options.
type ladder struct {
	c    *collector
	live func(*device.Device) uint64
	log  io.Writer
	wait time.Duration

	// The synchronizations, replaced in tests.
	syncStream, syncDevice func(*device.Device) error

	mu       sync.Mutex
	counters ReclaimCounters
	// joined marks devices whose last collect step shared a collection
	// already under way instead of running one; their next device-sync
	// step collects (collectFor).
	joined map[*device.Device]bool

	gates gates // hold back other allocations while a ladder runs (hold)
}

// newLadder returns a ladder whose collections go through c (sharing
// its time accounting with eager collections, and joining one already
// under way) and wait up to c's ReclaimWaitMax for cleanups. live reports a
// device's live bytes, to count what each step freed; nil reads the
// device's default resource.
func newLadder(c *collector, live func(*device.Device) uint64) *ladder {
	if live == nil {
		live = defaultLive
	}
	cfg := c.policy()
	return &ladder{
		c: c, live: live, log: cfg.Log, wait: cfg.ReclaimWaitMax,
		syncStream: func(d *device.Device) error { return d.DefaultStream().Synchronize() },
		syncDevice: (*device.Device).Synchronize,
	}
}

// defaultLive is the allocated bytes of dev's default resource and of its
// managed memory (memory.DefaultManaged).
func defaultLive(dev *device.Device) uint64 {
	res, err := memory.Default(dev)
	if err != nil {
		return 0
	}
	managed, _ := memory.ManagedUse(dev, 0, 0)
	return res.Stats().AllocatedBytes.Current + managed
}

// Reclaim runs step level of the ladder for an allocation of need bytes on
// dev (memory.Reclaimer). It reports true after every step that may have
// freed memory, so the allocator retries and comes back for the next.
func (r *ladder) Reclaim(dev *device.Device, need uint64, level int) bool {
	if level < levelSyncStream || level >= levelGiveUp {
		r.mu.Lock()
		r.counters.Runs[levelGiveUp]++
		r.mu.Unlock()
		if memory.Tracing() {
			memory.TraceMark(dev, memory.OpReclaim, 0, 0, fmt.Sprintf("level %d (%s) for %s", levelGiveUp, levelNames[levelGiveUp], units.FormatBytes(need)))
		}
		if r.log != nil {
			fmt.Fprintf(r.log, "gpuarr gc: reclaim on %s for %s: ladder exhausted, the allocator releases cached segments next\n",
				dev, units.FormatBytes(need))
		}
		return false
	}
	r.gates.close(dev)
	defer r.gates.reopen(dev, retryGrace)
	start := time.Now()
	before := r.live(dev)
	var err error
	ran := false
	read := func() reading { return reading{Live: r.live(dev)} }
	switch level {
	case levelSyncStream:
		err = r.syncStream(dev)
	case levelCollect:
		var joined bool
		ran, joined, _, _ = r.c.collectFor(read, r.wait, need)
		r.setJoined(dev, joined)
	case levelSyncDevice:
		err = r.syncDevice(dev)
		if r.setJoined(dev, false) {
			// The collect step only shared a collection that began before
			// this allocation ran out, and the retry still failed: the
			// garbage made since is collected now.
			ran, _, _ = r.c.collect(read, r.wait)
		}
	}
	took := time.Since(start)
	freed := before - min(before, r.live(dev))

	r.mu.Lock()
	c := &r.counters
	c.Runs[level]++
	if ran {
		c.Collections++
	}
	c.BytesFreed += freed
	c.Time += took
	c.MaxPause = max(c.MaxPause, took)
	if level == levelCollect || ran {
		c.CollectTime += took
		c.CollectMaxPause = max(c.CollectMaxPause, took)
	}
	if err != nil {
		c.Errors++
	}
	r.mu.Unlock()
	if memory.Tracing() {
		memory.TraceMark(dev, memory.OpReclaim, freed, took, fmt.Sprintf("level %d (%s) for %s", level, levelNames[level], units.FormatBytes(need)))
	}
	if r.log != nil {
		note := ""
		if err != nil {
			note = fmt.Sprintf(" (%v)", err)
		} else if level == levelCollect && !ran {
			note = " (shared a collection under way)"
		} else if level == levelSyncDevice && ran {
			note = " (and collected: the collect step had shared an earlier collection)"
		}
		fmt.Fprintf(r.log, "gpuarr gc: reclaim on %s for %s: level %d (%s) freed %s in %v%s\n",
			dev, units.FormatBytes(need), level, levelNames[level], units.FormatBytes(freed), took.Round(time.Microsecond), note)
	}
	// A failed synchronization (a poisoned device) is no reason to skip
	// the collection; the allocator's own error will tell the story.
	return true
}

// setJoined records whether dev's last collect step joined a collection
// under way, and returns the previous record.
func (r *ladder) setJoined(dev *device.Device, joined bool) (was bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	was = r.joined[dev]
	if joined {
		if r.joined == nil {
			r.joined = make(map[*device.Device]bool)
		}
		r.joined[dev] = true
	} else {
		delete(r.joined, dev)
	}
	return was
}

// hold waits, at most max, while a reclaim ladder runs on dev (see gates);
// it returns at once (one atomic load) when none does. The eager hooks
// call it before every allocation, so that the memory a ladder frees goes
// to the allocation that ran out.
func (r *ladder) hold(dev *device.Device, max time.Duration) { r.gates.wait(dev, max) }

// snapshot returns what the ladder has done.
func (r *ladder) snapshot() ReclaimCounters {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.counters
}

var _ memory.Reclaimer = (*ladder)(nil)
