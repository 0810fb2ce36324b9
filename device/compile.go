package device

import (
	"github.com/gpuarr/gpuarr/device/driver"
)

// cudaSourceName is the file name NVRTC gives the source in its messages.
const cudaSourceName = "gpuarr_kernel.cu"

// CompileCUDA compiles CUDA C++ source to PTX for d with NVRTC. Declare
// kernels extern "C" so they keep their names:
//
//	ptx, err := dev.CompileCUDA(`extern "C" __global__ void scale(float *x, float a, unsigned long long n) { ... }`)
//
// opts are NVRTC options (-default-device, -use_fast_math, -DNAME=V, ...);
// without a --gpu-architecture option the device's own is used. A source
// that does not compile gives an error matching ErrCompile that carries
// the compiler's log; without NVRTC (or on the host backend) the error
// matches ErrNotSupported and names the library.
func (d *Device) CompileCUDA(src string, opts ...string) (string, error) {
	const call = "Device.CompileCUDA"
	c, ok := d.drv.(driver.Compiler)
	if !ok {
		return "", driver.PlainErrorf(call, driver.NotSupported, "the %s backend cannot compile CUDA C (%s)", d.Backend(), driver.CompilerLibrary)
	}
	if src == "" {
		return "", invalid(call, "empty source")
	}
	ptx, _, err := c.CompileCUDA(src, cudaSourceName, opts)
	if err != nil {
		return "", err
	}
	return ptx, nil
}

// LoadCUDA compiles CUDA C++ source (CompileCUDA) and loads the PTX
// (LoadPTX): one call from source to kernels.
func (d *Device) LoadCUDA(src string, opts ...string) (*Module, error) {
	ptx, err := d.CompileCUDA(src, opts...)
	if err != nil {
		return nil, err
	}
	return d.LoadPTX(ptx)
}
