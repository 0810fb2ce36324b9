package memory

import (
	"errors"
	"fmt"
	"runtime"
	"slices"
	"sync"

	"github.com/gpuarr/gpuarr/device"
)

// KindExpandable is Stats.Kind of an Expandable resource.
const KindExpandable = "expandable"

// ExpandableOptions configure an Expandable resource.
type ExpandableOptions struct {
	// Reserve is the size of the address range reserved once, in bytes
	// (rounded up to the granularity). 0 reserves the device's total
	// memory, so the resource can never run out of addresses before the
	// device runs out of memory.
	Reserve uint64
}

// expandable is the Expandable resource: one address reservation, blocks
// placed in it first fit from its start, and physical memory mapped under
// them granule by granule (2 MiB on current GPUs). A granule is mapped
// while a live block touches it and unmapped when the last one is freed.
type expandable struct {
	dev *device.Device
	r   *device.AddressRange

	mu    sync.Mutex
	free  []span         // free address spans, sorted by offset, coalesced
	users map[uint64]int // live blocks touching each mapped granule, by granule offset
	u     usage
	peak  Stat // mapped bytes
}

// span is [off, off+n) of the reservation.
type span struct{ off, n uint64 }

// Expandable is an upstream resource whose memory grows in place: it
// reserves one large range of device addresses and maps physical memory
// into it in granules as blocks are allocated (cuMemAddressReserve,
// cuMemCreate, cuMemMap, cuMemSetAccess), unmapping a granule when no block
// uses it any more. Under a caching pool, successive segments are adjacent
// addresses of one reservation and cost their size rounded up to one
// granule, instead of fixed-size segments anywhere in memory (PyTorch's
// expandable_segments). Blocks are rounded up to 512 bytes. A device without
// virtual memory management fails with an error matching
// device.ErrNotSupported; use Direct there.
func Expandable(dev *device.Device, opts ExpandableOptions) (Resource, error) {
	size := opts.Reserve
	if size == 0 {
		_, total, err := dev.MemInfo()
		if err != nil {
			return nil, err
		}
		size = total
	}
	r, err := dev.ReserveAddresses(size)
	if err != nil {
		return nil, fmt.Errorf("memory.Expandable: %w", err)
	}
	e := &expandable{dev: dev, r: r, free: []span{{0, r.Size()}}, users: map[uint64]int{}}
	// Blocks point to their resource, so an unreachable one has none left:
	// give its addresses back.
	runtime.AddCleanup(e, func(r *device.AddressRange) { _ = r.Free() }, r)
	return e, nil
}

func (e *expandable) Device() *device.Device { return e.dev }

// granules returns the granule offsets [lo, hi) that [off, off+n) touches.
func (e *expandable) granules(off, n uint64) (lo, hi uint64) {
	g := e.r.Granularity()
	return off / g * g, roundUp(off+n, g)
}

func (e *expandable) Alloc(s *device.Stream, n uint64) (*Block, error) {
	s, err := checkStream("Expandable.Alloc", e.dev, s)
	if err != nil {
		return nil, err
	}
	if n > maxRequest {
		return nil, invalid("Expandable.Alloc", "%d bytes is too large", n)
	}
	size := roundUp(max(n, 1), minBlockSize)
	e.mu.Lock()
	defer e.mu.Unlock()
	i := slices.IndexFunc(e.free, func(f span) bool { return f.n >= size })
	if i < 0 {
		e.u.ooms.Add(1)
		return nil, fmt.Errorf("memory.Expandable: %d bytes: the %d-byte address reservation is full: %w",
			n, e.r.Size(), device.ErrOutOfMemory)
	}
	off := e.free[i].off
	if err := e.mapLocked(off, size); err != nil {
		if isOOM(err) {
			e.u.ooms.Add(1)
		}
		return nil, err
	}
	if e.free[i].n == size {
		e.free = slices.Delete(e.free, i, i+1)
	} else {
		e.free[i].off += size
		e.free[i].n -= size
	}
	e.u.alloc(size)
	return &Block{ptr: e.r.Base().Add(off), size: size, class: size, req: n, stream: s, owner: e, state: stateAllocated}, nil
}

// mapLocked maps the granules under [off, off+n) that are not mapped and
// counts the block as their user.
func (e *expandable) mapLocked(off, n uint64) error {
	lo, hi := e.granules(off, n)
	if err := e.r.Map(lo, hi-lo); err != nil {
		// Map undid its own mappings; granules mapped before stay.
		return err
	}
	for g := lo; g < hi; g += e.r.Granularity() {
		e.users[g]++
	}
	if m := e.mappedLocked(); m > e.peak.Peak {
		e.peak.Peak = m
	}
	return nil
}

func (e *expandable) mappedLocked() uint64 { return uint64(len(e.users)) * e.r.Granularity() }

// Free waits for the streams that used b (as Direct does: unmapping is not
// stream-ordered), then returns its addresses and unmaps the granules no
// other block uses.
func (e *expandable) Free(b *Block) error {
	if b == nil || b.owner != e {
		return invalid("Expandable.Free", "%v was not allocated by this resource", b)
	}
	e.mu.Lock()
	if b.state != stateAllocated {
		e.mu.Unlock()
		return invalid("Expandable.Free", "%v is already freed", b)
	}
	b.state = stateFreeing
	uses := b.uses
	b.uses = nil
	e.mu.Unlock()
	if !b.nosync {
		for _, s := range append([]*device.Stream{b.stream}, uses...) {
			if err := s.Synchronize(); err != nil && !errors.Is(err, device.ErrClosed) {
				return err
			}
		}
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	off := uint64(b.ptr - e.r.Base())
	lo, hi := e.granules(off, b.size)
	var first error
	for g := lo; g < hi; g += e.r.Granularity() {
		if e.users[g]--; e.users[g] == 0 {
			delete(e.users, g)
			if err := e.r.Unmap(g, e.r.Granularity()); err != nil && first == nil {
				first = err
			}
		}
	}
	e.insertFreeLocked(span{off, b.size})
	e.u.free(b.size)
	b.state = stateSpare
	return first
}

// insertFreeLocked returns sp to the free list, merging neighbours.
func (e *expandable) insertFreeLocked(sp span) {
	i, _ := slices.BinarySearchFunc(e.free, sp.off, func(f span, off uint64) int {
		switch {
		case f.off < off:
			return -1
		case f.off > off:
			return 1
		}
		return 0
	})
	e.free = slices.Insert(e.free, i, sp)
	if i+1 < len(e.free) && e.free[i].off+e.free[i].n == e.free[i+1].off {
		e.free[i].n += e.free[i+1].n
		e.free = slices.Delete(e.free, i+1, i+2)
	}
	if i > 0 && e.free[i-1].off+e.free[i-1].n == e.free[i].off {
		e.free[i-1].n += e.free[i].n
		e.free = slices.Delete(e.free, i, i+1)
	}
}

func (e *expandable) RecordUse(b *Block, s *device.Stream) error {
	return recordUse("Expandable.RecordUse", e, e.dev, &e.mu, b, s)
}

// Stats: ReservedBytes is the physical memory mapped now (the addresses
// reserved cost nothing), Segments the one reservation.
func (e *expandable) Stats() Stats {
	s := Stats{Kind: KindExpandable, Device: e.dev.String()}
	e.u.fill(&s)
	e.mu.Lock()
	s.ReservedBytes = Stat{Current: e.mappedLocked(), Peak: e.peak.Peak}
	e.mu.Unlock()
	s.Segments = Stat{Current: 1, Peak: 1}
	s.SegmentsObtained, s.SegmentsReleased = e.u.allocs.Load(), e.u.frees.Load()
	return s
}

// EmptyCache and Trim have nothing to do: granules are unmapped as soon as
// no block uses them.
func (e *expandable) EmptyCache() error      { return nil }
func (e *expandable) Trim(keep uint64) error { return nil }
