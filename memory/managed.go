package memory

import (
	"errors"
	"sync"

	"github.com/gpuarr/gpuarr/device"
)

// managed is the Managed resource.
type managed struct {
	dev  *device.Device
	hard func() (limit, used uint64) // the default resource's hard limit and reserved bytes; nil: none
	mu   sync.Mutex
	u    usage
}

// Managed allocates every block as managed memory (cuMemAllocManaged):
// one address for the device and the CPU. Like Direct it caches nothing
// and its Free waits for the block's streams first (managed memory is
// rare and large; a cache would hold pages the CPU may want). It checks no
// free memory: package unified refuses oversubscription before it asks.
func Managed(dev *device.Device) Resource { return &managed{dev: dev} }

// DefaultManaged is Managed for dev, charged to the hard limit of dev's
// default resource (GPUARR_HARD_MEMORY_LIMIT): a managed allocation is
// refused when the default resource's reserved bytes, the managed bytes in
// use and the request together pass the limit. The default resource does
// not see managed bytes in turn (its Limit counts its own segments).
//
// Each allocation is announced to the process-wide Pressure first
// (SetPressure), as the default resource's are: managed bytes count as
// live device memory to package gcpressure. An allocation that fails for
// lack of memory (the limit, or the driver) climbs the exhaustion ladder
// the default resource climbs (exhaustion.go): the process-wide
// reclaimer's levels with a retry after each (package gcpressure's
// collections free unreachable arrays, managed ones too), then the default
// resource gives its cached segments back, which the limit and the driver
// count, and a last retry; only then does it fail, with an
// *OutOfMemoryError.
func DefaultManaged(dev *device.Device) (Resource, error) {
	managedDefaults.mu.Lock()
	defer managedDefaults.mu.Unlock()
	if r := managedDefaults.m[dev]; r != nil {
		return r, nil
	}
	def, err := Default(dev)
	if err != nil {
		return nil, err
	}
	m := &managed{dev: dev}
	if hl := def.Stats().HardLimit; hl > 0 {
		m.hard = func() (uint64, uint64) { return hl, def.Stats().ReservedBytes.Current }
	}
	var r Resource = &reclaiming{upstream: upstream{m}, giveBack: func() error { return errors.Join(m.EmptyCache(), def.EmptyCache()) }}
	r = &pressured{upstream{r}}
	if managedDefaults.m == nil {
		managedDefaults.m = map[*device.Device]Resource{}
	}
	managedDefaults.m[dev] = r
	return r, nil
}

// ManagedUse reports the managed memory of dev: bytes allocated through
// DefaultManaged and not yet freed, and resident, an upper bound of how
// many of them occupy the device's memory now, given the driver's free
// and total memory (Device.MemInfo). The driver counts managed pages as
// used once they migrate to the device (the host backend, from the
// allocation on), so resident is what the driver counts as used beyond
// the default resource's reserved bytes, at most bytes. Memory that other
// processes hold counts as resident too, so the bound may be high.
func ManagedUse(dev *device.Device, free, total uint64) (bytes, resident uint64) {
	managedDefaults.mu.Lock()
	r := managedDefaults.m[dev]
	managedDefaults.mu.Unlock()
	if r == nil {
		return 0, 0
	}
	bytes = r.Stats().AllocatedBytes.Current
	var reserved uint64
	if def, err := Default(dev); err == nil {
		reserved = def.Stats().ReservedBytes.Current
	}
	used := total - min(free, total)
	return bytes, min(bytes, used-min(reserved, used))
}

var managedDefaults struct {
	mu sync.Mutex
	m  map[*device.Device]Resource
}

func (m *managed) Device() *device.Device { return m.dev }

func (m *managed) Alloc(s *device.Stream, n uint64) (*Block, error) {
	s, err := checkStream("Managed.Alloc", m.dev, s)
	if err != nil {
		return nil, err
	}
	size := max(n, 1)
	if m.hard != nil {
		// Serialized so two requests cannot both pass the check.
		m.mu.Lock()
		defer m.mu.Unlock()
		limit, used := m.hard()
		mine := m.u.bytes.stat().Current
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
	m.u.alloc(size)
	b := &Block{ptr: p, size: size, class: size, req: n, stream: s, owner: m, state: stateAllocated}
	b.prof = sampleOther(kindManaged, m.dev, size, 0)
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
	if m.hard != nil {
		s.HardLimit, _ = m.hard()
	}
	return s
}

func (m *managed) EmptyCache() error      { return nil }
func (m *managed) Trim(keep uint64) error { return nil }

// KindManaged is the Stats.Kind of Managed.
const KindManaged = "managed"
