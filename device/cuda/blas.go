//go:build cgo

package cuda

/*
#include <stdlib.h>
#include "extlib.h"
*/
import "C"

import (
	"fmt"
	"sync"
	"unsafe"

	"github.com/gpuarr/gpuarr/device/driver"
	"github.com/gpuarr/gpuarr/device/dtype"
)

// cuBLAS is loaded the first time a stream multiplies, so a program that
// never does never opens it.
var cublasLib struct {
	once sync.Once
	path string
	err  error
}

func loadCublas(driverVersion int) error {
	cublasLib.once.Do(func() {
		cands := libCandidates("libcublas", EnvCublasLib, driverVersion)
		var first string
		for i, c := range cands {
			var dep *C.char
			if c.dir != "" && c.major > 0 {
				// cuBLAS links cuBLASLt by soname; outside the loader's
				// path, load the one beside it first.
				dep = C.CString(fmt.Sprintf("%s/libcublasLt.so.%d", c.dir, c.major))
			}
			path := C.CString(c.path)
			var buf [512]byte
			rc := C.gp_blas_open(dep, path, (*C.char)(unsafe.Pointer(&buf[0])), C.int(len(buf)))
			C.free(unsafe.Pointer(path))
			C.free(unsafe.Pointer(dep))
			if rc == 0 {
				cublasLib.path = c.path
				return
			}
			if i == 0 {
				first = cstr(buf[:])
			}
		}
		cublasLib.err = loadError(driver.BLASLibrary, EnvCublasLib, cands, first)
	})
	return cublasLib.err
}

// cublasStatus_t names (cublas_api.h).
var blasStatusNames = map[int]string{
	1: "CUBLAS_STATUS_NOT_INITIALIZED", 3: "CUBLAS_STATUS_ALLOC_FAILED", 7: "CUBLAS_STATUS_INVALID_VALUE",
	8: "CUBLAS_STATUS_ARCH_MISMATCH", 11: "CUBLAS_STATUS_MAPPING_ERROR", 13: "CUBLAS_STATUS_EXECUTION_FAILED",
	14: "CUBLAS_STATUS_INTERNAL_ERROR", 15: "CUBLAS_STATUS_NOT_SUPPORTED", 16: "CUBLAS_STATUS_LICENSE_ERROR",
}

var blasCallNames = [...]string{"cublasCreate_v2", "cublasDestroy_v2", "cublasSetStream_v2",
	"cublasSetMathMode", "cublasSgemm_v2", "cublasDgemm_v2", "cublasSetWorkspace_v2", "cublas<t>getrfBatched",
	"cublas<t>getrsBatched", "cublasSgemmStridedBatched", "cublasDgemmStridedBatched"}

// blasError turns a failed cuBLAS call into a *driver.Error: a context
// switch failure as the shim reports it, else the cuBLAS status mapped to
// the nearest driver result, named in the detail.
func (d *device) blasError(r C.gp_bret, format string, args ...any) error {
	if r.cu != 0 {
		return d.fail(int64(r.cu), format, args...)
	}
	status := int(r.status)
	call := "cuBLAS"
	if w := int(r.which); w >= 0 && w < len(blasCallNames) {
		call = blasCallNames[w]
	}
	if status == C.GP_BLAS_MISSING {
		return &driver.Error{Call: call, Code: driver.SymbolMissing,
			Detail: joinDetail(cublasLib.path+" does not export it", fmt.Sprintf(format, args...))}
	}
	name, ok := blasStatusNames[status]
	if !ok {
		name = fmt.Sprintf("cublasStatus_t(%d)", status)
	}
	code := driver.Unknown
	switch status {
	case 3:
		code = driver.OutOfMemory
	case 7:
		code = driver.InvalidValue
	case 1, 8, 15:
		code = driver.NotSupported // this library cannot work with this driver or GPU
	}
	return &driver.Error{Call: call, Code: code, Detail: joinDetail(name+" from "+cublasLib.path, fmt.Sprintf(format, args...))}
}

// blasHandles are a device's idle cuBLAS handles. A stream takes one the
// first time it multiplies and keeps it, so one handle never serves two
// streams at once (its workspace is per handle); Close gives it back once
// the stream's work is done. cublasDestroy synchronizes the device, so
// handles are kept rather than destroyed.
type blasHandles struct {
	mu   sync.Mutex
	idle []C.gp_h
}

func (d *device) takeBlasHandle(s C.gp_h) (C.gp_h, error) {
	d.blas.mu.Lock()
	var h C.gp_h
	if n := len(d.blas.idle); n > 0 {
		h = d.blas.idle[n-1]
		d.blas.idle = d.blas.idle[:n-1]
	}
	d.blas.mu.Unlock()
	if h != 0 {
		if r := C.gp_blas_set_stream(d.ctx, h, s); r.cu != 0 || r.status != 0 {
			d.putBlasHandle(h)
			return 0, d.blasError(r, "%s", d)
		}
		return h, nil
	}
	r := C.gp_blas_create(d.ctx, s)
	if r.cu != 0 || r.status != 0 {
		return 0, d.blasError(r, "%s", d)
	}
	return C.gp_h(r.v), nil
}

func (d *device) putBlasHandle(h C.gp_h) {
	d.blas.mu.Lock()
	d.blas.idle = append(d.blas.idle, h)
	d.blas.mu.Unlock()
}

// CUBLAS_OP_N, CUBLAS_OP_T; CUBLAS_DEFAULT_MATH, CUBLAS_TF32_TENSOR_OP_MATH.
const (
	blasOpN        = 0
	blasOpT        = 1
	blasMathPlain  = 0
	blasMathTF32   = 3
	blasGemmCallID = "cublasGemm"
)

// blasReady loads cuBLAS for call, or says why it cannot be used.
func (s *stream) blasReady(call string) error {
	if err := s.check(call); err != nil {
		return err
	}
	if libHides.cublas.Load() > 0 {
		return hiddenLibError(driver.BLASLibrary, "libcublas")
	}
	return loadCublas(s.dev.info.DriverVersion)
}

// blasHandle loads cuBLAS and returns the stream's handle, taking one on
// first use; the caller holds blasMu.
func (s *stream) blasHandle(call string) (C.gp_h, error) {
	if err := s.blasReady(call); err != nil {
		return 0, err
	}
	if s.closed.Load() {
		return 0, closedError(call, "the stream")
	}
	if s.blasH == 0 {
		h, err := s.dev.takeBlasHandle(s.h)
		if err != nil {
			return 0, err
		}
		s.blasH = h
		s.blasWork = [2]uint64{} // cublasSetStream resets the workspace to the library's own
	}
	return s.blasH, nil
}

// setBlasWorkspace makes the handle's workspace p (n bytes), or the
// library's own pool for p = 0, when it is not that already; the caller
// holds blasMu. Every cuBLAS call through the handle states its
// workspace, so a pointer a call lent is never used by a later one.
func (s *stream) setBlasWorkspace(h C.gp_h, p driver.Ptr, n uint64) error {
	if p == 0 {
		n = 0
	}
	if s.blasWork == [2]uint64{uint64(p), n} {
		return nil
	}
	r := C.gp_blas_set_workspace(s.dev.ctx, h, C.CUdeviceptr(p), C.size_t(n))
	if r.cu != 0 || r.status != 0 {
		s.blasWork = [2]uint64{^uint64(0), 0} // unknown: set it again next time
		return s.dev.blasError(r, "workspace %v (%d bytes) on %s", p, n, s.dev)
	}
	s.blasWork = [2]uint64{uint64(p), n}
	return nil
}

// BLASWorkspace is cuBLAS's recommended workspace: 32 MiB on compute
// capability 9 and later, 4 MiB before.
func (s *stream) BLASWorkspace() uint64 {
	if s.dev.info.ComputeMajor >= 9 {
		return 32 << 20
	}
	return 4 << 20
}

// Gemm queues cublasSgemm_v2 or cublasDgemm_v2 on the stream, or for a
// batch cublas<t>gemmStridedBatched (one product per matrix when the
// library lacks it): one cgo call (two when the workspace changes), no
// synchronization. The stream's handle is held (blasMu) for the call, so
// two goroutines never use it at once.
func (s *stream) Gemm(g driver.Gemm) error {
	if !driver.GemmType(g.Type) {
		return driver.Errorf(blasGemmCallID, driver.InvalidValue, "element type %v", g.Type)
	}
	s.blasMu.Lock()
	defer s.blasMu.Unlock()
	h, err := s.blasHandle(blasGemmCallID)
	if err != nil {
		return err
	}
	if err := s.setBlasWorkspace(h, g.Work, g.WorkBytes); err != nil {
		return err
	}
	dbl, math := C.int(0), C.int(blasMathPlain)
	if g.Type == dtype.Float64 {
		dbl = 1
	} else if g.TF32 {
		math = blasMathTF32
	}
	if g.Batch > 1 {
		r := C.gp_blas_gemm_batched(s.dev.ctx, h, dbl, math, blasOp(g.TransA), blasOp(g.TransB),
			C.int(g.M), C.int(g.N), C.int(g.K), C.double(g.Alpha),
			C.CUdeviceptr(g.A), C.int(g.LDA), C.longlong(g.StrideA), C.CUdeviceptr(g.B), C.int(g.LDB), C.longlong(g.StrideB),
			C.double(g.Beta), C.CUdeviceptr(g.C), C.int(g.LDC), C.longlong(g.StrideC), C.int(g.Batch))
		switch {
		case r.cu == 0 && r.status == C.GP_BLAS_MISSING:
			return s.gemmEach(h, g, dbl, math)
		case r.cu != 0 || r.status != 0:
			return s.dev.blasError(r, "%v gemm M=%d N=%d K=%d transA=%v transB=%v batch %d on %s",
				g.Type, g.M, g.N, g.K, g.TransA, g.TransB, g.Batch, s.dev)
		}
		return nil
	}
	return s.gemmOne(h, g, dbl, math)
}

// gemmOne queues the one product of g.
func (s *stream) gemmOne(h C.gp_h, g driver.Gemm, dbl, math C.int) error {
	r := C.gp_blas_gemm(s.dev.ctx, h, dbl, math, blasOp(g.TransA), blasOp(g.TransB),
		C.int(g.M), C.int(g.N), C.int(g.K), C.double(g.Alpha),
		C.CUdeviceptr(g.A), C.int(g.LDA), C.CUdeviceptr(g.B), C.int(g.LDB), C.double(g.Beta),
		C.CUdeviceptr(g.C), C.int(g.LDC))
	if r.cu != 0 || r.status != 0 {
		return s.dev.blasError(r, "%v gemm M=%d N=%d K=%d transA=%v transB=%v on %s", g.Type, g.M, g.N, g.K, g.TransA, g.TransB, s.dev)
	}
	return nil
}

// gemmEach queues g's batch one product at a time.
func (s *stream) gemmEach(h C.gp_h, g driver.Gemm, dbl, math C.int) error {
	size := uint64(g.Type.Size())
	for i := range g.Batch {
		one := g
		one.Batch = 0
		one.A = g.A.Add(uint64(i) * uint64(g.StrideA) * size)
		one.B = g.B.Add(uint64(i) * uint64(g.StrideB) * size)
		one.C = g.C.Add(uint64(i) * uint64(g.StrideC) * size)
		if err := s.gemmOne(h, one, dbl, math); err != nil {
			return err
		}
	}
	return nil
}

func blasOp(t bool) C.int {
	if t {
		return blasOpT
	}
	return blasOpN
}

// releaseBlas hands the stream's handle back to its device; Close calls
// it once the stream's work is done.
func (s *stream) releaseBlas() {
	s.blasMu.Lock()
	h := s.blasH
	s.blasH = 0
	s.blasMu.Unlock()
	if h != 0 {
		s.dev.putBlasHandle(h)
	}
}
