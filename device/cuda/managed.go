//go:build cgo

package cuda

/*
#include "shim.h"
*/
import "C"

import (
	"unsafe"

	"github.com/gpuarr/gpuarr/device/driver"
)

// Managed memory (driver.Managed). Prefetch and advice bind the
// location-based entry points cuMemPrefetchAsync_v2 and cuMemAdvise_v2
// (CUDA 12.2+, the unversioned names of CUDA 13); a driver without them
// makes only those calls fail with SymbolMissing.

const (
	attachGlobal   = 1 // CU_MEM_ATTACH_GLOBAL
	locationDevice = 1 // CU_MEM_LOCATION_TYPE_DEVICE
	locationHost   = 2 // CU_MEM_LOCATION_TYPE_HOST
)

// AllocManaged is cuMemAllocManaged(CU_MEM_ATTACH_GLOBAL). Free (cuMemFree)
// releases it, so it is registered like Alloc's memory.
func (d *device) AllocManaged(n uint64) (driver.Ptr, error) {
	const call = "cuMemAllocManaged"
	if err := d.check(call); err != nil {
		return 0, err
	}
	if n == 0 {
		return 0, driver.Errorf(call, driver.InvalidValue, "size 0")
	}
	r := C.gp_mem_alloc_managed(d.ctx, C.size_t(n), attachGlobal)
	if r.rc != 0 {
		return 0, d.fail(int64(r.rc), "%d bytes of managed memory on %s", n, d)
	}
	p := driver.Ptr(r.v)
	d.allocs.Lock()
	d.allocs.m[p] = n
	d.allocs.Unlock()
	return p, nil
}

// HostPointer is p as a CPU address (unified addressing).
func (d *device) HostPointer(p driver.Ptr) unsafe.Pointer {
	return C.gp_host_ptr(C.CUdeviceptr(p))
}

func location(loc driver.Location) (C.int, C.int) {
	if loc.Host {
		return locationHost, 0
	}
	return locationDevice, C.int(loc.Device)
}

// Prefetch is cuMemPrefetchAsync_v2 on s.
func (d *device) Prefetch(p driver.Ptr, n uint64, loc driver.Location, s driver.Stream) error {
	const call = "cuMemPrefetchAsync_v2"
	if err := d.check(call); err != nil {
		return err
	}
	cs, ok := s.(*stream)
	if !ok || cs.dev != d {
		return driver.Errorf(call, driver.InvalidValue, "stream of another device or backend")
	}
	t, id := location(loc)
	if rc := C.gp_mem_prefetch(d.ctx, C.CUdeviceptr(p), C.size_t(n), t, id, cs.h); rc != 0 {
		return d.fail(int64(rc), "%d bytes at %v to %+v", n, p, loc)
	}
	return nil
}

// Advise is cuMemAdvise_v2.
func (d *device) Advise(p driver.Ptr, n uint64, a driver.Advice, loc driver.Location) error {
	const call = "cuMemAdvise_v2"
	if err := d.check(call); err != nil {
		return err
	}
	t, id := location(loc)
	if rc := C.gp_mem_advise(d.ctx, C.CUdeviceptr(p), C.size_t(n), C.int(a), t, id); rc != 0 {
		return d.fail(int64(rc), "advice %d for %d bytes at %v (%+v)", a, n, p, loc)
	}
	return nil
}
