//go:build cgo

package cuda

/*
#include "shim.h"
*/
import "C"

import (
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/gpuarr/gpuarr/device/driver"
)

type backend struct{}

// Backend returns the CUDA backend. It loads nothing until Devices is called.
func Backend() driver.Backend { return backend{} }

func (backend) Name() string { return "cuda" }

var opened struct {
	once sync.Once
	devs []driver.Device
	err  error
}

// Devices loads libcuda, initializes it and opens every device with its
// primary context, once per process.
func (backend) Devices() ([]driver.Device, error) {
	opened.once.Do(func() { opened.devs, opened.err = openDevices() })
	return slices.Clone(opened.devs), opened.err
}

// CUdevice_attribute values (cuda.h).
const (
	attrMultiprocessors         = 16
	attrL2CacheSize             = 38
	attrUnifiedAddressing       = 41
	attrComputeMajor            = 75
	attrComputeMinor            = 76
	attrManagedMemory           = 83
	attrConcurrentManagedAccess = 89
	attrVirtualMemory           = 102
	attrMemoryPools             = 115
)

// CUDA_ERROR_STUB_LIBRARY: the toolkit's stub libcuda, not a real driver.
const resultStubLibrary = 34

func openDevices() ([]driver.Device, error) {
	if err := load(); err != nil {
		return nil, err
	}
	if rc := int64(C.gp_init()); rc != 0 {
		e := newError(rc, "")
		switch e.Code {
		case driver.NoDevice:
		case driver.SymbolMissing, resultStubLibrary:
			e = &driver.Error{Call: "cuInit", Code: driver.LibraryMissing, Detail: e.Error()}
		default:
			// Whatever stops cuInit leaves no usable device; keep the cause.
			e = &driver.Error{Call: "cuInit", Code: driver.NoDevice, Detail: e.Error()}
		}
		return nil, e
	}
	ver := C.gp_driver_version()
	if ver.rc != 0 {
		return nil, newError(int64(ver.rc), "")
	}
	cnt := C.gp_device_count()
	if cnt.rc != 0 {
		return nil, newError(int64(cnt.rc), "")
	}
	if cnt.v == 0 {
		return nil, &driver.Error{Call: "cuDeviceGetCount", Code: driver.NoDevice}
	}
	devs := make([]driver.Device, 0, int(cnt.v))
	for i := range int(cnt.v) {
		d, err := openDevice(i, int(ver.v))
		if err != nil {
			return nil, err
		}
		devs = append(devs, d)
	}
	return devs, nil
}

func openDevice(ordinal, version int) (*device, error) {
	g := C.gp_device_get(C.int(ordinal))
	if g.rc != 0 {
		return nil, newError(int64(g.rc), fmt.Sprintf("ordinal %d", ordinal))
	}
	d := &device{dev: C.CUdevice(g.v)}
	d.info = driver.Info{Backend: "cuda", Ordinal: ordinal, DriverVersion: version}

	var name [256]byte
	if rc := C.gp_device_name(d.dev, (*C.char)(unsafe.Pointer(&name[0])), C.int(len(name))); rc != 0 {
		return nil, newError(int64(rc), fmt.Sprintf("cuda:%d", ordinal))
	}
	d.info.Name = cstr(name[:])
	mem := C.gp_device_total_mem(d.dev)
	if mem.rc != 0 {
		return nil, newError(int64(mem.rc), d.String())
	}
	d.info.TotalMemory = uint64(mem.v)

	attrs := []struct {
		attr int
		dst  any
	}{
		{attrComputeMajor, &d.info.ComputeMajor},
		{attrComputeMinor, &d.info.ComputeMinor},
		{attrMultiprocessors, &d.info.Multiprocessors},
		{attrL2CacheSize, &d.info.L2CacheBytes},
		{attrUnifiedAddressing, &d.info.UnifiedAddressing},
		{attrManagedMemory, &d.info.ManagedMemory},
		{attrConcurrentManagedAccess, &d.info.ConcurrentManagedAccess},
		{attrVirtualMemory, &d.info.VirtualMemory},
		{attrMemoryPools, &d.info.MemoryPools},
	}
	for _, a := range attrs {
		r := C.gp_device_attr(d.dev, C.int(a.attr))
		if r.rc != 0 {
			return nil, newError(int64(r.rc), fmt.Sprintf("%s attribute %d", d, a.attr))
		}
		switch p := a.dst.(type) {
		case *int:
			*p = int(int64(r.v))
		case *bool:
			*p = r.v != 0
		}
	}
	// Stream-ordered pools need their entry points as well as the hardware.
	d.info.MemoryPools = d.info.MemoryPools && symbolPresent("cuMemAllocAsync") && symbolPresent("cuMemPoolCreate")

	ctx := C.gp_primary_ctx_retain(d.dev)
	if ctx.rc != 0 {
		return nil, newError(int64(ctx.rc), d.String())
	}
	d.ctx = C.gp_h(ctx.v)
	d.allocs.m = make(map[driver.Ptr]uint64)
	return d, nil
}

// device is one GPU with its retained primary context. The context is never
// released: devices live as long as the process.
type device struct {
	dev  C.CUdevice
	ctx  C.gp_h
	info driver.Info

	// lost is the first sticky failure; once set, every call fails with it.
	lost atomic.Pointer[driver.Error]

	// allocs are the live pointers from Alloc, so that Free of anything else
	// is a clean InvalidValue rather than whatever the driver makes of it.
	allocs struct {
		sync.Mutex
		m map[driver.Ptr]uint64
	}

	blas   libHandles // idle cuBLAS handles (libhandles.go)
	solver libHandles // idle cuSOLVER handles
	ffts   fftPlans   // cuFFT plans (fft.go)
}

func (d *device) String() string { return fmt.Sprintf("cuda:%d (%s)", d.info.Ordinal, d.info.Name) }

func (d *device) Info() driver.Info { return d.info }

// check returns the device-lost error once a sticky failure happened.
func (d *device) check(call string) error {
	if cause := d.lost.Load(); cause != nil {
		return lostError(call, d.String(), cause)
	}
	return nil
}

// fail builds the error for a failed shim call; a sticky result poisons the
// device.
func (d *device) fail(rc int64, format string, args ...any) error {
	detail := ""
	if format != "" {
		detail = fmt.Sprintf(format, args...)
	}
	e := newError(rc, detail)
	if e.Code.Sticky() {
		if !d.lost.CompareAndSwap(nil, e) {
			return lostError(e.Call, d.String(), d.lost.Load())
		}
	}
	return e
}

func (d *device) MemInfo() (free, total uint64, err error) {
	if err := d.check("cuMemGetInfo_v2"); err != nil {
		return 0, 0, err
	}
	r := C.gp_mem_info(d.ctx)
	if r.rc != 0 {
		return 0, 0, d.fail(int64(r.rc), "%s", d)
	}
	return uint64(r.v), uint64(r.w), nil
}

func (d *device) CanAccessPeer(peer driver.Device) (bool, error) {
	p, ok := peer.(*device)
	if !ok {
		return false, nil
	}
	if p == d {
		return true, nil
	}
	if err := d.check("cuDeviceCanAccessPeer"); err != nil {
		return false, err
	}
	r := C.gp_device_can_access_peer(d.dev, p.dev)
	if r.rc != 0 {
		return false, d.fail(int64(r.rc), "%s and %s", d, p)
	}
	return r.v != 0, nil
}

func (d *device) EnablePeerAccess(peer driver.Device) error {
	p, ok := peer.(*device)
	if !ok {
		return driver.Errorf("cuCtxEnablePeerAccess", driver.PeerAccessUnsupported, "%s and a device of another backend", d)
	}
	if p == d {
		return nil
	}
	if err := d.check("cuCtxEnablePeerAccess"); err != nil {
		return err
	}
	rc := C.gp_ctx_enable_peer(d.ctx, p.ctx)
	if rc == 0 {
		return nil
	}
	if code, _ := decode(int64(rc)); code == driver.PeerAccessAlreadyEnabled {
		return nil
	}
	return d.fail(int64(rc), "%s cannot access %s", d, p)
}

func (d *device) Synchronize() error {
	if err := d.check("cuCtxSynchronize"); err != nil {
		return err
	}
	if rc := C.gp_ctx_synchronize(d.ctx); rc != 0 {
		return d.fail(int64(rc), "%s", d)
	}
	return nil
}

func (d *device) HideSymbol(name string) (restore func()) { return hideSymbol(name) }

var (
	_ driver.Device   = (*device)(nil)
	_ driver.Stream   = (*stream)(nil)
	_ driver.Event    = (*event)(nil)
	_ driver.Module   = (*module)(nil)
	_ driver.Function = (*function)(nil)
	_ driver.MemPool  = (*memPool)(nil)
)
