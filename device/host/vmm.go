package host

import (
	"fmt"
	"sync/atomic"
	"syscall"
	"unsafe"

	"github.com/gpuarr/gpuarr/device/driver"
)

// Virtual memory management, simulated: a reservation is an inaccessible
// anonymous mapping (PROT_NONE, no memory committed) in the allocation
// index; mapping a granule makes it readable and writable and charges it
// to the device's capacity, unmapping poisons it (checking mode), drops its
// pages and makes it inaccessible again. A copy or kernel touching an
// unmapped granule of a reservation fails with IllegalAddress, as on a GPU.

// vmGranularity is the granule, as on current GPUs.
const vmGranularity = 2 << 20

// vmRange is the mapping state of one reservation, guarded by the
// allocation index's lock (pins read it under the read lock).
type vmRange struct {
	mapped []bool // per granule
}

var vmHandles atomic.Uint64

// unmapped says why [off, off+n) of the reservation at p is not all
// mapped, or "" when it is.
func (v *vmRange) unmapped(p driver.Ptr, off, n uint64) string {
	if n == 0 {
		return ""
	}
	for g := off / vmGranularity; g <= (off+n-1)/vmGranularity; g++ {
		if !v.mapped[g] {
			return fmt.Sprintf("[%v, +%d) touches granule %d of an address reservation, which is not mapped", p, n, g)
		}
	}
	return ""
}

func (d *device) VMGranularity() (uint64, error) {
	if err := d.symbol("cuMemGetAllocationGranularity"); err != nil {
		return 0, err
	}
	return vmGranularity, nil
}

func (d *device) VMReserve(size uint64) (driver.Ptr, error) {
	const call = "cuMemAddressReserve"
	if err := d.symbol(call); err != nil {
		return 0, err
	}
	if size == 0 || size%vmGranularity != 0 || size > uint64(int(^uint(0)>>1)) {
		return 0, errorf(call, driver.InvalidValue, "size %d is not a positive multiple of the granularity %d", size, vmGranularity)
	}
	mem, err := syscall.Mmap(-1, 0, int(size), syscall.PROT_NONE, syscall.MAP_ANON|syscall.MAP_PRIVATE|syscall.MAP_NORESERVE)
	if err != nil {
		return 0, errorf(call, driver.OutOfMemory, "%s: reserving %d bytes of addresses: %v", d, size, err)
	}
	a := &allocation{
		base: uint64(uintptr(unsafe.Pointer(unsafe.SliceData(mem)))), size: size, dev: d, mem: mem,
		vm: &vmRange{mapped: make([]bool, size/vmGranularity)},
	}
	a.unpinned.L = &a.mu
	index.insert(a)
	return driver.Ptr(a.base), nil
}

// reservation finds the reservation holding [p, p+size), granule-aligned.
func (d *device) reservation(call string, p driver.Ptr, size uint64) (*allocation, uint64, error) {
	a := index.lookup(p)
	if a == nil || a.vm == nil || a.dev != d {
		return nil, 0, errorf(call, driver.InvalidValue, "%v is not inside an address reservation of %s", p, d)
	}
	off := uint64(p) - a.base
	if size == 0 || off%vmGranularity != 0 || size%vmGranularity != 0 || size > a.size-off {
		return nil, 0, errorf(call, driver.InvalidValue, "[%v, +%d) is not a granule-aligned range of the reservation at %#x (%d bytes)", p, size, a.base, a.size)
	}
	return a, off, nil
}

func (d *device) VMFree(p driver.Ptr, size uint64) error {
	const call = "cuMemAddressFree"
	if err := d.symbol(call); err != nil {
		return err
	}
	a, off, err := d.reservation(call, p, size)
	if err != nil {
		return err
	}
	if off != 0 || size != a.size {
		return errorf(call, driver.InvalidValue, "[%v, +%d) is not a whole reservation", p, size)
	}
	index.mu.Lock()
	for g, m := range a.vm.mapped {
		if m {
			index.mu.Unlock()
			return errorf(call, driver.InvalidValue, "granule %d of the reservation at %v is still mapped", g, p)
		}
	}
	index.mu.Unlock()
	if !index.remove(a) {
		return errorf(call, driver.InvalidValue, "the reservation at %v is already freed", p)
	}
	a.waitUnpinned()
	_ = syscall.Munmap(a.mem)
	return nil
}

func (d *device) VMMap(p driver.Ptr, size uint64) (driver.PhysHandle, error) {
	const call = "cuMemMap"
	for _, sym := range []string{"cuMemCreate", call, "cuMemSetAccess"} {
		if err := d.symbol(sym); err != nil {
			return 0, err
		}
	}
	a, off, err := d.reservation(call, p, size)
	if err != nil {
		return 0, err
	}
	index.mu.Lock()
	defer index.mu.Unlock()
	for g := off / vmGranularity; g < (off+size)/vmGranularity; g++ {
		if a.vm.mapped[g] {
			return 0, errorf(call, driver.InvalidValue, "granule %d of the reservation at %#x is already mapped", g, a.base)
		}
	}
	if !d.reserve(size) {
		return 0, errorf("cuMemCreate", driver.OutOfMemory, "%s: requested %d bytes, %d in use, capacity %d (%s)",
			d, size, d.used.Load(), d.capacity, EnvMemory)
	}
	if err := syscall.Mprotect(a.mem[off:off+size], syscall.PROT_READ|syscall.PROT_WRITE); err != nil {
		d.used.Add(-size)
		return 0, errorf(call, driver.OutOfMemory, "%s: mapping %d bytes: %v", d, size, err)
	}
	for g := off / vmGranularity; g < (off+size)/vmGranularity; g++ {
		a.vm.mapped[g] = true
	}
	return driver.PhysHandle(vmHandles.Add(1)), nil
}

func (d *device) VMUnmap(p driver.Ptr, size uint64, h driver.PhysHandle) error {
	const call = "cuMemUnmap"
	if err := d.symbol(call); err != nil {
		return err
	}
	if h == 0 {
		return errorf("cuMemRelease", driver.InvalidValue, "handle 0")
	}
	a, off, err := d.reservation(call, p, size)
	if err != nil {
		return err
	}
	index.mu.Lock()
	for g := off / vmGranularity; g < (off+size)/vmGranularity; g++ {
		if !a.vm.mapped[g] {
			index.mu.Unlock()
			return errorf(call, driver.InvalidValue, "granule %d of the reservation at %#x is not mapped", g, a.base)
		}
		a.vm.mapped[g] = false // new pins of it fail from now on
	}
	index.mu.Unlock()
	a.waitUnpinned()
	mem := a.mem[off : off+size]
	if d.sys.cfg.check {
		Poison(mem)
	}
	_ = syscall.Madvise(mem, syscall.MADV_DONTNEED)
	_ = syscall.Mprotect(mem, syscall.PROT_NONE)
	d.used.Add(-size)
	return nil
}
