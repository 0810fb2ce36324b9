package device

import (
	"unsafe"

	"github.com/gpuarr/gpuarr/device/driver"
)

// This file is the raw memory layer: synchronous allocation, the driver's
// stream-ordered pools and copies. Allocators (package memory) build on it.

// Alloc allocates n bytes of device memory synchronously (cuMemAlloc). It is
// slow (tens of µs on CUDA); hot paths use a pool from package memory.
func (d *Device) Alloc(n uint64) (Ptr, error) {
	if n == 0 {
		return 0, invalid("Device.Alloc", "size 0")
	}
	return d.drv.Alloc(n)
}

// Free releases memory from Alloc. Freeing a pointer Alloc did not return,
// or freeing twice, is an error matching ErrInvalidValue.
func (d *Device) Free(p Ptr) error { return d.drv.Free(p) }

// CopyHtoD copies n bytes from host memory to the device synchronously. It
// is not ordered with work queued on streams; synchronize them first.
func (d *Device) CopyHtoD(dst Ptr, src unsafe.Pointer, n uint64) error {
	if n == 0 {
		return nil
	}
	return d.drv.CopyHtoD(dst, src, n)
}

// CopyDtoH copies n bytes from the device to host memory synchronously.
func (d *Device) CopyDtoH(dst unsafe.Pointer, src Ptr, n uint64) error {
	if n == 0 {
		return nil
	}
	return d.drv.CopyDtoH(dst, src, n)
}

// CopyDtoD copies n bytes between allocations of d synchronously.
func (d *Device) CopyDtoD(dst, src Ptr, n uint64) error {
	if n == 0 {
		return nil
	}
	return d.drv.CopyDtoD(dst, src, n)
}

// MemPool is a driver stream-ordered memory pool (cuMemPool*); see
// driver.MemPool.
type MemPool = driver.MemPool

// NewMemPool creates a driver stream-ordered pool (cuMemPoolCreate) that
// keeps up to releaseThreshold bytes cached across synchronizations.
// Devices without pool support give an error matching ErrNotSupported.
func (d *Device) NewMemPool(releaseThreshold uint64) (MemPool, error) {
	if !d.info.MemoryPools {
		return nil, driver.PlainErrorf("cuMemPoolCreate", driver.NotSupported, "%s has no stream-ordered memory pools", d)
	}
	return d.drv.NewMemPool(releaseThreshold)
}

// HideSymbol makes a driver entry point look missing until restore runs.
// It exists for tests that prove a missing symbol disables only its feature.
func (d *Device) HideSymbol(name string) (restore func()) { return d.drv.HideSymbol(name) }

// Driver exposes the backend device to sibling packages.
func (d *Device) Driver() driver.Device { return d.drv }

// Upload copies a slice to the device in s's order (see Stream.CopyHtoD).
func Upload[T any](s *Stream, dst Ptr, src []T) error {
	if len(src) == 0 {
		return nil
	}
	return s.CopyHtoD(dst, unsafe.Pointer(unsafe.SliceData(src)), uint64(len(src))*uint64(unsafe.Sizeof(src[0])))
}

// Download copies from the device into a slice in s's order; it returns once
// dst holds the data.
func Download[T any](s *Stream, dst []T, src Ptr) error {
	if len(dst) == 0 {
		return nil
	}
	return s.CopyDtoH(unsafe.Pointer(unsafe.SliceData(dst)), src, uint64(len(dst))*uint64(unsafe.Sizeof(dst[0])))
}
