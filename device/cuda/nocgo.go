//go:build !cgo

package cuda

import "github.com/gpuarr/gpuarr/device/driver"

// Without cgo there is no shim: the backend reports the library missing, so
// device.Default falls back to the host device.

type backend struct{}

// Backend returns the CUDA backend; built without cgo it has no devices.
func Backend() driver.Backend { return backend{} }

func (backend) Name() string { return "cuda" }

func (backend) Devices() ([]driver.Device, error) { return nil, errNoCgo() }

func errNoCgo() error {
	return &driver.Error{Call: "dlopen libcuda.so.1", Code: driver.LibraryMissing, Detail: "gpuarr was built without cgo (CGO_ENABLED=0)"}
}

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
