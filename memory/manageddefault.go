package memory

import (
	"errors"
	"sync"

	"github.com/gpuarr/gpuarr/device"
)

// A device's default managed memory: the managed memory arrays get
// (package unified's constructors, and every array under
// GPUARR_DEFAULT_MEMORY=unified), built once per device beside its
// default resource.
type managedDefault struct {
	dev     *device.Device
	share   *managedShare
	arrays  Resource // DefaultManaged
	oversub Resource // DefaultManagedOversubscribing
}

var managedDefaults struct {
	mu sync.Mutex
	m  map[*device.Device]*managedDefault
}

// DefaultManaged returns dev's managed memory for arrays, built on first
// use (after dev's default resource, whose errors it returns):
//
//	Caching(admitted(Managed(dev)))
//
// a caching pool as the default resource's, over managed memory: a
// request its cache holds makes no driver call (cuMemAllocManaged is
// synchronous and slow), and freed blocks are reused in stream order as
// device memory is. The pool keeps GPUARR_SOFT_MEMORY_LIMIT like the
// default resource. Each segment it obtains is admitted first:
//
//   - refused with an *OversubscribeError (matching device.ErrOutOfMemory)
//     when dev's free memory cannot hold it beside the managed memory
//     obtained earlier and not yet resident on dev, after the default
//     resource gave its idle segments back;
//   - charged to the default resource's hard limit
//     (GPUARR_HARD_MEMORY_LIMIT) with that resource's reserved bytes;
//   - charged to the host-memory account installed when the resource was
//     built (SetHostAccount); its refusal matches device.ErrOutOfMemory
//     too.
//
// Each allocation is announced to the process-wide Pressure first
// (SetPressure). A segment refused for lack of memory (device or system
// memory) makes the pool climb the exhaustion ladder (the reclaimer's
// levels, then its idle segments go back to the driver); only then does it
// fail, with an *OutOfMemoryError whose cause is the refusal.
//
// In checking mode (Device.Checking) and under GPUARR_MEMORY_POOL=none
// nothing is cached: each block is a managed allocation of its own,
// returned to the driver when freed (the host backend then quarantines it,
// so a CPU slice used after its array is gone faults), behind the same
// admission and the Reclaiming adaptor's ladder.
func DefaultManaged(dev *device.Device) (Resource, error) {
	md, err := managedDefaultFor(dev)
	if err != nil {
		return nil, err
	}
	return md.arrays, nil
}

// DefaultManagedOversubscribing is DefaultManaged without the refusal to
// oversubscribe, and without a cache (package unified's
// AllowOversubscribe): each block is a managed allocation of its own,
// charged to the hard limit and the host-memory account like
// DefaultManaged's segments, behind the Reclaiming adaptor's ladder.
func DefaultManagedOversubscribing(dev *device.Device) (Resource, error) {
	md, err := managedDefaultFor(dev)
	if err != nil {
		return nil, err
	}
	return md.oversub, nil
}

// IsDefaultManaged reports whether r is DefaultManaged(dev) or
// DefaultManagedOversubscribing(dev) (built already): memory the CPU
// addresses.
func IsDefaultManaged(dev *device.Device, r Resource) bool {
	if r == nil {
		return false
	}
	md := lookupManagedDefault(dev)
	return md != nil && (r == md.arrays || r == md.oversub)
}

func lookupManagedDefault(dev *device.Device) *managedDefault {
	managedDefaults.mu.Lock()
	defer managedDefaults.mu.Unlock()
	return managedDefaults.m[dev]
}

func managedDefaultFor(dev *device.Device) (*managedDefault, error) {
	managedDefaults.mu.Lock()
	defer managedDefaults.mu.Unlock()
	if md := managedDefaults.m[dev]; md != nil {
		return md, nil
	}
	def, err := Default(dev)
	if err != nil {
		return nil, err
	}
	st := def.Stats()
	sh := &managedShare{}
	if hl := st.HardLimit; hl > 0 {
		sh.hard = func() (uint64, uint64) { return hl, def.Stats().ReservedBytes.Current }
	}
	acct := hostAccountHook.load()
	md := &managedDefault{dev: dev, share: sh}
	uncached := func(room bool) Resource {
		raw := &managed{dev: dev, share: sh, sampled: true}
		var r Resource = &admitted{upstream: upstream{raw}, md: md, room: room, acct: acct}
		r = &reclaiming{upstream: upstream{r}, giveBack: md.giveBack}
		return &pressured{upstream{r}}
	}
	if _, checking := dev.Checking(); checking || st.Kind == KindDirect {
		md.arrays = uncached(true)
	} else {
		raw := &managed{dev: dev, share: sh}
		up := &admitted{upstream: upstream{raw}, md: md, room: true, acct: acct}
		md.arrays = Caching(up, CachingOptions{SoftLimit: st.SoftLimit, Pressure: true})
	}
	md.oversub = uncached(false)
	if managedDefaults.m == nil {
		managedDefaults.m = map[*device.Device]*managedDefault{}
	}
	managedDefaults.m[dev] = md
	return md, nil
}

// giveBack returns the cached memory of the managed pool and of the
// default resource: the last step of the uncached resources' ladder.
func (md *managedDefault) giveBack() error {
	err := md.arrays.EmptyCache()
	if def, derr := Default(md.dev); derr == nil {
		err = errors.Join(err, def.EmptyCache())
	}
	return err
}

// emptyManagedCache returns the managed pool's cached segments of dev, if
// it was built, to the driver.
func emptyManagedCache(dev *device.Device) {
	if md := lookupManagedDefault(dev); md != nil {
		_ = md.arrays.EmptyCache() // a failure leaves the memory where it was
	}
}

// admitted is the upstream of a device's default managed memory: each
// block it obtains is first checked against the device's free memory
// (room: the refusal to oversubscribe, managedroom.go) and charged to the
// host-memory account (acct, when one was installed).
type admitted struct {
	upstream
	md   *managedDefault
	room bool
	acct HostAccount
}

func (a *admitted) Alloc(s *device.Stream, n uint64) (*Block, error) {
	if a.room {
		if err := makeRoom(a.md, n); err != nil {
			return nil, err
		}
	}
	if a.acct != nil {
		if err := a.acct.Charge(n); err != nil {
			return nil, &hostRefusal{err}
		}
	}
	b, err := a.Resource.Alloc(s, n)
	if err != nil && a.acct != nil {
		a.acct.Release(n)
	}
	return b, err
}

func (a *admitted) Free(b *Block) error {
	n := b.Size()
	if err := a.Resource.Free(b); err != nil {
		return err
	}
	if a.acct != nil {
		a.acct.Release(n)
	}
	return nil
}

// hostRefusal is the host-memory account's refusal of a managed segment:
// it matches device.ErrOutOfMemory as well as the account's error, so that
// the pool (or the Reclaiming adaptor) climbs the exhaustion ladder first,
// as it does when the device refuses: collecting garbage frees unreachable
// arrays' blocks into the cache, where the request may fit, and the last
// step gives idle segments back, which releases their charges.
type hostRefusal struct{ err error }

func (e *hostRefusal) Error() string { return e.err.Error() }

// Unwrap is the account's error and device.ErrOutOfMemory.
func (e *hostRefusal) Unwrap() []error { return []error{e.err, device.ErrOutOfMemory} }

// ManagedMemory is the state of a device's default managed memory
// (DefaultManaged and DefaultManagedOversubscribing together).
type ManagedMemory struct {
	// Allocated is the bytes in blocks handed out: arrays' memory.
	Allocated uint64
	// Reserved is the bytes obtained from the driver: Allocated and what
	// the pool caches.
	Reserved uint64
	// Resident is an upper bound of how many Reserved bytes occupy the
	// device's memory now, given the driver's free and total memory
	// (Device.MemInfo): the driver counts managed pages as used once they
	// migrate to the device (the host backend, from the allocation on), so
	// it is what the driver counts as used beyond the default resource's
	// reserved bytes and the memory of other Direct resources, at most
	// Reserved. Memory that other processes hold counts too, so the bound
	// may be high.
	Resident uint64
}

// ManagedUsage reports dev's default managed memory (zero before it is
// built) for the driver's free and total memory.
func ManagedUsage(dev *device.Device, free, total uint64) ManagedMemory {
	md := lookupManagedDefault(dev)
	if md == nil {
		return ManagedMemory{}
	}
	u := md.usage(free, total)
	u.Allocated = md.arrays.Stats().AllocatedBytes.Current + md.oversub.Stats().AllocatedBytes.Current
	return u
}

// usage is ManagedUsage without Allocated (which reads the pool's
// statistics).
func (md *managedDefault) usage(free, total uint64) ManagedMemory {
	u := ManagedMemory{Reserved: md.share.bytes.Load()}
	reserved := outsideBytes(md.dev)
	if def, err := Default(md.dev); err == nil {
		reserved += def.Stats().ReservedBytes.Current
	}
	used := total - min(free, total)
	u.Resident = min(u.Reserved, used-min(reserved, used))
	return u
}

// ManagedUse is ManagedUsage's Allocated and Resident: the managed bytes
// arrays hold on dev, and how many managed bytes are on the device now.
func ManagedUse(dev *device.Device, free, total uint64) (bytes, resident uint64) {
	u := ManagedUsage(dev, free, total)
	return u.Allocated, u.Resident
}
