package host

import (
	"sync"
	"unsafe"

	"github.com/gpuarr/gpuarr/device/driver"
)

// Managed memory stands for cuMemAllocManaged: on the host backend device
// memory already is CPU memory, so a managed allocation is an ordinary
// allocation (charged to the device's capacity, as it occupies the GPU
// once it migrates there) whose pointer the CPU may dereference. Prefetch
// and advice move nothing; they validate their arguments like the driver,
// and prefetch is queued on its stream so that its errors surface in
// stream order. Freed managed memory is quarantined in checking mode
// (quarantine.go), so a CPU access that outlived it faults.
var managedBases sync.Map // driver.Ptr → struct{}: live managed allocations

// AllocManaged maps n bytes (cuMemAllocManaged).
func (d *device) AllocManaged(n uint64) (driver.Ptr, error) {
	const call = "cuMemAllocManaged"
	if err := d.symbol(call); err != nil {
		return 0, err
	}
	a, err := d.allocate(call, n, nil)
	if err != nil {
		return 0, err
	}
	a.managed = true
	p := driver.Ptr(a.base)
	managedBases.Store(p, struct{}{})
	return p, nil
}

// forgetManaged is called when p is freed.
func forgetManaged(p driver.Ptr) { managedBases.Delete(p) }

// HostPointer is p itself (host device memory is CPU memory), or nil
// when p is inside no live allocation.
func (d *device) HostPointer(p driver.Ptr) unsafe.Pointer {
	a := index.lookup(p)
	if a == nil {
		return nil
	}
	return unsafe.Pointer(&a.mem[uint64(p)-a.base])
}

// checkManaged refuses a range that is not inside one live managed
// allocation, and a location that names no device.
func (d *device) checkManaged(call string, p driver.Ptr, n uint64, loc driver.Location) error {
	if n == 0 {
		return errorf(call, driver.InvalidValue, "size 0")
	}
	a := index.lookup(p)
	if a == nil {
		return errorf(call, driver.InvalidValue, "%v is not inside any live allocation", p)
	}
	if _, ok := managedBases.Load(driver.Ptr(a.base)); !ok {
		return errorf(call, driver.InvalidValue, "%v is not managed memory (allocation %#x on %s)", p, a.base, a.dev)
	}
	if off := uint64(p) - a.base; n > a.size-off {
		return errorf(call, driver.InvalidValue, "[%v, +%d) runs past the end of managed allocation %#x (%d bytes)", p, n, a.base, a.size)
	}
	if !loc.Host && (loc.Device < 0 || loc.Device >= len(d.sys.devs)) {
		return errorf(call, driver.InvalidDevice, "location device %d: %d host devices", loc.Device, len(d.sys.devs))
	}
	return nil
}

// Prefetch validates and queues nothing but an ordering point on s.
func (d *device) Prefetch(p driver.Ptr, n uint64, loc driver.Location, s driver.Stream) error {
	const call = "cuMemPrefetchAsync"
	if err := d.symbol(call); err != nil {
		return err
	}
	if err := d.checkManaged(call, p, n, loc); err != nil {
		return err
	}
	hs, ok := s.(*stream)
	if !ok {
		return errorf(call, driver.InvalidValue, "stream of another backend")
	}
	return hs.enqueue(call, func() error {
		if a := index.lookup(p); a == nil {
			return illegal(call, "prefetched memory was freed before the prefetch ran")
		}
		return nil
	})
}

// Advise validates its arguments; there is nothing to advise.
func (d *device) Advise(p driver.Ptr, n uint64, adv driver.Advice, loc driver.Location) error {
	const call = "cuMemAdvise"
	if err := d.symbol(call); err != nil {
		return err
	}
	if adv < driver.AdviseSetReadMostly || adv > driver.AdviseUnsetAccessedBy {
		return errorf(call, driver.InvalidValue, "advice %d", adv)
	}
	return d.checkManaged(call, p, n, loc)
}
