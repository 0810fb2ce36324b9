//go:build gpuarrbench

package calibrate

import (
	"errors"

	"github.com/gpuarr/gpuarr/device/cuda"
	"github.com/gpuarr/gpuarr/device/driver"
)

// Available reports whether this build has the references (tagged
// gpuarrbench).
const Available = true

// CtxGetCurrent is cuCtxGetCurrent through the binding: one cgo call into
// the shim, as every driver call is made. Open the devices first.
func CtxGetCurrent() (uintptr, error) { return cuda.CtxGetCurrent() }

// CtxGetCurrentC calls cuCtxGetCurrent n times in a C loop and returns the
// nanoseconds the loop took.
func CtxGetCurrentC(n int) (int64, error) { return cuda.BenchCtxGetCurrentC(n) }

// LaunchC launches f n times on s with cuLaunchKernel in a C loop and
// returns the nanoseconds the loop took (arguments marshalled once, as a C
// program would).
func LaunchC(s driver.Stream, f driver.Function, grid, block driver.Dim3, sharedBytes uint32, args *driver.Args, n int) (int64, error) {
	return cuda.BenchLaunchC(s, f, grid, block, sharedBytes, args, n)
}

// LaunchSpacedC launches f (no arguments, one thread) n times with a pause
// of gapNs after each, returning the nanoseconds spent inside
// cuLaunchKernel.
func LaunchSpacedC(s driver.Stream, f driver.Function, n int, gapNs int64) (int64, error) {
	return cuda.BenchLaunchSpacedC(s, f, n, gapNs)
}

// CgoNoop is an empty call into the shim: the floor under every driver
// call through the binding.
func CgoNoop() { cuda.CgoNoop() }

// ErrUnavailable is what an untagged build answers; a tagged one never
// returns it.
var ErrUnavailable = errors.New("calibrate: the C reference loops are only in builds tagged gpuarrbench (make gpu-bundle)")
