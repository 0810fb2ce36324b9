//go:build cgo

package cuda

/*
#include "shim.h"
*/
import "C"

import (
	"sync"
	"unsafe"

	"github.com/gpuarr/gpuarr/device/driver"
)

// hostAllocs are the live page-locked allocations, so that FreeHost of
// anything else is a clean InvalidValue rather than whatever the driver
// makes of it (as Free does for device memory).
var hostAllocs struct {
	sync.Mutex
	m map[unsafe.Pointer]*device
}

// AllocHost is cuMemAllocHost_v2: page-locked memory that asynchronous
// copies reach by DMA without a staging copy. With unified addressing every
// context sees it as pinned.
func (d *device) AllocHost(n uint64) (unsafe.Pointer, error) {
	if err := d.check("cuMemAllocHost_v2"); err != nil {
		return nil, err
	}
	if n == 0 {
		return nil, driver.Errorf("cuMemAllocHost_v2", driver.InvalidValue, "size 0")
	}
	r := C.gp_mem_alloc_host(d.ctx, C.size_t(n))
	if r.rc != 0 {
		return nil, d.fail(int64(r.rc), "%d bytes of pinned host memory for %s", n, d)
	}
	hostAllocs.Lock()
	if hostAllocs.m == nil {
		hostAllocs.m = make(map[unsafe.Pointer]*device)
	}
	hostAllocs.m[r.p] = d
	hostAllocs.Unlock()
	return r.p, nil
}

// FreeHost is cuMemFreeHost for pointers AllocHost returned (on any device:
// the driver frees pinned memory from whichever context).
func (d *device) FreeHost(p unsafe.Pointer) error {
	if err := d.check("cuMemFreeHost"); err != nil {
		return err
	}
	hostAllocs.Lock()
	_, ok := hostAllocs.m[p]
	delete(hostAllocs.m, p)
	hostAllocs.Unlock()
	if !ok {
		return driver.Errorf("cuMemFreeHost", driver.InvalidValue, "%p is not a live allocation from AllocHost", p)
	}
	if rc := C.gp_mem_free_host(d.ctx, p); rc != 0 {
		return d.fail(int64(rc), "pointer %p", p)
	}
	return nil
}
