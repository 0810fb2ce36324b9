//go:build cgo

package cuda

/*
#cgo noescape gp_solver_buffer
#cgo nocallback gp_solver_buffer
#cgo noescape gp_solver_run
#cgo nocallback gp_solver_run
#include <stdlib.h>
#include "extlib.h"
*/
import "C"

import (
	"fmt"
	"path/filepath"
	"regexp"
	"sync"
	"unsafe"

	"github.com/gpuarr/gpuarr/device/driver"
	"github.com/gpuarr/gpuarr/device/dtype"
)

// EnvCusolverLib names the cuSOLVER file to open instead of the usual
// candidates (a path, or a soname for the loader to find).
const EnvCusolverLib = "GPUARR_CUSOLVER_LIB"

// cuSOLVER is loaded the first time a stream solves, so a program that
// never does never opens it.
var cusolverLib struct {
	once sync.Once
	path string
	err  error
}

// cusolverMajors are the sonames to try: CUDA 13 ships libcusolver.so.12,
// CUDA 12 libcusolver.so.11 (which a CUDA 13 driver also runs).
func cusolverMajors(driverVersion int) []int {
	if driverVersion > 0 && driverVersion < 13000 {
		return []int{11}
	}
	return []int{12, 11}
}

// sonameFile matches a library's soname file ("libcublas.so.13").
var sonameFile = regexp.MustCompile(`^lib[A-Za-z_]+\.so\.[0-9]+$`)

// solverDeps lists what cuSOLVER links by soname that sits beside it in
// dir, in load order, for a candidate outside the loader's path.
func solverDeps(dir string) []string {
	var out []string
	for _, lib := range []string{"libnvJitLink", "libcublasLt", "libcublas", "libcusparse"} {
		matches, _ := filepath.Glob(filepath.Join(dir, lib+".so.*"))
		for _, m := range matches {
			if sonameFile.MatchString(filepath.Base(m)) {
				out = append(out, m)
			}
		}
	}
	return out
}

func loadCusolver(driverVersion int) error {
	cusolverLib.once.Do(func() {
		cands := libCandidatesFor("libcusolver", EnvCusolverLib, cusolverMajors(driverVersion))
		var first string
		for i, c := range cands {
			var deps []string
			if c.dir != "" {
				deps = solverDeps(c.dir)
			}
			cdeps := make([]*C.char, max(1, len(deps)))
			for j, d := range deps {
				cdeps[j] = C.CString(d)
			}
			path := C.CString(c.path)
			var buf [512]byte
			rc := C.gp_solver_open((**C.char)(unsafe.Pointer(&cdeps[0])), C.int(len(deps)), path,
				(*C.char)(unsafe.Pointer(&buf[0])), C.int(len(buf)))
			C.free(unsafe.Pointer(path))
			for j := range deps {
				C.free(unsafe.Pointer(cdeps[j]))
			}
			if rc == 0 {
				cusolverLib.path = c.path
				return
			}
			if i == 0 {
				first = cstr(buf[:])
			}
		}
		cusolverLib.err = loadError(driver.SolverLibrary, EnvCusolverLib, cands, first)
	})
	return cusolverLib.err
}

// cusolverStatus_t names (cusolver_common.h).
var solverStatusNames = map[int]string{
	1: "CUSOLVER_STATUS_NOT_INITIALIZED", 2: "CUSOLVER_STATUS_ALLOC_FAILED", 3: "CUSOLVER_STATUS_INVALID_VALUE",
	4: "CUSOLVER_STATUS_ARCH_MISMATCH", 5: "CUSOLVER_STATUS_MAPPING_ERROR", 6: "CUSOLVER_STATUS_EXECUTION_FAILED",
	7: "CUSOLVER_STATUS_INTERNAL_ERROR", 8: "CUSOLVER_STATUS_MATRIX_TYPE_NOT_SUPPORTED",
	9: "CUSOLVER_STATUS_NOT_SUPPORTED", 10: "CUSOLVER_STATUS_ZERO_PIVOT", 11: "CUSOLVER_STATUS_INVALID_LICENSE",
	31: "CUSOLVER_STATUS_INVALID_WORKSPACE",
}

// solverError turns a failed cuSOLVER call into a *driver.Error: a
// context switch failure as the shim reports it, a missing entry point as
// SymbolMissing, else the status mapped to the nearest driver result.
func (d *device) solverError(r C.gp_bret, format string, args ...any) error {
	return d.solverFailure(int64(r.cu), int(r.status), int(r.which), uint64(r.v), format, args...)
}

// solverFailure is solverError on the result's fields: a failed context
// switch cu, else the status of the entry point numbered which (v: the
// workspace bytes a short-workspace status asked).
func (d *device) solverFailure(cu int64, status, which int, v uint64, format string, args ...any) error {
	if cu != 0 {
		return d.fail(cu, format, args...)
	}
	call := C.GoString(C.gp_solver_name(C.int(which)))
	detail := fmt.Sprintf(format, args...)
	switch status {
	case C.GP_SOLVER_MISSING:
		return &driver.Error{Call: call, Code: driver.SymbolMissing, Detail: joinDetail(cusolverLib.path+" does not export it", detail)}
	case C.GP_SOLVER_SHORT_WORK:
		return &driver.Error{Call: call, Code: driver.InvalidValue, Detail: joinDetail(fmt.Sprintf("the workspace is shorter than the %d bytes the query asks", v), detail)}
	case C.GP_SOLVER_BAD_OP:
		return &driver.Error{Call: "cuSOLVER", Code: driver.InvalidValue, Detail: joinDetail("not a cuSOLVER routine", detail)}
	default:
		name, ok := solverStatusNames[status]
		if !ok {
			name = fmt.Sprintf("cusolverStatus_t(%d)", status)
		}
		code := driver.Unknown
		switch status {
		case 2:
			code = driver.OutOfMemory
		case 3, 31:
			code = driver.InvalidValue
		case 1, 4, 8, 9:
			code = driver.NotSupported
		}
		return &driver.Error{Call: call, Code: code, Detail: joinDetail(name+" from "+cusolverLib.path, detail)}
	}
}

// takeSolverHandle is an idle cuSOLVER handle of the device moved to
// stream s, or a new one (libhandles.go).
func (d *device) takeSolverHandle(s C.gp_h) (C.gp_h, error) {
	return d.solver.take(
		func(h C.gp_h) C.gp_bret { return C.gp_solver_set_stream(d.ctx, h, s) },
		func() C.gp_bret { return C.gp_solver_create(d.ctx, s) },
		func(r C.gp_bret) error { return d.solverError(r, "%s", d) })
}

// releaseSolver hands the stream's handle back to its device; Close
// calls it once the stream's work is done.
func (s *stream) releaseSolver() { s.dev.solver.giveBack(&s.solverMu, &s.solverH) }

// solverType is the shim's code for a solver element type (solver.c):
// 2 for float64, 1 for float32 (the routines take no other).
func solverType(t dtype.DType) C.int {
	if t == dtype.Float64 {
		return 2
	}
	return 1
}

// solverCall is c for the shim.
func solverCall(c *driver.SolverCall) C.gp_scall {
	b := func(v bool) C.int {
		if v {
			return 1
		}
		return 0
	}
	return C.gp_scall{
		op: C.int(c.Op), _type: solverType(c.Type),
		m: C.longlong(c.M), n: C.longlong(c.N), k: C.longlong(c.K), nrhs: C.longlong(c.NRHS), batch: C.longlong(c.Batch),
		upper: b(c.Upper), trans: b(c.Trans), vectors: b(c.Vectors), econ: b(c.Econ), job: C.int(c.Job),
		a: C.CUdeviceptr(c.A), b: C.CUdeviceptr(c.B), u: C.CUdeviceptr(c.U), v: C.CUdeviceptr(c.V),
		vals: C.CUdeviceptr(c.Vals), ipiv: C.CUdeviceptr(c.Ipiv), info: C.CUdeviceptr(c.Info), work: C.CUdeviceptr(c.Work),
		lda: C.longlong(c.LDA), ldb: C.longlong(c.LDB), ldu: C.longlong(c.LDU), ldv: C.longlong(c.LDV),
		work_bytes: C.ulonglong(c.WorkBytes),
	}
}

// blasSolverOp reports the routines cuBLAS runs.
func blasSolverOp(op driver.SolverOp) bool {
	return op == driver.GetrfBatched || op == driver.GetrsBatched
}

// solverHandle loads the library and returns the stream's handle, taking
// one on first use; the caller holds solverMu.
func (s *stream) solverHandle(call string) (C.gp_h, error) {
	if err := s.check(call); err != nil {
		return 0, err
	}
	if libHides.cusolver.Load() > 0 {
		return 0, hiddenLibError(driver.SolverLibrary, "libcusolver")
	}
	if err := loadCusolver(s.dev.info.DriverVersion); err != nil {
		return 0, err
	}
	if s.closed.Load() {
		return 0, closedError(call, "the stream")
	}
	if s.solverH == 0 {
		h, err := s.dev.takeSolverHandle(s.h)
		if err != nil {
			return 0, err
		}
		s.solverH = h
	}
	return s.solverH, nil
}

// SolverWorkspace asks cuSOLVER's buffer-size query; see driver.Solver.
func (s *stream) SolverWorkspace(c *driver.SolverCall) (uint64, error) {
	const call = "cusolverDnBufferSize"
	if blasSolverOp(c.Op) {
		return 0, s.blasReady(call)
	}
	s.solverMu.Lock()
	defer s.solverMu.Unlock()
	h, err := s.solverHandle(call)
	if err != nil {
		return 0, err
	}
	sc := solverCall(c)
	r := C.gp_solver_buffer(s.dev.ctx, h, &sc)
	if r.cu != 0 || r.status != 0 {
		return 0, s.dev.solverError(r, "%v on %s", c, s.dev)
	}
	return uint64(r.v), nil
}

// Solve queues the routine: one cgo call, no synchronization; see
// driver.Solver. The stream's handle is held (solverMu) for the call.
func (s *stream) Solve(c *driver.SolverCall) error {
	if blasSolverOp(c.Op) {
		return s.blasSolve(c)
	}
	const call = "cusolverDn"
	s.solverMu.Lock()
	defer s.solverMu.Unlock()
	h, err := s.solverHandle(call)
	if err != nil {
		return err
	}
	sc := solverCall(c)
	r := C.gp_solver_run(s.dev.ctx, h, &sc)
	if r.cu != 0 || r.status != 0 {
		return s.dev.solverError(r, "%v on %s", c, s.dev)
	}
	return nil
}

// blasSolve runs GetrfBatched or GetrsBatched on the stream's cuBLAS
// handle, with the library's own workspace (neither routine takes the
// caller's; a stale pointer must not stay set on the handle).
func (s *stream) blasSolve(c *driver.SolverCall) error {
	call := "cublas" + c.Op.String()
	s.blasMu.Lock()
	defer s.blasMu.Unlock()
	h, err := s.blasHandle(call)
	if err != nil {
		return err
	}
	if err := s.setBlasWorkspace(h, 0, 0); err != nil {
		return err
	}
	dbl := C.int(0)
	if c.Type == dtype.Float64 {
		dbl = 1
	}
	var r C.gp_bret
	if c.Op == driver.GetrfBatched {
		r = C.gp_blas_getrf_batched(s.dev.ctx, h, dbl, C.int(c.N), C.CUdeviceptr(c.A), C.int(c.LDA),
			C.CUdeviceptr(c.Ipiv), C.CUdeviceptr(c.Info), C.int(c.Batch))
	} else {
		r = C.gp_blas_getrs_batched(s.dev.ctx, h, dbl, blasOp(c.Trans), C.int(c.N), C.int(c.NRHS),
			C.CUdeviceptr(c.A), C.int(c.LDA), C.CUdeviceptr(c.Ipiv), C.CUdeviceptr(c.B), C.int(c.LDB), C.int(c.Batch))
	}
	if r.cu != 0 || r.status != 0 {
		return s.dev.blasError(r, "%v on %s", c, s.dev)
	}
	if c.Op == driver.GetrsBatched && int64(r.v) != 0 {
		return driver.Errorf(call, driver.InvalidValue, "%v: argument %d refused (info %d)", c, -int64(r.v), int64(r.v))
	}
	return nil
}
