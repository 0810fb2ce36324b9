package device

import (
	"sync"

	"github.com/gpuarr/gpuarr/device/driver"
)

// AddressRange is a reservation of device addresses into which physical
// memory is mapped granule by granule (CUDA's virtual memory management),
// so that an allocator can grow a segment in place. Unmapped addresses are
// not usable: a copy or kernel touching them fails (IllegalAddress). It is
// safe for concurrent use.
type AddressRange struct {
	dev  *Device
	vm   driver.VirtualMemory
	base Ptr
	size uint64
	gran uint64

	mu      sync.Mutex
	handles map[uint64]driver.PhysHandle // by granule offset
	freed   bool
}

// ReserveAddresses reserves size bytes of addresses (rounded up to the
// granularity) with nothing mapped. A backend or driver without virtual
// memory management fails with an error matching ErrNotSupported.
func (d *Device) ReserveAddresses(size uint64) (*AddressRange, error) {
	const call = "Device.ReserveAddresses"
	vm, ok := d.drv.(driver.VirtualMemory)
	if !ok {
		return nil, driver.PlainErrorf(call, driver.NotSupported, "the %s backend has no virtual memory management", d.Backend())
	}
	if size == 0 {
		return nil, invalid(call, "size 0")
	}
	gran, err := vm.VMGranularity()
	if err != nil {
		return nil, err
	}
	if gran == 0 {
		return nil, invalid(call, "%s reports a granularity of 0", d)
	}
	if size > ^uint64(0)-gran {
		return nil, invalid(call, "size %d overflows", size)
	}
	size = (size + gran - 1) / gran * gran
	p, err := vm.VMReserve(size)
	if err != nil {
		return nil, err
	}
	return &AddressRange{dev: d, vm: vm, base: p, size: size, gran: gran, handles: map[uint64]driver.PhysHandle{}}, nil
}

// Device is the device whose addresses these are.
func (r *AddressRange) Device() *Device { return r.dev }

// Base is the first address of the range.
func (r *AddressRange) Base() Ptr { return r.base }

// Size is the number of bytes reserved.
func (r *AddressRange) Size() uint64 { return r.size }

// Granularity is the unit of Map and Unmap (2 MiB on current GPUs).
func (r *AddressRange) Granularity() uint64 { return r.gran }

// Mapped is the number of bytes mapped now.
func (r *AddressRange) Mapped() uint64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	return uint64(len(r.handles)) * r.gran
}

// span checks that [off, off+n) is granule-aligned and inside the range.
func (r *AddressRange) span(call string, off, n uint64) error {
	if r.freed {
		return driver.PlainErrorf(call, driver.Closed, "the address range at %v was freed", r.base)
	}
	if n == 0 || off%r.gran != 0 || n%r.gran != 0 || off > r.size || n > r.size-off {
		return invalid(call, "[%d, +%d) is not a granule-aligned (%d bytes) part of the %d-byte range", off, n, r.gran, r.size)
	}
	return nil
}

// Map backs [off, off+n) with new physical memory, readable and writable
// by the device, granule by granule; granules already mapped are left as
// they are. On failure, what this call mapped is unmapped again.
func (r *AddressRange) Map(off, n uint64) error {
	const call = "AddressRange.Map"
	r.mu.Lock()
	defer r.mu.Unlock()
	if err := r.span(call, off, n); err != nil {
		return err
	}
	var done []uint64
	for g := off; g < off+n; g += r.gran {
		if _, ok := r.handles[g]; ok {
			continue
		}
		h, err := r.vm.VMMap(r.base.Add(g), r.gran)
		if err != nil {
			for _, u := range done {
				_ = r.vm.VMUnmap(r.base.Add(u), r.gran, r.handles[u])
				delete(r.handles, u)
			}
			return err
		}
		r.handles[g] = h
		done = append(done, g)
	}
	return nil
}

// Unmap releases the physical memory of the mapped granules of
// [off, off+n). The caller makes sure no work still uses them (synchronize
// first).
func (r *AddressRange) Unmap(off, n uint64) error {
	const call = "AddressRange.Unmap"
	r.mu.Lock()
	defer r.mu.Unlock()
	if err := r.span(call, off, n); err != nil {
		return err
	}
	for g := off; g < off+n; g += r.gran {
		h, ok := r.handles[g]
		if !ok {
			continue
		}
		if err := r.vm.VMUnmap(r.base.Add(g), r.gran, h); err != nil {
			return err
		}
		delete(r.handles, g)
	}
	return nil
}

// Free unmaps what is still mapped and returns the addresses. Freeing
// twice fails with an error matching ErrClosed.
func (r *AddressRange) Free() error {
	const call = "AddressRange.Free"
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.freed {
		return driver.PlainErrorf(call, driver.Closed, "the address range at %v was freed twice", r.base)
	}
	for g, h := range r.handles {
		if err := r.vm.VMUnmap(r.base.Add(g), r.gran, h); err != nil {
			return err
		}
		delete(r.handles, g)
	}
	r.freed = true
	return r.vm.VMFree(r.base, r.size)
}
