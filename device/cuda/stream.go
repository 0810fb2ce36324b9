//go:build cgo

package cuda

/*
#include "shim.h"
*/
import "C"

import (
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/gpuarr/gpuarr/device/driver"
)

// stream is a CUstream created non-blocking, so it never synchronizes with
// the legacy NULL stream that other libraries in the process may use.
type stream struct {
	dev    *device
	h      C.gp_h
	closed atomic.Bool

	// blasH is the stream's cuBLAS handle once it multiplied (blas.go);
	// blasMu keeps it to one call at a time.
	blasMu   sync.Mutex
	blasH    C.gp_h
	blasWork [2]uint64 // the handle's workspace (pointer, bytes); zero: the library's own

	// solverH is the stream's cuSOLVER handle once it solved (solver.go);
	// solverMu keeps it to one call at a time.
	solverMu sync.Mutex
	solverH  C.gp_h
}

func (d *device) NewStream() (driver.Stream, error) {
	if err := d.check("cuStreamCreate"); err != nil {
		return nil, err
	}
	r := C.gp_stream_create(d.ctx)
	if r.rc != 0 {
		return nil, d.fail(int64(r.rc), "%s", d)
	}
	return &stream{dev: d, h: C.gp_h(r.v)}, nil
}

func closedError(call, what string) error {
	return &driver.Error{Call: call, Code: driver.Closed, Detail: what + " was closed"}
}

// check refuses work on a closed stream (the handle may name another
// stream by now) and on a lost device.
func (s *stream) check(call string) error {
	if s.closed.Load() {
		return closedError(call, "the stream")
	}
	return s.dev.check(call)
}

// peer returns the backend stream behind a driver.Stream of this backend.
func asStream(call string, st driver.Stream) (*stream, error) {
	s, ok := st.(*stream)
	if !ok || s == nil {
		return nil, driver.Errorf(call, driver.InvalidValue, "%T is not a CUDA stream", st)
	}
	return s, nil
}

func (s *stream) Handle() uintptr { return uintptr(s.h) }

func (s *stream) Synchronize() error {
	if err := s.check("cuStreamSynchronize"); err != nil {
		return err
	}
	if rc := C.gp_stream_synchronize(s.dev.ctx, s.h); rc != 0 {
		return s.dev.fail(int64(rc), "")
	}
	return nil
}

func (s *stream) Query() (bool, error) {
	if err := s.check("cuStreamQuery"); err != nil {
		return false, err
	}
	rc := C.gp_stream_query(s.dev.ctx, s.h)
	if rc == 0 {
		return true, nil
	}
	if code, _ := decode(int64(rc)); code == driver.NotReady {
		return false, nil
	}
	return false, s.dev.fail(int64(rc), "")
}

// Close waits for the stream's work, then destroys it.
func (s *stream) Close() error {
	if !s.closed.CompareAndSwap(false, true) {
		return closedError("cuStreamDestroy_v2", "the stream")
	}
	if err := s.dev.check("cuStreamDestroy_v2"); err != nil {
		return err
	}
	if rc := C.gp_stream_destroy(s.dev.ctx, s.h); rc != 0 {
		return s.dev.fail(int64(rc), "")
	}
	// The stream's work is done (destroy synchronized it): its cuBLAS
	// handle may serve another stream.
	s.releaseBlas()
	s.releaseSolver()
	return nil
}

func (s *stream) AllocAsync(n uint64) (driver.Ptr, error) {
	if err := s.check("cuMemAllocAsync"); err != nil {
		return 0, err
	}
	r := C.gp_mem_alloc_async(s.dev.ctx, C.size_t(n), s.h)
	if r.rc != 0 {
		return 0, s.dev.fail(int64(r.rc), "%d bytes on %s", n, s.dev)
	}
	return driver.Ptr(r.v), nil
}

func (s *stream) FreeAsync(p driver.Ptr) error {
	if err := s.check("cuMemFreeAsync"); err != nil {
		return err
	}
	if rc := C.gp_mem_free_async(s.dev.ctx, C.CUdeviceptr(p), s.h); rc != 0 {
		return s.dev.fail(int64(rc), "pointer %v", p)
	}
	return nil
}

// CopyHtoD returns once src may be reused: the driver stages pageable
// (Go) memory before it returns.
func (s *stream) CopyHtoD(dst driver.Ptr, src unsafe.Pointer, n uint64) error {
	if err := s.check("cuMemcpyHtoDAsync_v2"); err != nil {
		return err
	}
	if rc := C.gp_memcpy_htod_async(s.dev.ctx, C.CUdeviceptr(dst), src, C.size_t(n), s.h); rc != 0 {
		return s.dev.fail(int64(rc), "%d bytes to %v", n, dst)
	}
	return nil
}

// CopyDtoH returns once dst holds the data (the shim waits for the stream).
func (s *stream) CopyDtoH(dst unsafe.Pointer, src driver.Ptr, n uint64) error {
	if err := s.check("cuMemcpyDtoHAsync_v2"); err != nil {
		return err
	}
	if rc := C.gp_memcpy_dtoh_async(s.dev.ctx, dst, C.CUdeviceptr(src), C.size_t(n), s.h); rc != 0 {
		return s.dev.fail(int64(rc), "%d bytes from %v", n, src)
	}
	return nil
}

func (s *stream) CopyDtoD(dst, src driver.Ptr, n uint64) error {
	if err := s.check("cuMemcpyDtoDAsync_v2"); err != nil {
		return err
	}
	if rc := C.gp_memcpy_dtod_async(s.dev.ctx, C.CUdeviceptr(dst), C.CUdeviceptr(src), C.size_t(n), s.h); rc != 0 {
		return s.dev.fail(int64(rc), "%d bytes from %v to %v", n, src, dst)
	}
	return nil
}

func (s *stream) CopyPeer(dst driver.Ptr, dstDev driver.Device, src driver.Ptr, srcDev driver.Device, n uint64) error {
	if err := s.check("cuMemcpyPeerAsync"); err != nil {
		return err
	}
	dd, ok1 := dstDev.(*device)
	sd, ok2 := srcDev.(*device)
	if !ok1 || !ok2 {
		return driver.Errorf("cuMemcpyPeerAsync", driver.InvalidValue, "devices %T and %T are not both CUDA devices", dstDev, srcDev)
	}
	rc := C.gp_memcpy_peer_async(s.dev.ctx, C.CUdeviceptr(dst), dd.ctx, C.CUdeviceptr(src), sd.ctx, C.size_t(n), s.h)
	if rc != 0 {
		return s.dev.fail(int64(rc), "%d bytes from %v on %s to %v on %s", n, src, sd, dst, dd)
	}
	return nil
}

func (s *stream) Memset8(dst driver.Ptr, v uint8, n uint64) error {
	if err := s.check("cuMemsetD8Async"); err != nil {
		return err
	}
	if rc := C.gp_memset8_async(s.dev.ctx, C.CUdeviceptr(dst), C.uchar(v), C.size_t(n), s.h); rc != 0 {
		return s.dev.fail(int64(rc), "%d bytes at %v", n, dst)
	}
	return nil
}

func (s *stream) Memset32(dst driver.Ptr, v uint32, n uint64) error {
	if err := s.check("cuMemsetD32Async"); err != nil {
		return err
	}
	if rc := C.gp_memset32_async(s.dev.ctx, C.CUdeviceptr(dst), C.uint(v), C.size_t(n), s.h); rc != 0 {
		return s.dev.fail(int64(rc), "%d words at %v", n, dst)
	}
	return nil
}
