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
