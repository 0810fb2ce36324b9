//go:build !cgo && gpuarrbench

package cuda

import "github.com/gpuarr/gpuarr/device/driver"

// CtxGetCurrent is a benchmark hook; without cgo it has nothing to call.
func CtxGetCurrent() (uintptr, error) { return 0, errNoCgo() }

// BenchCtxGetCurrentC is a benchmark hook; without cgo it has nothing to call.
func BenchCtxGetCurrentC(n int) (int64, error) { return 0, errNoCgo() }

// BenchLaunchC is a benchmark hook; without cgo it has nothing to call.
func BenchLaunchC(s driver.Stream, f driver.Function, grid, block driver.Dim3, sharedBytes uint32, args *driver.Args, n int) (int64, error) {
	return 0, errNoCgo()
}

// CgoNoop is a benchmark hook; without cgo it does nothing.
func CgoNoop() {}

// BenchLaunchSpacedC is a benchmark hook; without cgo it has nothing to call.
func BenchLaunchSpacedC(s driver.Stream, f driver.Function, n int, gapNs int64) (int64, error) {
	return 0, errNoCgo()
}
