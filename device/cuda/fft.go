//go:build cgo

package cuda

/*
#cgo noescape gp_fft_exec
#cgo nocallback gp_fft_exec
#cgo noescape gp_fft_plan
#cgo nocallback gp_fft_plan
#include <stdlib.h>
#include "extlib.h"
*/
import "C"

import (
	"fmt"
	"path/filepath"
	"sync"
	"unsafe"

	"github.com/gpuarr/gpuarr/device/driver"
	"github.com/gpuarr/gpuarr/device/dtype"
)

// EnvCufftLib names the cuFFT file to open instead of the usual
// candidates (a path, or a soname for the loader to find).
const EnvCufftLib = "GPUARR_CUFFT_LIB"

// cuFFT is loaded the first time a stream transforms, so a program that
// never does never opens it.
var cufftLib struct {
	once sync.Once
	path string
	err  error
}

// cufftMajors are the sonames to try: CUDA 13 ships libcufft.so.12, CUDA
// 12 libcufft.so.11 (which a CUDA 13 driver also runs).
func cufftMajors(driverVersion int) []int {
	if driverVersion > 0 && driverVersion < 13000 {
		return []int{11}
	}
	return []int{12, 11}
}

// fftDeps lists what cuFFT may link by soname that sits beside it in
// dir, for a candidate outside the loader's path.
func fftDeps(dir string) []string {
	var out []string
	matches, _ := filepath.Glob(filepath.Join(dir, "libnvJitLink.so.*"))
	for _, m := range matches {
		if sonameFile.MatchString(filepath.Base(m)) {
			out = append(out, m)
		}
	}
	return out
}

func loadCufft(driverVersion int) error {
	cufftLib.once.Do(func() {
		cands := libCandidatesFor("libcufft", EnvCufftLib, cufftMajors(driverVersion))
		var first string
		for i, c := range cands {
			var deps []string
			if c.dir != "" {
				deps = fftDeps(c.dir)
			}
			cdeps := make([]*C.char, max(1, len(deps)))
			for j, d := range deps {
				cdeps[j] = C.CString(d)
			}
			path := C.CString(c.path)
			var buf [512]byte
			rc := C.gp_fft_open((**C.char)(unsafe.Pointer(&cdeps[0])), C.int(len(deps)), path,
				(*C.char)(unsafe.Pointer(&buf[0])), C.int(len(buf)))
			C.free(unsafe.Pointer(path))
			for j := range deps {
				C.free(unsafe.Pointer(cdeps[j]))
			}
			if rc == 0 {
				cufftLib.path = c.path
				return
			}
			if i == 0 {
				first = cstr(buf[:])
			}
		}
		cufftLib.err = loadError(driver.FFTLibrary, EnvCufftLib, cands, first)
	})
	return cufftLib.err
}

// cufftResult names (cufft.h).
var fftStatusNames = map[int]string{
	1: "CUFFT_INVALID_PLAN", 2: "CUFFT_ALLOC_FAILED", 3: "CUFFT_INVALID_TYPE", 4: "CUFFT_INVALID_VALUE",
	5: "CUFFT_INTERNAL_ERROR", 6: "CUFFT_EXEC_FAILED", 7: "CUFFT_SETUP_FAILED", 8: "CUFFT_INVALID_SIZE",
	9: "CUFFT_UNALIGNED_DATA", 10: "CUFFT_INCOMPLETE_PARAMETER_LIST", 11: "CUFFT_INVALID_DEVICE",
	12: "CUFFT_PARSE_ERROR", 13: "CUFFT_NO_WORKSPACE", 14: "CUFFT_NOT_IMPLEMENTED", 15: "CUFFT_LICENSE_ERROR",
	16: "CUFFT_NOT_SUPPORTED",
}

// fftFailure turns a failed cuFFT call into a *driver.Error: a failed
// context switch cu as the shim reports it, else the status of the entry
// point numbered which mapped to the nearest driver result.
func (d *device) fftFailure(cu int64, status, which int, format string, args ...any) error {
	if cu != 0 {
		return d.fail(cu, format, args...)
	}
	call := C.GoString(C.gp_fft_name(C.int(which)))
	detail := fmt.Sprintf(format, args...)
	if status == C.GP_FFT_BAD_KIND {
		return &driver.Error{Call: "cuFFT", Code: driver.InvalidValue, Detail: joinDetail("not a transform kind", detail)}
	}
	name, ok := fftStatusNames[status]
	if !ok {
		name = fmt.Sprintf("cufftResult(%d)", status)
	}
	code := driver.Unknown
	switch status {
	case 2:
		code = driver.OutOfMemory
	case 1, 3, 4, 8, 9, 10, 13:
		code = driver.InvalidValue
	case 14, 16:
		code = driver.NotSupported
	}
	return &driver.Error{Call: call, Code: code, Detail: joinDetail(name+" from "+cufftLib.path, detail)}
}

func (d *device) fftError(r C.gp_fret, format string, args ...any) error {
	return d.fftFailure(int64(r.cu), int(r.status), int(r.which), format, args...)
}

// maxFFTPlans bounds a device's plan cache. Plans hold device memory of
// their own (twiddle factors, outside the pool), so the cache is small;
// the least recently used idle plan goes when it is full.
const maxFFTPlans = 64

// fftPlan is one cuFFT plan of the device's cache. mu is held for each
// execution: the plan's stream and work area are set per call. refs
// counts the callers between plan and done (under the cache's lock): a
// plan in use is never evicted, since cuFFT reuses the handle numbers of
// destroyed plans.
type fftPlan struct {
	mu   sync.Mutex
	h    C.int
	work uint64
	used uint64 // the cache's clock at the last use
	refs int
}

// fftPlans is a device's cache of cuFFT plans, one per driver.FFTPlan
// (shape, type, batch, layout; the direction and the stream are given
// per execution). Plans live as long as the device unless evicted.
type fftPlans struct {
	mu    sync.Mutex
	m     map[driver.FFTPlan]*fftPlan
	clock uint64
}

// fftPlan returns the cached plan of p, making it (and evicting the
// least recently used idle plan when the cache is full) on a miss; the
// caller gives it back with fftDone. The cache is locked while a plan is
// made, so one plan is made once.
func (d *device) fftPlan(p *driver.FFTPlan) (*fftPlan, error) {
	c := &d.ffts
	c.mu.Lock()
	defer c.mu.Unlock()
	c.clock++
	if fp := c.m[*p]; fp != nil {
		fp.used = c.clock
		fp.refs++
		return fp, nil
	}
	if len(c.m) >= maxFFTPlans {
		if err := d.evictFFTPlan(); err != nil {
			return nil, err
		}
	}
	cp := C.gp_fplan{kind: C.int(p.Kind), rank: C.int(p.Rank), batch: C.longlong(p.Batch),
		istride: C.longlong(p.IStride), idist: C.longlong(p.IDist), ostride: C.longlong(p.OStride), odist: C.longlong(p.ODist)}
	if p.Type == dtype.Complex128 {
		cp.dbl = 1
	}
	for i := range p.Rank {
		cp.n[i] = C.longlong(p.N[i])
	}
	r := C.gp_fft_plan(d.ctx, &cp)
	if r.cu != 0 || r.status != 0 {
		return nil, d.fftError(r, "%v on %s", p, d)
	}
	fp := &fftPlan{h: C.int(r.v), work: uint64(r.work), used: c.clock, refs: 1}
	if c.m == nil {
		c.m = map[driver.FFTPlan]*fftPlan{}
	}
	c.m[*p] = fp
	return fp, nil
}

// fftDone gives back a plan fftPlan returned.
func (d *device) fftDone(fp *fftPlan) {
	d.ffts.mu.Lock()
	fp.refs--
	d.ffts.mu.Unlock()
}

// evictFFTPlan destroys the least recently used plan that no call holds;
// the caller holds the cache's lock. Work queued with the plan may still
// run, so the context is synchronized first (destroying frees the plan's
// memory); eviction is rare, as the cache holds the plans in use.
func (d *device) evictFFTPlan() error {
	c := &d.ffts
	var oldest driver.FFTPlan
	var victim *fftPlan
	for k, fp := range c.m {
		if fp.refs == 0 && (victim == nil || fp.used < victim.used) {
			oldest, victim = k, fp
		}
	}
	if victim == nil {
		return nil // every plan in use: grow past the bound for now
	}
	delete(c.m, oldest)
	if rc := C.gp_ctx_synchronize(d.ctx); rc != 0 {
		return d.fail(int64(rc), "before destroying a cuFFT plan on %s", d)
	}
	if r := C.gp_fft_destroy(d.ctx, victim.h); r.cu != 0 || r.status != 0 {
		return d.fftError(r, "%v on %s", &oldest, d)
	}
	return nil
}

// fftReady loads cuFFT for a stream's call.
func (s *stream) fftReady(call string) error {
	if err := s.check(call); err != nil {
		return err
	}
	if libHides.cufft.Load() > 0 {
		return hiddenLibError(driver.FFTLibrary, "libcufft")
	}
	return loadCufft(s.dev.info.DriverVersion)
}

// FFTWorkspace makes (or finds) the plan and reports its workspace; see
// driver.FFT.
func (s *stream) FFTWorkspace(p *driver.FFTPlan) (uint64, error) {
	const call = "cufftMakePlanMany64"
	if err := s.fftReady(call); err != nil {
		return 0, err
	}
	fp, err := s.dev.fftPlan(p)
	if err != nil {
		return 0, err
	}
	defer s.dev.fftDone(fp)
	return fp.work, nil
}

// FFT queues one execution: one cgo call, no synchronization; see
// driver.FFT.
func (s *stream) FFT(c *driver.FFTCall) error {
	const call = "cufftExec"
	if err := s.fftReady(call); err != nil {
		return err
	}
	fp, err := s.dev.fftPlan(&c.Plan)
	if err != nil {
		return err
	}
	defer s.dev.fftDone(fp)
	if c.WorkBytes < fp.work {
		return driver.Errorf(call, driver.InvalidValue, "%v: a %d-byte workspace, %d needed", &c.Plan, c.WorkBytes, fp.work)
	}
	work := c.Work
	if fp.work == 0 {
		work = 0
	}
	dbl, inv := C.int(0), C.int(0)
	if c.Plan.Type == dtype.Complex128 {
		dbl = 1
	}
	if c.Inverse {
		inv = 1
	}
	fp.mu.Lock()
	r := C.gp_fft_exec(s.dev.ctx, fp.h, s.h, C.int(c.Plan.Kind), dbl, inv, C.CUdeviceptr(c.In), C.CUdeviceptr(c.Out), C.CUdeviceptr(work))
	fp.mu.Unlock()
	if r.cu != 0 || r.status != 0 {
		return s.dev.fftError(r, "%v on %s", &c.Plan, s.dev)
	}
	return nil
}
