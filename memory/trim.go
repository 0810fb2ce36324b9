package memory

import (
	"cmp"
	"slices"
)

// Trimming: giving idle segments back upstream, on demand (EmptyCache,
// Trim), to stay within the soft limit, and at the end of the exhaustion
// ladder.

// releaseLocked gives idle segments (one free block each) back upstream,
// largest first, until at most keep bytes stay reserved. With sync it
// waits for streams still using them; without, it skips those.
func (p *CachingPool) releaseLocked(keep uint64, sync bool) error {
	var idle []*segment
	for _, s := range p.segs {
		if h := s.head; h.indexed && h.size == s.size {
			idle = append(idle, s)
		}
	}
	slices.SortFunc(idle, func(a, b *segment) int { return cmp.Compare(b.size, a.size) })
	var first error
	for _, s := range idle {
		if p.a.reserved.Current <= keep {
			break
		}
		h := s.head
		ready := true
		for _, r := range h.waits {
			if !sync && !reachedLocked(r) {
				ready = false
				break
			}
			if err := p.syncRefLocked(r); err != nil && first == nil {
				first = err
			}
		}
		if !ready {
			continue
		}
		p.removeIndexLocked(h)
		p.dropWaitsLocked(h)
		p.recycleLocked(h)
		last := p.segs[len(p.segs)-1]
		p.segs[s.pos], last.pos = last, s.pos
		p.segs[len(p.segs)-1] = nil
		p.segs = p.segs[:len(p.segs)-1]
		p.a.reserved.sub(s.size)
		p.a.segments.sub(1)
		p.a.released++
		if s.small {
			p.a.smallReserved -= s.size
		}
		// Every user of the memory is done: free it on any live stream.
		s.up.stream, s.up.nosync = p.dev.DefaultStream(), true
		p.release = append(p.release, s.up)
	}
	return first
}

// softTrimLocked keeps the cache within the soft limit, releasing only
// segments whose users are known to be done.
func (p *CachingPool) softTrimLocked() {
	soft := p.opts.SoftLimit
	if soft == 0 {
		return
	}
	allocated, _, _ := sum(p.streams())
	active := sat(p.a.reserved.Current, allocated)
	for _, b := range p.pending {
		active = sat(active, b.size)
	}
	if cached := active; cached > soft {
		_ = p.releaseLocked(p.a.reserved.Current-(cached-soft), false)
	}
}

// EmptyCache returns every idle segment upstream, first moving the front
// caches into the index and waiting for blocks other streams still use.
func (p *CachingPool) EmptyCache() error { return p.Trim(0) }

// Trim returns idle segments upstream until at most keep bytes stay
// reserved, waiting for streams that still use them.
func (p *CachingPool) Trim(keep uint64) error {
	p.mu.Lock()
	p.flushFrontsLocked()
	err := p.processPendingLocked(true)
	p.collectLocked()
	if e := p.releaseLocked(keep, true); err == nil {
		err = e
	}
	if e := p.unlock(); err == nil {
		err = e
	}
	return err
}
