//go:build cgo && gpuarrbench

package cuda

/*
#cgo noescape gp_bench_launch
#cgo nocallback gp_bench_launch
#cgo noescape gp_bench_handoff
#cgo nocallback gp_bench_handoff
#include "probe.h"
*/
import "C"

import (
	"github.com/gpuarr/gpuarr/device/driver"
)

// Benchmark probes, only in builds with -tags gpuarrbench: devices
// implement driver.CallProbe and streams driver.LaunchProbe and
// driver.HandoffProbe, the driver calls the binding makes run in C loops
// (probe.c, under the same build constraint) for benchmarks to compare
// the binding with.

var (
	_ driver.CallProbe   = (*device)(nil)
	_ driver.LaunchProbe = (*stream)(nil)
)

// CtxGetCurrent is cuCtxGetCurrent through the binding: one cgo call into
// the shim, as every driver call is made.
func (d *device) CtxGetCurrent() (uintptr, error) {
	if err := load(); err != nil {
		return 0, err
	}
	r := C.gp_ctx_get_current()
	if r.rc != 0 {
		return 0, newError(int64(r.rc), "")
	}
	return uintptr(r.v), nil
}

// BenchCtxGetCurrentC calls cuCtxGetCurrent n times in a C loop and
// returns the nanoseconds the loop took (clock_gettime around it).
func (d *device) BenchCtxGetCurrentC(n int) (int64, error) {
	if err := load(); err != nil {
		return 0, err
	}
	r := C.gp_bench_ctx_get_current(C.longlong(n))
	if r.rc != 0 {
		return 0, newError(int64(r.rc), "")
	}
	return int64(r.v), nil
}

// CgoNoop is an empty call into the shim.
func (d *device) CgoNoop() { C.gp_noop() }

// BenchLaunchC launches f n times on s with cuLaunchKernel in a C loop.
func (s *stream) BenchLaunchC(f driver.Function, grid, block driver.Dim3, sharedBytes uint32, args *driver.Args, n int) (int64, error) {
	if err := s.check("cuLaunchKernel"); err != nil {
		return 0, err
	}
	fn, buf, off, na, size, err := s.launchArgs(f, args)
	if err != nil {
		return 0, err
	}
	grid, block = grid.Norm(), block.Norm()
	r := C.gp_bench_launch(s.dev.ctx, fn.h,
		C.uint(grid.X), C.uint(grid.Y), C.uint(grid.Z),
		C.uint(block.X), C.uint(block.Y), C.uint(block.Z),
		C.uint(sharedBytes), s.h, buf, off, na, size, C.longlong(n))
	if r.rc != 0 {
		return 0, s.dev.fail(int64(r.rc), "kernel %s", fn.name)
	}
	return int64(r.v), nil
}

// BenchLaunchSpacedC launches f (no arguments, grid and block 1) n times on
// s in a C loop, pausing gapNs after each launch, and returns the
// nanoseconds spent inside cuLaunchKernel (clock reads around each call
// included).
func (s *stream) BenchLaunchSpacedC(f driver.Function, n int, gapNs int64) (int64, error) {
	if err := s.check("cuLaunchKernel"); err != nil {
		return 0, err
	}
	fn, _, _, _, _, err := s.launchArgs(f, nil)
	if err != nil {
		return 0, err
	}
	r := C.gp_bench_launch_spaced(s.dev.ctx, fn.h, s.h, C.longlong(n), C.longlong(gapNs))
	if r.rc != 0 {
		return 0, s.dev.fail(int64(r.rc), "kernel %s", fn.name)
	}
	return int64(r.v), nil
}

var _ driver.HandoffProbe = (*stream)(nil)

// BenchHandoffC runs n producer/consumer rounds in a C loop (see
// driver.HandoffProbe); s is the producer stream.
func (s *stream) BenchHandoffC(fill driver.Function, fillArgs *driver.Args, copyFn driver.Function, copyArgs *driver.Args, grid, block driver.Dim3, sharedBytes uint32, cons driver.Stream, ordering driver.HandoffOrdering, n int) (int64, error) {
	if err := s.check("cuLaunchKernel"); err != nil {
		return 0, err
	}
	cs, ok := cons.(*stream)
	if !ok || cs == nil {
		return 0, driver.Errorf("cuStreamWaitEvent", driver.InvalidValue, "%T is not a CUDA stream", cons)
	}
	if err := cs.check("cuStreamWaitEvent"); err != nil {
		return 0, err
	}
	if cs.dev != s.dev {
		return 0, driver.Errorf("cuStreamWaitEvent", driver.InvalidValue, "consumer stream of %s, producer of %s", cs.dev, s.dev)
	}
	ffn, fbuf, foff, fna, fsize, err := s.launchArgs(fill, fillArgs)
	if err != nil {
		return 0, err
	}
	cfn, cbuf, coff, cna, csize, err := s.launchArgs(copyFn, copyArgs)
	if err != nil {
		return 0, err
	}
	grid, block = grid.Norm(), block.Norm()
	if ordering < driver.HandoffOneStream || ordering > driver.HandoffStreamMemOps {
		return 0, driver.Errorf("cuStreamWaitEvent", driver.InvalidValue, "unknown hand-off ordering %d", ordering)
	}
	r := C.gp_bench_handoff(s.dev.ctx, ffn.h, cfn.h,
		C.uint(grid.X), C.uint(grid.Y), C.uint(grid.Z),
		C.uint(block.X), C.uint(block.Y), C.uint(block.Z),
		C.uint(sharedBytes), s.h, cs.h, C.int(ordering),
		fbuf, foff, fna, fsize, cbuf, coff, cna, csize, C.longlong(n))
	if r.rc != 0 {
		return 0, s.dev.fail(int64(r.rc), "kernels %s and %s", ffn.name, cfn.name)
	}
	return int64(r.v), nil
}
