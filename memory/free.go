package memory

import "github.com/gpuarr/gpuarr/device"

// Stream-ordered frees: a block freed on its own stream goes to that
// stream's front cache; one used on other streams (RecordUse) stays pending
// until they pass the free, then joins the index.

// Free returns b to the pool in the order of its stream.
func (p *CachingPool) Free(b *Block) error {
	if b == nil || b.owner != p {
		return invalid("CachingPool.Free", "%v was not allocated by this pool", b)
	}
	sc := b.sc
	sc.mu.Lock()
	if b.state != stateAllocated {
		st := b.state
		sc.mu.Unlock()
		return invalid("CachingPool.Free", "%v is %s (double free?)", b, st)
	}
	sc.sh.sub(b.size)
	// A sampled block's free is reported to the profile once the stream's
	// lock is released; the block leaves unsampled.
	prof, size := b.prof, b.size
	b.prof = nil
	if len(b.uses) == 0 && p.frontBlocks > 0 && !sc.dead {
		if p.poison {
			_ = sc.stream.Memset8(b.ptr, p.poisonByte, b.size)
		}
		sc.push(b)
		spill := sc.count > p.frontBlocks || sc.bytes > p.frontBytes && sc.count > 1
		sc.mu.Unlock()
		if prof != nil {
			prof.free(size)
		}
		if spill {
			p.spill(sc)
		}
		return nil
	}
	b.state = stateFreeing
	sc.mu.Unlock()
	if prof != nil {
		prof.free(size)
	}
	return p.freeSlow(b)
}

// freeSlow frees a block used on several streams (or with the front caches
// off, or of a closed stream) under the pool's lock.
func (p *CachingPool) freeSlow(b *Block) error {
	sc := b.sc
	p.mu.Lock()
	if len(b.uses) == 0 {
		if !sc.dead {
			if p.poison {
				_ = sc.stream.Memset8(b.ptr, p.poisonByte, b.size)
			}
			b.waits = append(b.waits, p.lazyRef(sc))
		}
		p.insertFreeLocked(b)
		return p.unlock()
	}
	var err error
	for _, u := range b.uses {
		var e *poolEvent
		if e, err = p.recordLocked(p.streamCache(u)); err != nil {
			break
		}
		if e != nil { // nil: u is closed, so done
			e.refs++
			b.waits = append(b.waits, waitRef{sc: e.sc, ev: e, need: e.seq})
		}
	}
	clear(b.uses)
	b.uses = b.uses[:0]
	if err != nil {
		// Without an event the only safe course is to wait here.
		for _, r := range b.waits {
			if e := p.syncRefLocked(r); e != nil && err == nil {
				err = e
			}
		}
		p.dropWaitsLocked(b)
	}
	b.state = statePending
	p.pending = append(p.pending, b)
	p.peaks.addPending(p.streams(), b.size)
	if p.a.pendingFree++; p.a.pendingFree%collectEvery == 0 || len(b.waits) == 0 {
		p.collectLocked()
	}
	if e := p.unlock(); err == nil {
		err = e
	}
	return err
}

// processPendingLocked moves pending blocks whose other streams passed
// their free into the index; with wait, it first blocks until all have.
func (p *CachingPool) processPendingLocked(wait bool) error {
	var first error
	kept := p.pending[:0]
	for _, b := range p.pending {
		ready := true
		for _, r := range b.waits {
			if wait {
				if err := p.syncRefLocked(r); err != nil && first == nil {
					first = err
				}
			} else if !reachedLocked(r) {
				ready = false
				break
			}
		}
		if !ready {
			kept = append(kept, b)
			continue
		}
		p.dropWaitsLocked(b)
		p.peaks.subPending(b.size)
		sc := b.sc
		if !sc.dead {
			if p.poison {
				_ = sc.stream.Memset8(b.ptr, p.poisonByte, b.size)
			}
			b.waits = append(b.waits, p.lazyRef(sc))
		}
		p.insertFreeLocked(b)
	}
	clear(p.pending[len(kept):])
	p.pending = kept
	return first
}

// RecordUse declares that work on s uses b.
func (p *CachingPool) RecordUse(b *Block, s *device.Stream) error {
	if b == nil || b.owner != p {
		return invalid("CachingPool.RecordUse", "%v was not allocated by this pool", b)
	}
	if s == nil || s.Device() != p.dev {
		return invalid("CachingPool.RecordUse", "stream must belong to %s", p.dev)
	}
	sc := b.sc
	sc.mu.Lock()
	defer sc.mu.Unlock()
	if b.state != stateAllocated {
		return invalid("CachingPool.RecordUse", "%v is %s", b, b.state)
	}
	b.addUse(s)
	return nil
}
