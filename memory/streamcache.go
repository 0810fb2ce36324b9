package memory

import (
	"sync"

	"github.com/gpuarr/gpuarr/device"
)

// streamCache is the caching pool's per-stream state: the front cache that
// serves the hot path, the stream's share of the statistics, and (guarded by
// the pool's lock) what the pool knows about the stream's progress.
//
// The front cache holds blocks freed on this stream, binned by the rounded
// size they were allocated under. Stream order makes them reusable at once
// by this stream, so an allocation that finds one takes only this cache's
// lock, which is uncontended when one goroutine drives the stream: no
// driver call, no shared write. Blocks leave the front cache for the pool's
// best-fit index when the cache grows past its bounds (oldest first), when
// another stream misses, and on EmptyCache/Trim.
type streamCache struct {
	mu     sync.Mutex
	stream *device.Stream
	dead   bool // the stream is closed: written under mu and the pool lock

	small  [smallBins]*Block // bins for sizes up to smallSize, by size/minBlockSize
	large  map[uint64]*Block // bins for larger sizes
	newest *Block            // age list through lprev/lnext
	oldest *Block
	count  int         // blocks in the front cache
	bytes  uint64      // their Capacity
	sh     shard       // memory allocated on this stream
	clock  sampleClock // bytes to the profile's next sample (profile.go)

	arena streamArena // guarded by the pool's lock
}

const smallBins = smallSize/minBlockSize + 1

// holdsNothing reports whether no block allocated on the stream is live
// and its front cache is empty.
func (c *streamCache) holdsNothing() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.sh.count == 0 && c.count == 0
}

// take pops the newest block of the size class, or returns nil.
func (c *streamCache) take(class uint64) *Block {
	var b *Block
	if class <= smallSize {
		b = c.small[class/minBlockSize]
	} else {
		b = c.large[class]
	}
	if b == nil {
		return nil
	}
	c.unlink(b)
	return b
}

// push adds a freed block as the newest.
func (c *streamCache) push(b *Block) {
	b.state = stateFront
	b.fprev = nil
	if b.class <= smallSize {
		h := &c.small[b.class/minBlockSize]
		b.fnext = *h
		if *h != nil {
			(*h).fprev = b
		}
		*h = b
	} else {
		if c.large == nil {
			c.large = make(map[uint64]*Block)
		}
		h := c.large[b.class]
		b.fnext = h
		if h != nil {
			h.fprev = b
		}
		c.large[b.class] = b
	}
	b.lprev, b.lnext = nil, c.newest
	if c.newest != nil {
		c.newest.lprev = b
	} else {
		c.oldest = b
	}
	c.newest = b
	c.count++
	c.bytes += b.size
}

// unlink removes b from its bin and the age list.
func (c *streamCache) unlink(b *Block) {
	if b.fprev != nil {
		b.fprev.fnext = b.fnext
	} else if b.class <= smallSize {
		c.small[b.class/minBlockSize] = b.fnext
	} else {
		c.large[b.class] = b.fnext
	}
	if b.fnext != nil {
		b.fnext.fprev = b.fprev
	}
	if b.lprev != nil {
		b.lprev.lnext = b.lnext
	} else {
		c.newest = b.lnext
	}
	if b.lnext != nil {
		b.lnext.lprev = b.lprev
	} else {
		c.oldest = b.lprev
	}
	b.fprev, b.fnext, b.lprev, b.lnext = nil, nil, nil, nil
	c.count--
	c.bytes -= b.size
}

// evict removes the oldest blocks until the cache holds at most maxBlocks
// blocks and maxBytes bytes, and returns them chained through lnext.
func (c *streamCache) evict(maxBlocks int, maxBytes uint64) *Block {
	var out *Block
	for c.oldest != nil && (c.count > maxBlocks || c.bytes > maxBytes) {
		b := c.oldest
		c.unlink(b)
		b.lnext = out
		out = b
	}
	if c.count == 0 {
		clear(c.large) // forget the sizes of a workload that moved on
	}
	return out
}

// streamArena is what the pool knows about a stream, under the pool's lock.
type streamArena struct {
	seq       uint64                  // events recorded on the stream by the pool
	doneSeq   uint64                  // the latest of them known to be reached
	needClock bool                    // frees were tagged after the latest event
	events    []*poolEvent            // recorded, not known reached, oldest first
	waited    map[*streamCache]uint64 // other streams' events this stream waited for, by seq
}

// spill moves sc's oldest front-cache blocks into the index, down to half
// the bounds.
func (p *CachingPool) spill(sc *streamCache) {
	sc.mu.Lock()
	out := sc.evict(p.frontBlocks/2, p.frontBytes/2)
	sc.mu.Unlock()
	p.mu.Lock()
	p.a.spills++
	p.indexChainLocked(sc, out)
	if p.a.spills%collectEvery == 0 {
		p.collectLocked()
	}
	p.unlock()
}

// indexChainLocked puts blocks evicted from sc's front cache (chained
// through lnext) into the index, tagged with a lazy wait on sc.
func (p *CachingPool) indexChainLocked(sc *streamCache, b *Block) int {
	n := 0
	for b != nil {
		next := b.lnext
		b.lnext = nil
		if !sc.dead {
			b.waits = append(b.waits, p.lazyRef(sc))
		}
		p.insertFreeLocked(b)
		b = next
		n++
	}
	return n
}

// flushFrontsLocked moves every front cache into the index.
func (p *CachingPool) flushFrontsLocked() int {
	n := 0
	for _, sc := range p.reg.Load().all {
		sc.mu.Lock()
		out := sc.evict(0, 0)
		sc.mu.Unlock()
		n += p.indexChainLocked(sc, out)
	}
	return n
}
