package memory

import (
	"cmp"
	"errors"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/gpuarr/gpuarr/device"
	"github.com/gpuarr/gpuarr/device/host"
)

// Size classes, after PyTorch's caching allocator.
const (
	minBlockSize  = 512      // every request is rounded up to a multiple of this
	smallSize     = 1 << 20  // requests up to this size are small
	smallSegment  = 2 << 20  // small requests share segments of this size
	largeSegment  = 20 << 20 // segment for large requests below minLargeAlloc
	minLargeAlloc = 10 << 20 // from this size a segment is the request rounded to roundLarge
	roundLarge    = 2 << 20

	// Small segments grow with the small pool: an eighth of what the pool
	// already reserves for small blocks, in multiples of smallSegment, up to
	// maxSmallSegment. A program with gigabytes of small blocks then costs
	// hundreds of driver allocations rather than thousands.
	maxSmallSegment = 32 << 20

	maxRequest = 1 << 62 // larger requests fail at once (rounding would overflow)
)

// Front cache bounds per stream, unless CachingOptions say otherwise.
const (
	defaultFrontBlocks = 64
	defaultFrontBytes  = 1 << 30
	// Every so many spills or pending frees the pool checks stream progress.
	collectEvery = 32
)

// CachingOptions tune a caching pool. The zero value is PyTorch's behaviour:
// keep everything cached, split any block.
type CachingOptions struct {
	// SoftLimit is the number of cached (reserved but unused) bytes the pool
	// keeps when it checks stream progress; beyond it, idle segments go back
	// upstream. 0 keeps everything.
	SoftLimit uint64
	// MaxSplitSize: blocks this large or larger are never split, and
	// requests below it never take them (PyTorch's max_split_size_mb,
	// against fragmentation by big blocks). 0 means no limit.
	MaxSplitSize uint64
	// Reclaimer is called when memory runs out; nil uses the process-wide
	// one (SetReclaimer).
	Reclaimer Reclaimer
	// FrontBlocks and FrontBytes bound each stream's front cache (0: 64
	// blocks, 1 GiB). A negative FrontBlocks turns the front caches off:
	// every allocation then goes through the best-fit index.
	FrontBlocks int
	FrontBytes  uint64
	// Poison fills freed blocks with host.PoisonByte (a memset in the
	// freeing stream's order) before reuse. It is on in the host backend's
	// checking mode whatever this says.
	Poison bool
}

// CachingPool is the stream-ordered caching allocator: segments obtained
// from an upstream resource are carved into blocks by best fit, with
// splitting and coalescing, and freed blocks are cached for reuse. See the
// package documentation for its design.
type CachingPool struct {
	dev         *device.Device
	up          Resource
	opts        CachingOptions
	frontBlocks int
	frontBytes  uint64
	ordered     bool // upstream is stream-ordered
	poison      bool

	reg   atomic.Pointer[registry]
	regMu sync.Mutex

	mu          sync.Mutex
	small       index // free blocks of small segments
	large       index // free blocks of large segments
	segs        []*segment
	spare       []*Block
	spareEvents []*poolEvent
	pending     []*Block // freed after RecordUse, waiting for other streams
	release     []*Block // upstream blocks to free once the lock is dropped
	a           arenaStats

	peaks peaks
}

// segment is one block obtained upstream.
type segment struct {
	ptr   device.Ptr
	size  uint64
	up    *Block
	small bool
	head  *Block // the block at ptr (it survives every split and merge)
	pos   int    // index in CachingPool.segs
}

// registry maps streams to their caches; it is replaced, never changed, so
// the hot path reads it without a lock.
type registry struct {
	m   map[*device.Stream]*streamCache
	all []*streamCache
}

// arenaStats are the counters kept under the pool's lock.
type arenaStats struct {
	reserved, segments  Stat
	smallReserved       uint64 // of reserved, in small segments
	splitBytes, splitN  Stat
	retries, ooms       uint64
	obtained, released  uint64
	crossWaits, queries uint64
	syncs, collects     uint64
	eventRecords        uint64
	spills, pendingFree uint64
}

func (s *Stat) add(n uint64) {
	s.Current += n
	s.Peak = max(s.Peak, s.Current)
}

func (s *Stat) sub(n uint64) { s.Current -= n }

// Caching returns a caching pool over upstream (usually Limit(Direct(dev))).
func Caching(upstream Resource, opts CachingOptions) *CachingPool {
	p := &CachingPool{
		dev:         upstream.Device(),
		up:          upstream,
		opts:        opts,
		frontBlocks: opts.FrontBlocks,
		frontBytes:  opts.FrontBytes,
		ordered:     isStreamOrdered(upstream),
		poison:      opts.Poison || host.Checking(),
	}
	if p.frontBlocks == 0 {
		p.frontBlocks = defaultFrontBlocks
	}
	if p.frontBytes == 0 {
		p.frontBytes = defaultFrontBytes
	}
	p.reg.Store(&registry{m: map[*device.Stream]*streamCache{}})
	return p
}

// Device is the pool's device.
func (p *CachingPool) Device() *device.Device { return p.dev }

// Upstream is the resource the pool obtains segments from.
func (p *CachingPool) Upstream() Resource { return p.up }

// Options are the options the pool was made with.
func (p *CachingPool) Options() CachingOptions { return p.opts }

// roundSize rounds a request to the pool's granularity.
func roundSize(n uint64) uint64 {
	if n < minBlockSize {
		return minBlockSize
	}
	return (n + minBlockSize - 1) &^ (minBlockSize - 1)
}

func roundUp(n, to uint64) uint64 { return (n + to - 1) / to * to }

// smallSegmentSize is the size of the next small segment when small
// segments already reserve reserved bytes.
func smallSegmentSize(reserved uint64) uint64 {
	return min(max(reserved/8/smallSegment*smallSegment, smallSegment), maxSmallSegment)
}

// segmentSize is the segment obtained upstream for a request of size bytes
// (the first segment, for a small one).
//
// A mid-size request (1 to 10 MiB) gets room for as many blocks of its size
// as fit in largeSegment, rounded up to roundLarge, rather than PyTorch's
// 20 MiB: programs repeat their sizes (a batch per step), and 20 MiB holds
// two 7.8 MiB blocks with 4.4 MiB left that only a smaller large request
// could use. Under a hard limit that remainder is memory nothing can have;
// with the segment cut to the blocks it is at most roundLarge.
func segmentSize(size uint64) uint64 {
	switch {
	case size <= smallSize:
		return smallSegment
	case size < minLargeAlloc:
		return roundUp(largeSegment/size*size, roundLarge)
	default:
		return roundUp(size, roundLarge)
	}
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
	sc := p.streamCache(s)
	class := roundSize(n)
	if p.frontBlocks > 0 {
		sc.mu.Lock()
		if b := sc.take(class); b != nil {
			b.state = stateAllocated
			sc.sh.add(b.size)
			over := sc.sh.over()
			sc.mu.Unlock()
			if over {
				p.peaks.recompute(p.streams(), sc)
			}
			b.req = n
			return b, nil
		}
		sc.mu.Unlock()
	}
	b, err := p.allocSlow(sc, class)
	if err != nil {
		return nil, err
	}
	b.req, b.class = n, class
	sc.mu.Lock()
	sc.sh.add(b.size)
	over := sc.sh.over()
	sc.mu.Unlock()
	if over {
		p.peaks.recompute(p.streams(), sc)
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

// unlock drops the pool's lock and frees the segments released under it.
func (p *CachingPool) unlock() error {
	rel := p.release
	p.release = nil
	p.mu.Unlock()
	var first error
	for _, up := range rel {
		if err := p.up.Free(up); err != nil && first == nil {
			first = err
		}
	}
	return first
}

func (p *CachingPool) indexOf(b *Block) *index {
	if b.seg.small {
		return &p.small
	}
	return &p.large
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
	return nil
}

// grow obtains a segment for a request of size bytes and carves it.
func (p *CachingPool) grow(sc *streamCache, size uint64) (*Block, error) {
	segSize := segmentSize(size)
	if size <= smallSize {
		p.mu.Lock()
		segSize = smallSegmentSize(p.a.smallReserved)
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

// exhausted is the ladder run when upstream refuses a segment: each step
// once, retrying after each.
func (p *CachingPool) exhausted(sc *streamCache, size uint64, cause error) (*Block, error) {
	retry := func() (*Block, error) {
		p.mu.Lock()
		p.flushFrontsLocked()
		p.collectLocked()
		b, err := p.bestFitLocked(sc, size)
		p.unlock()
		if b != nil || err != nil {
			return b, err
		}
		return p.grow(sc, size)
	}
	done := func(b *Block, err error) bool { return b != nil || err != nil && !isOOM(err) }

	// 1. Blocks freed after RecordUse: wait for their streams.
	p.mu.Lock()
	p.a.retries++
	p.flushFrontsLocked()
	if err := p.processPendingLocked(true); err != nil {
		p.unlock()
		return nil, err
	}
	p.unlock()
	b, err := retry()
	if done(b, err) {
		return b, err
	}
	// 2. The reclaimer (the GC's ladder).
	if r := p.reclaimer(); r != nil {
		for level := range ReclaimLevels {
			if !r.Reclaim(p.dev, size, level) {
				break
			}
			if b, err = retry(); done(b, err) {
				return b, err
			}
		}
	}
	// 3. Give back every idle segment, then try upstream once more.
	p.mu.Lock()
	p.flushFrontsLocked()
	p.collectLocked()
	relErr := p.releaseLocked(0, true)
	if e := p.unlock(); relErr == nil {
		relErr = e
	}
	if b, err = p.grow(sc, size); done(b, err) {
		return b, err
	}
	if err == nil {
		err = cause
	}
	if relErr != nil {
		err = errors.Join(err, relErr)
	}
	p.mu.Lock()
	p.a.ooms++
	p.mu.Unlock()
	return nil, p.oomError(size, err)
}

func (p *CachingPool) reclaimer() Reclaimer {
	if p.opts.Reclaimer != nil {
		return p.opts.Reclaimer
	}
	return globalReclaimer()
}

func (p *CachingPool) oomError(size uint64, cause error) error {
	return &OutOfMemoryError{Device: p.dev.String(), Requested: size, Stats: p.Stats(), Cause: cause}
}

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
	if len(b.uses) == 0 && p.frontBlocks > 0 && !sc.dead {
		if p.poison {
			_ = sc.stream.Memset8(b.ptr, host.PoisonByte, b.size)
		}
		sc.push(b)
		spill := sc.count > p.frontBlocks || sc.bytes > p.frontBytes && sc.count > 1
		sc.mu.Unlock()
		if spill {
			p.spill(sc)
		}
		return nil
	}
	b.state = stateFreeing
	sc.mu.Unlock()
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
				_ = sc.stream.Memset8(b.ptr, host.PoisonByte, b.size)
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
				_ = sc.stream.Memset8(b.ptr, host.PoisonByte, b.size)
			}
			b.waits = append(b.waits, p.lazyRef(sc))
		}
		p.insertFreeLocked(b)
	}
	clear(p.pending[len(kept):])
	p.pending = kept
	return first
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

// insertFreeLocked makes b free: it merges b with free neighbours and puts
// the result in the index.
func (p *CachingPool) insertFreeLocked(b *Block) {
	if pr := b.prev; pr != nil && pr.indexed {
		p.removeIndexLocked(pr)
		pr.size += b.size
		pr.next = b.next
		if b.next != nil {
			b.next.prev = pr
		}
		p.mergeWaitsLocked(pr, b)
		p.recycleLocked(b)
		b = pr
	}
	if nx := b.next; nx != nil && nx.indexed {
		p.removeIndexLocked(nx)
		b.size += nx.size
		b.next = nx.next
		if nx.next != nil {
			nx.next.prev = b
		}
		p.mergeWaitsLocked(b, nx)
		p.recycleLocked(nx)
	}
	p.insertIndexLocked(b)
}

func (p *CachingPool) insertIndexLocked(b *Block) {
	b.state, b.indexed = stateFree, true
	p.indexOf(b).insert(b)
	if b.prev != nil || b.next != nil {
		p.a.splitBytes.add(b.size)
		p.a.splitN.add(1)
	}
}

func (p *CachingPool) removeIndexLocked(b *Block) {
	p.indexOf(b).remove(b)
	b.state, b.indexed = stateFreeing, false
	if b.prev != nil || b.next != nil {
		p.a.splitBytes.sub(b.size)
		p.a.splitN.sub(1)
	}
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
	*b = Block{owner: p, waits: waits, uses: uses}
	p.spare = append(p.spare, b)
}

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

// Stats reports the pool's statistics.
func (p *CachingPool) Stats() Stats {
	st := Stats{Kind: KindCaching, Device: p.dev.String(), SoftLimit: p.opts.SoftLimit}
	p.mu.Lock()
	r := p.reg.Load()
	for _, sc := range r.all {
		sc.mu.Lock()
		st.FrontCachedBytes += sc.bytes
		sc.mu.Unlock()
	}
	st.CachedBytes = st.FrontCachedBytes + p.small.bytes + p.large.bytes
	st.FreeBlocks = uint64(p.small.n + p.large.n)
	for _, x := range []*index{&p.small, &p.large} {
		if b := x.largest(); b != nil {
			st.LargestFreeBlock = max(st.LargestFreeBlock, b.size)
		}
	}
	st.AllocatedBytes, st.Allocations, st.ActiveBytes, st.ActiveBlocks = p.peaks.read(r.all)
	a := &p.a
	st.ReservedBytes, st.Segments = a.reserved, a.segments
	st.InactiveSplitBytes, st.InactiveSplitBlocks = a.splitBytes, a.splitN
	st.AllocRetries, st.OOMs = a.retries, a.ooms
	st.SegmentsObtained, st.SegmentsReleased = a.obtained, a.released
	st.CrossStreamWaits, st.EventQueries, st.Synchronizations = a.crossWaits, a.queries, a.syncs
	p.mu.Unlock()
	st.HardLimit = p.up.Stats().HardLimit
	return st
}

func (p *CachingPool) streamOrdered() bool { return false }
