package memory

import (
	"errors"
	"sync"
	"sync/atomic"

	"github.com/gpuarr/gpuarr/device"
)

// direct is the Direct resource.
type direct struct {
	dev *device.Device
	mu  sync.Mutex // block states and uses
	u   usage
	// outside is the device's count of memory held outside its default
	// resource, which this resource's blocks add to (nil for the default
	// resource's own upstream, whose segments its Stats count).
	outside *atomic.Uint64
}

// outsideHeld holds, per device, the device memory this process holds
// through Direct resources other than the default resource's upstream
// (graph pools, a caller's own): managed memory's room (managedroom.go)
// must not take it for resident managed memory.
var outsideHeld sync.Map // *device.Device -> *atomic.Uint64

func heldOutside(dev *device.Device) *atomic.Uint64 {
	if c, ok := outsideHeld.Load(dev); ok {
		return c.(*atomic.Uint64)
	}
	c, _ := outsideHeld.LoadOrStore(dev, new(atomic.Uint64))
	return c.(*atomic.Uint64)
}

// outsideBytes is the device memory held through Direct resources other
// than the default resource's upstream.
func outsideBytes(dev *device.Device) uint64 {
	if c, ok := outsideHeld.Load(dev); ok {
		return c.(*atomic.Uint64).Load()
	}
	return 0
}

// Direct allocates every block from the driver (cuMemAlloc) and frees it
// back (cuMemFree): no caching at all, tens of microseconds a call on a GPU.
// It is the upstream of the caching pool and the GPUARR_MEMORY_POOL=none
// choice. Free waits for the block's stream and the streams declared with
// RecordUse before freeing, since a synchronous free is not stream-ordered.
//
// The memory it holds counts as this process's device memory when
// managed memory's room is judged (see unified.OversubscribeError).
func Direct(dev *device.Device) Resource { return &direct{dev: dev, outside: heldOutside(dev)} }

// newDirect is Direct for the default resource's upstream, whose reserved
// bytes the default resource's Stats report.
func newDirect(dev *device.Device) *direct { return &direct{dev: dev} }

func (d *direct) Device() *device.Device { return d.dev }

func (d *direct) Alloc(s *device.Stream, n uint64) (*Block, error) {
	s, err := checkStream("Direct.Alloc", d.dev, s)
	if err != nil {
		return nil, err
	}
	size := max(n, 1)
	p, err := d.dev.Alloc(size)
	if err != nil {
		if isOOM(err) {
			d.u.ooms.Add(1)
		}
		return nil, err
	}
	d.u.alloc(size)
	if d.outside != nil {
		d.outside.Add(size)
	}
	return &Block{ptr: p, size: size, class: size, req: n, stream: s, owner: d, state: stateAllocated}, nil
}

func (d *direct) Free(b *Block) error {
	if b == nil || b.owner != d {
		return invalid("Direct.Free", "%v was not allocated by this resource", b)
	}
	d.mu.Lock()
	if b.state != stateAllocated {
		d.mu.Unlock()
		return invalid("Direct.Free", "%v is already freed", b)
	}
	b.state = stateFreeing
	uses := b.uses
	b.uses = nil
	d.mu.Unlock()
	if !b.nosync {
		for _, s := range append([]*device.Stream{b.stream}, uses...) {
			if err := s.Synchronize(); err != nil && !errors.Is(err, device.ErrClosed) {
				return err
			}
		}
	}
	if err := d.dev.Free(b.ptr); err != nil {
		return err
	}
	d.u.free(b.size)
	if d.outside != nil {
		d.outside.Add(^(b.size - 1))
	}
	return nil
}

func (d *direct) RecordUse(b *Block, s *device.Stream) error {
	return recordUse("Direct.RecordUse", d, d.dev, &d.mu, b, s)
}

func (d *direct) Stats() Stats {
	s := Stats{Kind: KindDirect, Device: d.dev.String()}
	d.u.fill(&s)
	s.ReservedBytes, s.Segments = s.AllocatedBytes, s.Allocations
	s.SegmentsObtained, s.SegmentsReleased = d.u.allocs.Load(), d.u.frees.Load()
	return s
}

func (d *direct) EmptyCache() error      { return nil }
func (d *direct) Trim(keep uint64) error { return nil }
