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

// Alloc is cuMemAlloc_v2: synchronous and slow (tens of µs); allocators
// above this layer cache what it returns.
func (d *device) Alloc(n uint64) (driver.Ptr, error) {
	if err := d.check("cuMemAlloc_v2"); err != nil {
		return 0, err
	}
	if n == 0 {
		return 0, driver.Errorf("cuMemAlloc_v2", driver.InvalidValue, "size 0")
	}
	r := C.gp_mem_alloc(d.ctx, C.size_t(n))
	if r.rc != 0 {
		return 0, d.fail(int64(r.rc), "%d bytes on %s", n, d)
	}
	p := driver.Ptr(r.v)
	d.allocs.Lock()
	d.allocs.m[p] = n
	d.allocs.Unlock()
	return p, nil
}

// Free is cuMemFree_v2 for pointers Alloc returned. Anything else (an
// interior or stale pointer, a double free, memory from AllocAsync) is
// refused with InvalidValue before it reaches the driver.
func (d *device) Free(p driver.Ptr) error {
	if err := d.check("cuMemFree_v2"); err != nil {
		return err
	}
	d.allocs.Lock()
	_, ok := d.allocs.m[p]
	delete(d.allocs.m, p)
	d.allocs.Unlock()
	if !ok {
		return driver.Errorf("cuMemFree_v2", driver.InvalidValue, "%v is not a live allocation from Alloc on %s", p, d)
	}
	if rc := C.gp_mem_free(d.ctx, C.CUdeviceptr(p)); rc != 0 {
		return d.fail(int64(rc), "pointer %v", p)
	}
	return nil
}

func (d *device) CopyHtoD(dst driver.Ptr, src unsafe.Pointer, n uint64) error {
	if err := d.check("cuMemcpyHtoD_v2"); err != nil {
		return err
	}
	if rc := C.gp_memcpy_htod(d.ctx, C.CUdeviceptr(dst), src, C.size_t(n)); rc != 0 {
		return d.fail(int64(rc), "%d bytes to %v", n, dst)
	}
	return nil
}

func (d *device) CopyDtoH(dst unsafe.Pointer, src driver.Ptr, n uint64) error {
	if err := d.check("cuMemcpyDtoH_v2"); err != nil {
		return err
	}
	if rc := C.gp_memcpy_dtoh(d.ctx, dst, C.CUdeviceptr(src), C.size_t(n)); rc != 0 {
		return d.fail(int64(rc), "%d bytes from %v", n, src)
	}
	return nil
}

func (d *device) CopyDtoD(dst, src driver.Ptr, n uint64) error {
	if err := d.check("cuMemcpyDtoD_v2"); err != nil {
		return err
	}
	if rc := C.gp_memcpy_dtod(d.ctx, C.CUdeviceptr(dst), C.CUdeviceptr(src), C.size_t(n)); rc != 0 {
		return d.fail(int64(rc), "%d bytes from %v to %v", n, src, dst)
	}
	return nil
}

// rawFree calls cuMemFree_v2 without the bookkeeping; tests use it to see
// what the driver itself says about a pointer.
func (d *device) rawFree(p driver.Ptr) error {
	if rc := C.gp_mem_free_raw(d.ctx, C.CUdeviceptr(p)); rc != 0 {
		return d.fail(int64(rc), "pointer %v", p)
	}
	return nil
}
