//go:build cgo

package cuda

/*
#include "shim.h"
*/
import "C"

import (
	"sync/atomic"

	"github.com/gpuarr/gpuarr/device/driver"
)

// CUmemPool_attribute values (cuda.h); all three are cuuint64_t.
const (
	poolAttrReleaseThreshold   = 4
	poolAttrReservedMemCurrent = 5
	poolAttrUsedMemCurrent     = 7
)

// memPool is a CUmemoryPool of pinned device memory on one device.
type memPool struct {
	dev    *device
	h      C.gp_h
	closed atomic.Bool
}

func (d *device) NewMemPool(releaseThreshold uint64) (driver.MemPool, error) {
	if err := d.check("cuMemPoolCreate"); err != nil {
		return nil, err
	}
	r := C.gp_pool_create(d.ctx, d.dev)
	if r.rc != 0 {
		return nil, d.fail(int64(r.rc), "%s", d)
	}
	p := &memPool{dev: d, h: C.gp_h(r.v)}
	if err := p.SetReleaseThreshold(releaseThreshold); err != nil {
		C.gp_pool_destroy(d.ctx, p.h)
		return nil, err
	}
	return p, nil
}

func (p *memPool) check(call string) error {
	if p.closed.Load() {
		return closedError(call, "the memory pool")
	}
	return p.dev.check(call)
}

// stream returns s as a stream of the pool's device.
func (p *memPool) stream(call string, s driver.Stream) (*stream, error) {
	st, err := asStream(call, s)
	if err != nil {
		return nil, err
	}
	if st.dev != p.dev {
		return nil, driver.Errorf(call, driver.InvalidValue, "pool of %s used with a stream of %s", p.dev, st.dev)
	}
	return st, st.check(call)
}

func (p *memPool) AllocAsync(n uint64, s driver.Stream) (driver.Ptr, error) {
	if err := p.check("cuMemAllocFromPoolAsync"); err != nil {
		return 0, err
	}
	st, err := p.stream("cuMemAllocFromPoolAsync", s)
	if err != nil {
		return 0, err
	}
	r := C.gp_pool_alloc_async(p.dev.ctx, p.h, C.size_t(n), st.h)
	if r.rc != 0 {
		return 0, p.dev.fail(int64(r.rc), "%d bytes on %s", n, p.dev)
	}
	return driver.Ptr(r.v), nil
}

func (p *memPool) FreeAsync(ptr driver.Ptr, s driver.Stream) error {
	if err := p.check("cuMemFreeAsync"); err != nil {
		return err
	}
	st, err := p.stream("cuMemFreeAsync", s)
	if err != nil {
		return err
	}
	if rc := C.gp_mem_free_async(p.dev.ctx, C.CUdeviceptr(ptr), st.h); rc != 0 {
		return p.dev.fail(int64(rc), "pointer %v", ptr)
	}
	return nil
}

func (p *memPool) SetReleaseThreshold(n uint64) error {
	if err := p.check("cuMemPoolSetAttribute"); err != nil {
		return err
	}
	if rc := C.gp_pool_set_u64(p.dev.ctx, p.h, poolAttrReleaseThreshold, C.ulonglong(n)); rc != 0 {
		return p.dev.fail(int64(rc), "release threshold %d", n)
	}
	return nil
}

func (p *memPool) TrimTo(keep uint64) error {
	if err := p.check("cuMemPoolTrimTo"); err != nil {
		return err
	}
	if rc := C.gp_pool_trim(p.dev.ctx, p.h, C.size_t(keep)); rc != 0 {
		return p.dev.fail(int64(rc), "keep %d", keep)
	}
	return nil
}

func (p *memPool) Usage() (reserved, used uint64, err error) {
	if err := p.check("cuMemPoolGetAttribute"); err != nil {
		return 0, 0, err
	}
	r := C.gp_pool_get_u64(p.dev.ctx, p.h, poolAttrReservedMemCurrent)
	if r.rc != 0 {
		return 0, 0, p.dev.fail(int64(r.rc), "RESERVED_MEM_CURRENT")
	}
	u := C.gp_pool_get_u64(p.dev.ctx, p.h, poolAttrUsedMemCurrent)
	if u.rc != 0 {
		return 0, 0, p.dev.fail(int64(u.rc), "USED_MEM_CURRENT")
	}
	return uint64(r.v), uint64(u.v), nil
}

// Close destroys the pool. Memory still allocated from it is released by
// the driver once freed.
func (p *memPool) Close() error {
	if !p.closed.CompareAndSwap(false, true) {
		return closedError("cuMemPoolDestroy", "the memory pool")
	}
	if err := p.dev.check("cuMemPoolDestroy"); err != nil {
		return err
	}
	if rc := C.gp_pool_destroy(p.dev.ctx, p.h); rc != 0 {
		return p.dev.fail(int64(rc), "")
	}
	return nil
}
