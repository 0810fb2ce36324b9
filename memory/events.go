package memory

import (
	"errors"

	"github.com/gpuarr/gpuarr/device"
	"github.com/gpuarr/gpuarr/internal/debugenv"
)

// Cross-stream safety in the caching pool.
//
// A free block carries waits: for each stream that used the memory, the
// point in that stream another stream must be ordered after before using
// it. Points are numbered per stream by the events the pool records there
// (seq). A wait names the stream and need, the first event number that
// lies after the free; when an event was recorded at or after the free, it
// names that event too (eager), otherwise none yet (lazy): the stream that
// takes the block records one then, which lies after the free as well.
// Frees, spills from the front caches and coalescing therefore make no
// driver call; a stream pays an event record and a device-side wait (two
// driver calls) only when it actually takes another stream's memory, and
// only once per (stream, event) since it remembers the last event it waited
// for on each other stream.
//
// A wait is satisfied without any device work when the taker is the stream
// itself (stream order), when the stream is known to have passed need
// (doneSeq: collect queries the oldest outstanding events of each stream in
// batches, and records a "clock" event where frees were tagged lazily), or
// when the stream was closed (closing drains it).
//
// Merging two free blocks keeps, per stream, the later point; since a
// stream reaches its events in order, that covers both.

// poolEvent is a device event recorded by the pool on one stream.
type poolEvent struct {
	ev     *device.Event
	sc     *streamCache
	seq    uint64
	refs   int  // waits naming it
	queued bool // in sc.arena.events, waiting to be found reached
	clock  bool // recorded to learn the stream's progress: query it even unreferenced
}

// waitRef is one stream's part of a free block's waits.
type waitRef struct {
	sc   *streamCache
	ev   *poolEvent // nil: lazy, record one when needed
	need uint64
}

// noEventReuse is GPUARR_DEBUG=events: spare events are destroyed, not
// kept (debugenv.NoEventReuse, NoPoolEventReuse).
var noEventReuse = debugenv.Has(debugenv.NoEventReuse) || debugenv.Has(debugenv.NoPoolEventReuse)

// newEventLocked takes a pooled event or creates one.
func (p *CachingPool) newEventLocked() (*poolEvent, error) {
	if n := len(p.spareEvents); n > 0 {
		e := p.spareEvents[n-1]
		p.spareEvents = p.spareEvents[:n-1]
		return e, nil
	}
	ev, err := p.dev.NewEvent()
	if err != nil {
		return nil, err
	}
	return &poolEvent{ev: ev}, nil
}

func (p *CachingPool) spareEventLocked(e *poolEvent) {
	if noEventReuse {
		_ = e.ev.Close() // a queued record completes before the driver frees it
		return
	}
	*e = poolEvent{ev: e.ev}
	p.spareEvents = append(p.spareEvents, e)
}

// recordLocked records a pooled event on sc's stream. A closed stream marks
// sc dead and gives (nil, nil): everything it ran is done.
func (p *CachingPool) recordLocked(sc *streamCache) (*poolEvent, error) {
	if sc.dead {
		return nil, nil
	}
	e, err := p.newEventLocked()
	if err != nil {
		return nil, err
	}
	if err := sc.stream.Record(e.ev); err != nil {
		p.spareEventLocked(e)
		if errors.Is(err, device.ErrClosed) {
			p.markDeadLocked(sc)
			return nil, nil
		}
		return nil, err
	}
	a := &sc.arena
	a.seq++
	a.needClock = false
	e.sc, e.seq, e.queued = sc, a.seq, true
	a.events = append(a.events, e)
	p.a.eventRecords++
	return e, nil
}

// lazyRef is a wait on sc for a free happening now.
func (p *CachingPool) lazyRef(sc *streamCache) waitRef {
	sc.arena.needClock = true
	return waitRef{sc: sc, need: sc.arena.seq + 1}
}

// unrefLocked drops one reference to e.
func (p *CachingPool) unrefLocked(e *poolEvent) {
	if e.refs--; e.refs == 0 && !e.queued {
		p.spareEventLocked(e)
	}
}

// reachedLocked reports whether the stream of r is known to have passed
// the free (without asking the device).
func reachedLocked(r waitRef) bool {
	return r.sc.dead || r.sc.arena.doneSeq >= r.need
}

// coveredLocked reports whether taker may use memory with wait r as is.
func coveredLocked(r waitRef, taker *streamCache) bool {
	return r.sc == taker || reachedLocked(r) || taker.arena.waited[r.sc] >= r.need
}

// waitLocked orders taker's stream after every wait of b (device-side) and
// clears them.
func (p *CachingPool) waitLocked(taker *streamCache, b *Block) error {
	for i, r := range b.waits {
		if coveredLocked(r, taker) {
			continue
		}
		e := r.ev
		if e == nil {
			var err error
			if e, err = p.recordLocked(r.sc); err != nil {
				return err
			}
			if e == nil { // the stream was closed
				continue
			}
			e.clock = true // nobody holds it, but it tells collect how far the stream got
			b.waits[i].ev, b.waits[i].need = e, e.seq
			e.refs++
		}
		if err := taker.stream.Wait(e.ev); err != nil {
			return err
		}
		p.a.crossWaits++
		if taker.arena.waited == nil {
			taker.arena.waited = make(map[*streamCache]uint64)
		}
		taker.arena.waited[r.sc] = max(taker.arena.waited[r.sc], e.seq)
	}
	p.dropWaitsLocked(b)
	return nil
}

// dropWaitsLocked clears b's waits.
func (p *CachingPool) dropWaitsLocked(b *Block) {
	for _, r := range b.waits {
		if r.ev != nil {
			p.unrefLocked(r.ev)
		}
	}
	clear(b.waits)
	b.waits = b.waits[:0]
}

// copyWaitsLocked gives dst the waits of src.
func (p *CachingPool) copyWaitsLocked(dst, src *Block) {
	dst.waits = append(dst.waits[:0], src.waits...)
	for _, r := range dst.waits {
		if r.ev != nil {
			r.ev.refs++
		}
	}
}

// mergeWaitsLocked moves src's waits into dst, keeping the later point per
// stream (an eager wait wins a tie: it needs no record).
func (p *CachingPool) mergeWaitsLocked(dst, src *Block) {
outer:
	for _, r := range src.waits {
		for i, d := range dst.waits {
			if d.sc != r.sc {
				continue
			}
			if r.need > d.need || r.need == d.need && d.ev == nil && r.ev != nil {
				dst.waits[i], r = r, d
			}
			if r.ev != nil {
				p.unrefLocked(r.ev)
			}
			continue outer
		}
		dst.waits = append(dst.waits, r)
	}
	clear(src.waits)
	src.waits = src.waits[:0]
}

// syncRefLocked blocks until the stream of r passed the free.
func (p *CachingPool) syncRefLocked(r waitRef) error {
	if reachedLocked(r) {
		return nil
	}
	p.a.syncs++
	var err error
	if r.ev != nil {
		err = r.ev.ev.Synchronize()
		if err == nil {
			r.sc.arena.doneSeq = max(r.sc.arena.doneSeq, r.ev.seq)
		}
	} else {
		err = r.sc.stream.Synchronize()
	}
	if errors.Is(err, device.ErrClosed) {
		return nil
	}
	return err
}

// collectLocked is the batched progress check: for each stream, query its
// oldest outstanding events until one is not reached (a stream reaches them
// in order), and record a clock event where frees were tagged lazily since
// the last event. It then releases pending blocks whose streams all passed
// their free, and trims the cache to the soft limit.
func (p *CachingPool) collectLocked() {
	p.a.collects++
	for _, sc := range p.reg.Load().all {
		a := &sc.arena
		if sc.dead {
			sc.mu.Lock()
			out := sc.evict(0, 0)
			sc.mu.Unlock()
			p.indexChainLocked(sc, out)
			for _, e := range a.events {
				e.queued = false
				if e.refs == 0 {
					p.spareEventLocked(e)
				}
			}
			clear(a.events)
			a.events = a.events[:0]
			continue
		}
		i := 0
		for ; i < len(a.events); i++ {
			e := a.events[i]
			if e.refs > 0 || e.clock {
				done, err := e.ev.Query()
				p.a.queries++
				if err != nil || !done {
					break
				}
				a.doneSeq = max(a.doneSeq, e.seq)
			}
			e.queued = false
			if e.refs == 0 {
				p.spareEventLocked(e)
			}
		}
		if i > 0 {
			n := copy(a.events, a.events[i:])
			clear(a.events[n:])
			a.events = a.events[:n]
		}
		if a.needClock && len(a.events) == 0 {
			if e, err := p.recordLocked(sc); err == nil && e != nil {
				e.clock = true
			}
		}
	}
	p.processPendingLocked(false)
	p.softTrimLocked()
	p.pruneLocked()
}
