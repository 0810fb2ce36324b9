package memory

import "github.com/gpuarr/gpuarr/device"

// Allocation and growth: the front cache, then best fit in the index, then
// a new segment from upstream, then the exhaustion ladder (exhaustion.go).

// Alloc returns a block of at least n bytes for work on s.
func (p *CachingPool) Alloc(s *device.Stream, n uint64) (*Block, error) {
	if s == nil {
		s = p.dev.DefaultStream()
	} else if s.Device() != p.dev {
		return nil, invalid("CachingPool.Alloc", "stream of %s used with the pool of %s", s.Device(), p.dev)
	}
	if n > maxRequest {
		return nil, p.oomError(n, nil)
	}
	if p.pressure {
		announce(p.dev, n)
	}
	sc := p.streamCache(s)
	class := roundSize(n)
	// The front cache first; either way the block is charged to the
	// stream below, under the stream's lock, which both paths hold there.
	var b *Block
	if p.frontBlocks > 0 {
		sc.mu.Lock()
		if b = sc.take(class); b != nil {
			b.state, b.fresh = stateAllocated, false
		} else {
			sc.mu.Unlock()
		}
	}
	if b == nil {
		var err error
		if b, err = p.allocSlow(sc, class); err != nil {
			return nil, err
		}
		b.class = class
		sc.mu.Lock()
	}
	b.req = n
	sc.sh.add(b.size)
	over := sc.sh.over()
	sampled := sc.clock.tick(b.size)
	sc.mu.Unlock()
	if over {
		p.peaks.recompute(p.streams(), sc)
	}
	if sampled {
		b.prof = sample(kindDevice, p.label, b.size, 0)
	}
	return b, nil
}

// allocSlow serves a front-cache miss: best fit in the index, then (after
// moving every front cache into the index) again, then a progress check,
// then a new segment, then the exhaustion ladder.
func (p *CachingPool) allocSlow(sc *streamCache, size uint64) (*Block, error) {
	p.mu.Lock()
	b, err := p.bestFitLocked(sc, size)
	if b == nil && err == nil && p.flushFrontsLocked() > 0 {
		b, err = p.bestFitLocked(sc, size)
	}
	if b == nil && err == nil {
		// About to grow (tens of µs): first learn which streams passed
		// their frees, release pending blocks that are done, and trim
		// to the soft limit.
		if n := len(p.pending); n > 0 {
			p.collectLocked()
			if len(p.pending) < n {
				b, err = p.bestFitLocked(sc, size)
			}
		} else {
			p.collectLocked()
		}
	}
	p.unlock()
	if b != nil || err != nil {
		return b, err
	}
	b, err = p.grow(sc, size)
	if err != nil && isOOM(err) {
		return p.exhausted(sc, size, err)
	}
	return b, err
}

// bestFitLocked takes the best-fitting free block for size and carves it,
// or returns nil when none fits.
func (p *CachingPool) bestFitLocked(sc *streamCache, size uint64) (*Block, error) {
	x := &p.large
	if size <= smallSize {
		x = &p.small
	}
	b := x.lowerBound(size)
	if b == nil {
		return nil, nil
	}
	if ms := p.opts.MaxSplitSize; ms > 0 && size > smallSize {
		// PyTorch's rules: no oversize block for a request below the
		// split limit, nor one that would waste a large segment's worth.
		if size < ms && b.size >= ms || size >= ms && b.size >= size+largeSegment {
			return nil, nil
		}
	}
	p.removeIndexLocked(b)
	if err := p.carveLocked(b, sc, size); err != nil {
		return nil, err
	}
	return b, nil
}

func (p *CachingPool) shouldSplit(b *Block, size uint64) bool {
	rest := b.size - size
	if b.seg.small {
		return rest >= minBlockSize
	}
	ms := p.opts.MaxSplitSize
	return (ms == 0 || size < ms) && rest > smallSize
}

// carveLocked hands the free block b (out of the index) to sc: it splits
// off what size does not need, and orders sc after b's previous users.
func (p *CachingPool) carveLocked(b *Block, sc *streamCache, size uint64) error {
	if p.shouldSplit(b, size) {
		r := p.newBlockLocked()
		r.ptr, r.size, r.seg = b.ptr.Add(size), b.size-size, b.seg
		r.prev, r.next = b, b.next
		if b.next != nil {
			b.next.prev = r
		}
		b.next = r
		b.size = size
		p.copyWaitsLocked(r, b)
		p.insertIndexLocked(r)
	}
	if err := p.waitLocked(sc, b); err != nil {
		p.insertFreeLocked(b)
		return err
	}
	b.state, b.sc, b.stream, b.owner = stateAllocated, sc, sc.stream, p
	b.uses = b.uses[:0]
	end := uint64(b.ptr-b.seg.ptr) + b.size
	b.fresh = end > b.seg.placed
	b.seg.placed = max(b.seg.placed, end)
	return nil
}

// grow obtains a segment for a request of size bytes and carves it.
func (p *CachingPool) grow(sc *streamCache, size uint64) (*Block, error) {
	segSize := segmentSize(size)
	if size <= smallSize {
		p.mu.Lock()
		segSize = smallSegmentSize(p.a.smallReserved)
		p.mu.Unlock()
	} else if size < minLargeAlloc {
		// Under a limit, a big segment that does not fit falls back below.
		p.mu.Lock()
		segSize = midSegmentSize(segSize, p.a.reserved.Current-p.a.smallReserved)
		p.mu.Unlock()
	}
	up, err := p.up.Alloc(sc.stream, segSize)
	if err != nil && isOOM(err) {
		// Under a limit, a smaller segment may still fit: a plain small
		// one, or one of just the request.
		fallback := uint64(smallSegment)
		if size > smallSize {
			fallback = roundUp(size, roundLarge)
		}
		if fallback < segSize {
			segSize = fallback
			up, err = p.up.Alloc(sc.stream, segSize)
		}
	}
	if err != nil {
		return nil, err
	}
	p.mu.Lock()
	seg := &segment{ptr: up.Ptr(), size: segSize, up: up, small: size <= smallSize, pos: len(p.segs)}
	p.segs = append(p.segs, seg)
	b := p.newBlockLocked()
	b.ptr, b.size, b.seg = seg.ptr, segSize, seg
	seg.head = b
	if p.ordered {
		// The segment is usable in sc's order only.
		b.waits = append(b.waits, p.lazyRef(sc))
	}
	p.a.reserved.add(segSize)
	p.a.segments.add(1)
	p.a.obtained++
	if seg.small {
		p.a.smallReserved += segSize
	}
	err = p.carveLocked(b, sc, size)
	p.unlock()
	if err != nil {
		return nil, err
	}
	return b, nil
}

func (p *CachingPool) newBlockLocked() *Block {
	if n := len(p.spare); n > 0 {
		b := p.spare[n-1]
		p.spare = p.spare[:n-1]
		return b
	}
	return &Block{owner: p}
}

func (p *CachingPool) recycleLocked(b *Block) {
	waits, uses := b.waits[:0], b.uses[:0]
	*b = Block{owner: p, waits: waits, uses: uses, tag: b.tag}
	p.spare = append(p.spare, b)
}
