//go:build !gpuarrbench

package calibrate

import (
	"errors"

	"github.com/gpuarr/gpuarr/device/driver"
)

// Available reports whether this build has the references (tagged
// gpuarrbench).
const Available = false

// ErrUnavailable is every function's answer in a build without the
// gpuarrbench tag.
var ErrUnavailable = errors.New("calibrate: the C reference loops are only in builds tagged gpuarrbench (make gpu-bundle)")

// CtxGetCurrent needs a build tagged gpuarrbench.
func CtxGetCurrent() (uintptr, error) { return 0, ErrUnavailable }

// CtxGetCurrentC needs a build tagged gpuarrbench.
func CtxGetCurrentC(n int) (int64, error) { return 0, ErrUnavailable }

// LaunchC needs a build tagged gpuarrbench.
func LaunchC(s driver.Stream, f driver.Function, grid, block driver.Dim3, sharedBytes uint32, args *driver.Args, n int) (int64, error) {
	return 0, ErrUnavailable
}

// LaunchSpacedC needs a build tagged gpuarrbench.
func LaunchSpacedC(s driver.Stream, f driver.Function, n int, gapNs int64) (int64, error) {
	return 0, ErrUnavailable
}

// CgoNoop does nothing in a build without the gpuarrbench tag.
func CgoNoop() {}
