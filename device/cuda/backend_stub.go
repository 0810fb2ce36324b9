// Package cuda is a placeholder until the shim lands.
package cuda

import "github.com/gpuarr/gpuarr/device/driver"

type backend struct{}

// Backend returns the CUDA backend.
func Backend() driver.Backend { return backend{} }

func (backend) Name() string { return "cuda" }
func (backend) Devices() ([]driver.Device, error) {
	return nil, &driver.Error{Call: "dlopen libcuda.so.1", Code: driver.LibraryMissing}
}
