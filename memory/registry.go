package memory

import (
	"errors"
	"slices"

	"github.com/gpuarr/gpuarr/device"
)

// The registry of per-stream caches: found without a lock on the hot path,
// replaced (never changed) when a stream is first seen or forgotten.

// registry maps streams to their caches; it is replaced, never changed, so
// the hot path reads it without a lock.
type registry struct {
	m   map[*device.Stream]*streamCache
	all []*streamCache
}

// streamCache returns s's cache, creating it on first use.
func (p *CachingPool) streamCache(s *device.Stream) *streamCache {
	if sc := p.reg.Load().m[s]; sc != nil {
		return sc
	}
	p.regMu.Lock()
	defer p.regMu.Unlock()
	old := p.reg.Load()
	if sc := old.m[s]; sc != nil {
		return sc
	}
	sc := &streamCache{stream: s}
	sc.clock.reset()
	r := &registry{m: make(map[*device.Stream]*streamCache, len(old.m)+1)}
	for k, v := range old.m {
		r.m[k] = v
	}
	r.m[s] = sc
	r.all = append(slices.Clip(old.all), sc)
	p.reg.Store(r)
	return sc
}

func (p *CachingPool) streams() []*streamCache { return p.reg.Load().all }

// markDeadLocked notes that sc's stream was closed: its work is done, so
// its memory needs no waits. Its front cache moves to the index at the
// next collect (not here: this runs in the middle of carving blocks).
func (p *CachingPool) markDeadLocked(sc *streamCache) {
	sc.mu.Lock()
	sc.dead = true
	sc.mu.Unlock()
}

// probeStreams is the number of streams past which collect asks idle
// streams whether they were closed (a stream closed while its cache was
// empty is noticed no other way).
const probeStreams = 32

// pruneLocked forgets closed streams that hold no memory.
func (p *CachingPool) pruneLocked() {
	r := p.reg.Load()
	if len(r.all) > probeStreams {
		for _, sc := range r.all {
			if !sc.dead && sc.holdsNothing() {
				if _, err := sc.stream.Query(); errors.Is(err, device.ErrClosed) {
					p.markDeadLocked(sc)
				}
			}
		}
	}
	drop := false
	for _, sc := range r.all {
		if sc.dead && sc.holdsNothing() {
			drop = true
		}
	}
	if !drop {
		return
	}
	p.regMu.Lock()
	defer p.regMu.Unlock()
	r = p.reg.Load()
	nr := &registry{m: make(map[*device.Stream]*streamCache, len(r.m))}
	for _, sc := range r.all {
		if sc.dead && sc.holdsNothing() {
			for _, other := range r.all {
				delete(other.arena.waited, sc)
			}
			continue
		}
		nr.m[sc.stream] = sc
		nr.all = append(nr.all, sc)
	}
	p.reg.Store(nr)
}
