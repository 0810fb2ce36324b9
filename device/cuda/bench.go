//go:build cgo

package cuda

/*
#include "shim.h"
*/
import "C"

import (
	"github.com/gpuarr/gpuarr/device/driver"
)

// Benchmark hooks (issue 2): the binding's overhead is measured against the
// same driver calls made in a C loop inside the shim. They are for
// bench/binding, not for ordinary use.

// CtxGetCurrent is cuCtxGetCurrent through the binding: one cgo call into
// the shim, as every driver call is made. It is a benchmark hook; open the
// devices first (cuInit).
func CtxGetCurrent() (uintptr, error) {
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
func BenchCtxGetCurrentC(n int) (int64, error) {
	if err := load(); err != nil {
		return 0, err
	}
	r := C.gp_bench_ctx_get_current(C.longlong(n))
	if r.rc != 0 {
		return 0, newError(int64(r.rc), "")
	}
	return int64(r.v), nil
}

// BenchLaunchC launches f n times on s with cuLaunchKernel in a C loop and
// returns the nanoseconds the loop took. The arguments are marshalled once,
// as a C program would; keep n below the launch queue's depth and
// synchronize s between calls so no launch waits for queue space.
func BenchLaunchC(s driver.Stream, f driver.Function, grid, block driver.Dim3, sharedBytes uint32, args *driver.Args, n int) (int64, error) {
	st, err := asStream("cuLaunchKernel", s)
	if err != nil {
		return 0, err
	}
	if err := st.check("cuLaunchKernel"); err != nil {
		return 0, err
	}
	fn, buf, off, na, size, err := st.launchArgs(f, args)
	if err != nil {
		return 0, err
	}
	grid, block = grid.Norm(), block.Norm()
	r := C.gp_bench_launch(st.dev.ctx, fn.h,
		C.uint(grid.X), C.uint(grid.Y), C.uint(grid.Z),
		C.uint(block.X), C.uint(block.Y), C.uint(block.Z),
		C.uint(sharedBytes), st.h, buf, off, na, size, C.longlong(n))
	if r.rc != 0 {
		return 0, st.dev.fail(int64(r.rc), "kernel %s", fn.name)
	}
	return int64(r.v), nil
}

// CgoNoop is an empty call into the shim: the cost every call through the
// binding pays before the driver does anything. A benchmark hook.
func CgoNoop() { C.gp_noop() }

// BenchLaunchSpacedC launches f (no arguments, grid and block 1) n times on
// s in a C loop, pausing gap after each launch, and returns the nanoseconds
// spent inside cuLaunchKernel (clock reads around each call included). A
// benchmark hook: it shows how a launch's cost depends on the pace of
// submission.
func BenchLaunchSpacedC(s driver.Stream, f driver.Function, n int, gapNs int64) (int64, error) {
	st, err := asStream("cuLaunchKernel", s)
	if err != nil {
		return 0, err
	}
	if err := st.check("cuLaunchKernel"); err != nil {
		return 0, err
	}
	fn, _, _, _, _, err := st.launchArgs(f, nil)
	if err != nil {
		return 0, err
	}
	r := C.gp_bench_launch_spaced(st.dev.ctx, fn.h, st.h, C.longlong(n), C.longlong(gapNs))
	if r.rc != 0 {
		return 0, st.dev.fail(int64(r.rc), "kernel %s", fn.name)
	}
	return int64(r.v), nil
}
