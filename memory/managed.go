package memory

import (
	"errors"
	"sync"
	"sync/atomic"

	"github.com/gpuarr/gpuarr/device"
)

// managed is the Managed resource.
type managed struct {
	dev *device.Device
	// share is what a device's default managed resources have in common
	// (the bytes they hold, the hard limit); nil for Managed(dev).
	share *managedShare
	// sampled: the blocks are arrays' memory, sampled for the profile
	// (not the segments of a caching pool, which samples its own blocks).
	sampled bool
	mu      sync.Mutex // block states and uses
	u       usage
}

// managedShare is what the managed resources of one device's default
// managed memory share (manageddefault.go): the bytes they hold from the
// driver, and the default resource's hard limit they are charged to.
type managedShare struct {
	bytes atomic.Uint64
	// hard is the default resource's hard limit and reserved bytes; nil:
	// no limit. Checks against it are serialized (mu), so two requests
	// cannot both pass it.
	hard func() (limit, reserved uint64)
	mu   sync.Mutex
}

// Managed allocates every block as managed memory (cuMemAllocManaged):
// one address for the device and the CPU. Like Direct it caches nothing
// and its Free waits for the block's streams first. It checks no free
// memory and charges nothing: DefaultManaged is the managed memory arrays
// use.
func Managed(dev *device.Device) Resource { return &managed{dev: dev, sampled: true} }

func (m *managed) Device() *device.Device { return m.dev }

func (m *managed) Alloc(s *device.Stream, n uint64) (*Block, error) {
	s, err := checkStream("Managed.Alloc", m.dev, s)
	if err != nil {
		return nil, err
	}
	size := max(n, 1)
	if sh := m.share; sh != nil && sh.hard != nil {
		sh.mu.Lock()
		defer sh.mu.Unlock()
		limit, used := sh.hard()
		mine := sh.bytes.Load()
		if size > limit || used+mine > limit-size {
			m.u.ooms.Add(1)
			return nil, device.Errorf("memory.Managed", device.OutOfMemory,
				"%d bytes of managed memory requested on %s with %d reserved and %d managed bytes in use under the %d-byte hard limit (%s)",
				n, m.dev, used, mine, limit, EnvHardLimit)
		}
	}
	p, err := m.dev.AllocManaged(size)
	if err != nil {
		if isOOM(err) {
			m.u.ooms.Add(1)
		}
		return nil, err
	}
	if m.share != nil {
		m.share.bytes.Add(size)
	}
	m.u.alloc(size)
	b := &Block{ptr: p, size: size, class: size, req: n, stream: s, owner: m, state: stateAllocated, fresh: true}
	if m.sampled {
		b.prof = sampleOther(kindManaged, m.dev, size, 0)
	}
	return b, nil
}

func (m *managed) Free(b *Block) error {
	if b == nil || b.owner != m {
		return invalid("Managed.Free", "%v was not allocated by this resource", b)
	}
	m.mu.Lock()
	if b.state != stateAllocated {
		m.mu.Unlock()
		return invalid("Managed.Free", "%v is already freed", b)
	}
	b.state = stateFreeing
	uses := b.uses
	b.uses = nil
	m.mu.Unlock()
	for _, s := range append([]*device.Stream{b.stream}, uses...) {
		if err := s.Synchronize(); err != nil && !errors.Is(err, device.ErrClosed) {
			return err
		}
	}
	if err := m.dev.Free(b.ptr); err != nil {
		return err
	}
	if m.share != nil {
		m.share.bytes.Add(^(b.size - 1))
	}
	m.u.free(b.size)
	unsample(b)
	return nil
}

func (m *managed) RecordUse(b *Block, s *device.Stream) error {
	return recordUse("Managed.RecordUse", m, m.dev, &m.mu, b, s)
}

func (m *managed) Stats() Stats {
	s := Stats{Kind: KindManaged, Device: m.dev.String()}
	m.u.fill(&s)
	s.ReservedBytes, s.Segments = s.AllocatedBytes, s.Allocations
	s.SegmentsObtained, s.SegmentsReleased = m.u.allocs.Load(), m.u.frees.Load()
	if m.share != nil && m.share.hard != nil {
		s.HardLimit, _ = m.share.hard()
	}
	return s
}

func (m *managed) EmptyCache() error      { return nil }
func (m *managed) Trim(keep uint64) error { return nil }

// KindManaged is the Stats.Kind of Managed.
const KindManaged = "managed"
