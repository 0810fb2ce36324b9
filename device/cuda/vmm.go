//go:build cgo

package cuda

/*
#include "shim.h"
*/
import "C"

import (
	"github.com/gpuarr/gpuarr/device/driver"
)

// The device reserves addresses and maps physical memory granule by
// granule (vmm.c); allocators grow segments in place with it.
var _ driver.VirtualMemory = (*device)(nil)

func (d *device) VMGranularity() (uint64, error) {
	if err := d.check("cuMemGetAllocationGranularity"); err != nil {
		return 0, err
	}
	r := C.gp_vm_granularity(d.ctx, d.dev)
	if r.rc != 0 {
		return 0, d.fail(int64(r.rc), "%s", d)
	}
	return uint64(r.v), nil
}

func (d *device) VMReserve(size uint64) (driver.Ptr, error) {
	const call = "cuMemAddressReserve"
	if err := d.check(call); err != nil {
		return 0, err
	}
	if size == 0 {
		return 0, driver.Errorf(call, driver.InvalidValue, "size 0")
	}
	r := C.gp_vm_reserve(d.ctx, C.size_t(size))
	if r.rc != 0 {
		return 0, d.fail(int64(r.rc), "%d bytes of addresses on %s", size, d)
	}
	return driver.Ptr(r.v), nil
}

func (d *device) VMFree(p driver.Ptr, size uint64) error {
	if err := d.check("cuMemAddressFree"); err != nil {
		return err
	}
	if rc := C.gp_vm_free(d.ctx, C.CUdeviceptr(p), C.size_t(size)); rc != 0 {
		return d.fail(int64(rc), "[%v, +%d) on %s", p, size, d)
	}
	return nil
}

func (d *device) VMMap(p driver.Ptr, size uint64) (driver.PhysHandle, error) {
	if err := d.check("cuMemMap"); err != nil {
		return 0, err
	}
	r := C.gp_vm_map(d.ctx, d.dev, C.CUdeviceptr(p), C.size_t(size))
	if r.rc != 0 {
		return 0, d.fail(int64(r.rc), "mapping %d bytes at %v on %s", size, p, d)
	}
	return driver.PhysHandle(r.v), nil
}

func (d *device) VMUnmap(p driver.Ptr, size uint64, h driver.PhysHandle) error {
	if err := d.check("cuMemUnmap"); err != nil {
		return err
	}
	if rc := C.gp_vm_unmap(d.ctx, C.CUdeviceptr(p), C.size_t(size), C.ulonglong(h)); rc != 0 {
		return d.fail(int64(rc), "unmapping %d bytes at %v on %s", size, p, d)
	}
	return nil
}
