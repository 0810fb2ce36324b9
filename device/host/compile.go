package host

import "github.com/gpuarr/gpuarr/device/driver"

// CompileCUDA always fails: the host device runs registered Go kernels,
// not compiled CUDA C. The error matches driver.ErrNotSupported, as a GPU
// machine without NVRTC answers.
func (d *device) CompileCUDA(src, name string, opts []string) (ptx, log string, err error) {
	return "", "", errorf("nvrtcCompileProgram", driver.NotSupported,
		"the host backend cannot compile CUDA C (%s is for CUDA devices); register a Go kernel with device.Device.RegisterHostKernel instead", driver.CompilerLibrary)
}
