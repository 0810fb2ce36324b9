package device

import (
	"unsafe"

	"github.com/gpuarr/gpuarr/device/driver"
)

// Location is a prefetch target or advice subject: a device or the CPU.
type Location = driver.Location

// Advice is a managed-memory hint; see driver.Advice.
type Advice = driver.Advice

// HostLocation is the CPU as a Location.
var HostLocation = Location{Host: true}

// LocationOf is d as a Location.
func LocationOf(d *Device) Location { return Location{Device: d.Ordinal()} }

func (d *Device) managed(call string) (driver.Managed, error) {
	m, ok := d.drv.(driver.Managed)
	if !ok || !d.info.ManagedMemory {
		return nil, driver.PlainErrorf(call, driver.NotSupported, "%s has no managed memory", d)
	}
	return m, nil
}

// AllocManaged allocates n bytes of managed memory: one address that
// kernels of d and the CPU (HostPointer) both use, migrated on demand.
// Free releases it. It does not check free memory: package unified
// refuses oversubscription before it calls this.
func (d *Device) AllocManaged(n uint64) (Ptr, error) {
	const call = "Device.AllocManaged"
	if n == 0 {
		return 0, invalid(call, "size 0")
	}
	m, err := d.managed(call)
	if err != nil {
		return 0, err
	}
	return m.AllocManaged(n)
}

// HostPointer is the CPU address of managed memory at p, or nil when the
// device has no managed memory.
func (d *Device) HostPointer(p Ptr) unsafe.Pointer {
	m, err := d.managed("Device.HostPointer")
	if err != nil || p == 0 {
		return nil
	}
	return m.HostPointer(p)
}

// ConcurrentManagedAccess reports whether the CPU may touch managed memory
// while kernels run on d (device attribute 89). Without it, the device
// must be idle when the CPU touches managed memory.
func (d *Device) ConcurrentManagedAccess() bool {
	return d.info.ManagedMemory && d.info.ConcurrentManagedAccess
}

// Prefetch migrates n bytes of managed memory at p to loc in the order of
// s (cuMemPrefetchAsync).
func (s *Stream) Prefetch(p Ptr, n uint64, loc Location) error {
	const call = "Stream.Prefetch"
	if err := s.check(call); err != nil {
		return err
	}
	if n == 0 {
		return invalid(call, "size 0")
	}
	m, err := s.dev.managed(call)
	if err != nil {
		return err
	}
	return m.Prefetch(p, n, loc, s.drv)
}

// Advise gives the driver a hint about n bytes of managed memory at p
// (cuMemAdvise).
func (d *Device) Advise(p Ptr, n uint64, a Advice, loc Location) error {
	const call = "Device.Advise"
	if n == 0 {
		return invalid(call, "size 0")
	}
	m, err := d.managed(call)
	if err != nil {
		return err
	}
	return m.Advise(p, n, a, loc)
}
