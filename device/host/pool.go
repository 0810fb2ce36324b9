package host

import (
	"errors"
	"sync"

	"github.com/gpuarr/gpuarr/device/driver"
)

// memPool is a simple stream-ordered pool over the device's raw memory, in
// the way cuMemPool works:
//
//   - A block freed on stream S may be handed out again at once to work on
//     S (stream order makes that safe), and to any stream once the free has
//     executed on S.
//   - Blocks are whole mappings in 512-byte size classes, reused only by
//     requests of the same class; there is no splitting (the caching
//     allocator in package memory does that).
//   - Reserved memory beyond the release threshold is unmapped as soon as a
//     free executes, where CUDA trims at the next synchronization; TrimTo
//     and SetReleaseThreshold trim at once.
//   - In checking mode a block is poisoned when its free executes, before
//     any other user can see it.
type memPool struct {
	dev *device

	mu             sync.Mutex
	threshold      uint64
	cache          map[uint64][]*poolBlock // by size class
	reserved, used uint64
	closed         bool
}

// poolBlock is a freed block waiting for reuse.
type poolBlock struct {
	a      *allocation
	stream *stream // where it was freed
	ready  bool    // the free has executed: any stream may take it
	taken  bool    // handed out again before its free executed
}

const poolGranularity = 512

// NewMemPool creates a pool keeping up to releaseThreshold bytes reserved.
func (d *device) NewMemPool(releaseThreshold uint64) (driver.MemPool, error) {
	if err := d.symbol("cuMemPoolCreate"); err != nil {
		return nil, err
	}
	return &memPool{dev: d, threshold: releaseThreshold, cache: map[uint64][]*poolBlock{}}, nil
}

func asStream(call string, s driver.Stream) (*stream, error) {
	st, ok := s.(*stream)
	if !ok {
		return nil, errorf(call, driver.InvalidHandle, "%T is not a host stream", s)
	}
	return st, nil
}

// AllocAsync hands out a cached block usable on s, or maps a new one.
func (p *memPool) AllocAsync(n uint64, s driver.Stream) (driver.Ptr, error) {
	const call = "cuMemAllocFromPoolAsync"
	if err := p.dev.symbol(call); err != nil {
		return 0, err
	}
	st, err := asStream(call, s)
	if err != nil {
		return 0, err
	}
	if err := st.refuseCapture(call, false); err != nil {
		return 0, err
	}
	if n == 0 {
		return 0, errorf(call, driver.InvalidValue, "size 0")
	}
	size := (n + poolGranularity - 1) / poolGranularity * poolGranularity
	if size < n {
		return 0, errorf(call, driver.OutOfMemory, "%s: requested %d bytes", p.dev, n)
	}
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return 0, errorf(call, driver.Closed, "memory pool of %s is destroyed", p.dev)
	}
	if b := p.takeLocked(size, st); b != nil {
		p.used += size
		b.a.freeQueued.Store(false)
		p.mu.Unlock()
		return driver.Ptr(b.a.base), nil
	}
	p.mu.Unlock()

	a, err := p.dev.allocate(call, size, p)
	if errors.Is(err, driver.ErrOutOfMemory) {
		// Give back what this pool caches and try once more.
		p.mu.Lock()
		drop := p.trimLocked(0)
		p.mu.Unlock()
		releaseAll(drop)
		a, err = p.dev.allocate(call, size, p)
	}
	if err != nil {
		return 0, err
	}
	p.mu.Lock()
	p.reserved += size
	p.used += size
	p.mu.Unlock()
	return driver.Ptr(a.base), nil
}

// takeLocked removes and returns a cached block of the size class that s
// may use now, or nil.
func (p *memPool) takeLocked(size uint64, s *stream) *poolBlock {
	list := p.cache[size]
	for i := len(list) - 1; i >= 0; i-- {
		if b := list[i]; b.ready || b.stream == s {
			p.cache[size] = append(list[:i], list[i+1:]...)
			b.taken = true
			return b
		}
	}
	return nil
}

// FreeAsync returns p's block to the pool in s's order.
func (p *memPool) FreeAsync(ptr driver.Ptr, s driver.Stream) error {
	const call = "cuMemFreeAsync"
	if err := p.dev.symbol(call); err != nil {
		return err
	}
	st, err := asStream(call, s)
	if err != nil {
		return err
	}
	a, err := liveBase(call, ptr)
	if err != nil {
		return err
	}
	if a.pool != p {
		return errorf(call, driver.InvalidValue, "%v was not allocated from this pool of %s", ptr, p.dev)
	}
	return p.free(call, a, st)
}

// free caches a's block (usable at once on s) and queues the free on s.
func (p *memPool) free(call string, a *allocation, s *stream) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !a.freeQueued.CompareAndSwap(false, true) {
		return errorf(call, driver.InvalidValue, "%#x is already freed", a.base)
	}
	b := &poolBlock{a: a, stream: s}
	// Queue before publishing the block, under the pool's lock: work that
	// reuses it on s then comes after the free (and its poisoning).
	if err := s.enqueueLive(call, func() error { p.completed(b); return nil }); err != nil {
		a.freeQueued.Store(false)
		return err
	}
	p.used -= a.size
	p.cache[a.size] = append(p.cache[a.size], b)
	return nil
}

// completed runs on the freeing stream when the free is reached.
func (p *memPool) completed(b *poolBlock) {
	if p.dev.sys.cfg.check {
		// Whoever reuses the block, on this stream or later on another,
		// comes after this point: it sees poison, not the old contents.
		Poison(b.a.mem)
	}
	p.mu.Lock()
	var drop []*allocation
	if !b.taken {
		b.ready = true
		if p.closed {
			p.removeLocked(b)
			drop = []*allocation{b.a}
		} else {
			drop = p.trimLocked(p.threshold)
		}
	}
	p.mu.Unlock()
	releaseAll(drop)
}

func (p *memPool) removeLocked(b *poolBlock) {
	list := p.cache[b.a.size]
	for i, c := range list {
		if c == b {
			p.cache[b.a.size] = append(list[:i], list[i+1:]...)
			p.reserved -= b.a.size
			return
		}
	}
}

// trimLocked takes ready blocks out of the cache until at most keep bytes
// stay reserved, and returns them for unmapping outside the lock.
func (p *memPool) trimLocked(keep uint64) []*allocation {
	var drop []*allocation
	for size, list := range p.cache {
		kept := list[:0]
		for _, b := range list {
			if b.ready && p.reserved > keep {
				p.reserved -= size
				drop = append(drop, b.a)
			} else {
				kept = append(kept, b)
			}
		}
		clear(list[len(kept):])
		if len(kept) == 0 {
			delete(p.cache, size)
		} else {
			p.cache[size] = kept
		}
	}
	return drop
}

func releaseAll(drop []*allocation) {
	for _, a := range drop {
		a.release()
	}
}

// SetReleaseThreshold changes the bytes kept reserved and trims to it.
func (p *memPool) SetReleaseThreshold(n uint64) error {
	if err := p.dev.symbol("cuMemPoolSetAttribute"); err != nil {
		return err
	}
	p.mu.Lock()
	p.threshold = n
	drop := p.trimLocked(n)
	p.mu.Unlock()
	releaseAll(drop)
	return nil
}

// TrimTo unmaps cached blocks until at most keep bytes stay reserved
// (blocks whose free has not executed yet stay).
func (p *memPool) TrimTo(keep uint64) error {
	if err := p.dev.symbol("cuMemPoolTrimTo"); err != nil {
		return err
	}
	p.mu.Lock()
	drop := p.trimLocked(keep)
	p.mu.Unlock()
	releaseAll(drop)
	return nil
}

// Usage reports reserved (mapped) and used (handed out) bytes.
func (p *memPool) Usage() (reserved, used uint64, err error) {
	if err := p.dev.symbol("cuMemPoolGetAttribute"); err != nil {
		return 0, 0, err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.reserved, p.used, nil
}

// Close destroys the pool: cached blocks are unmapped now, blocks still in
// use when their free executes (cuMemPoolDestroy's rule).
func (p *memPool) Close() error {
	const call = "cuMemPoolDestroy"
	if err := p.dev.symbol(call); err != nil {
		return err
	}
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return errorf(call, driver.Closed, "memory pool of %s destroyed twice", p.dev)
	}
	p.closed = true
	drop := p.trimLocked(0)
	p.mu.Unlock()
	releaseAll(drop)
	return nil
}
