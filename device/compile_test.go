package device_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gpuarr/gpuarr/device"
	"github.com/gpuarr/gpuarr/device/driver"
)

const saxpySource = `
extern "C" __global__ void gpuarr_test_saxpy(float *y, const float *x, float a, unsigned long long n) {
	for (unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x; i < n;
	     i += (unsigned long long)gridDim.x * blockDim.x) {
		y[i] += a * x[i];
	}
}
`

func TestLoadCUDA(t *testing.T) {
	dev := testDevice(t)
	if dev.Backend() != "cuda" {
		t.Skip("CUDA C needs a CUDA device with NVRTC; TestCompileCUDAHost covers the host device")
	}
	m, err := dev.LoadCUDA(saxpySource)
	require.NoError(t, err)
	t.Cleanup(func() { _ = m.Close() })
	k, err := m.Kernel("gpuarr_test_saxpy")
	require.NoError(t, err)

	s := newStream(t, dev)
	const n = 1000
	x, y := make([]float32, n), make([]float32, n)
	for i := range x {
		x[i], y[i] = float32(i), 1
	}
	px, py := alloc(t, dev, n*4), alloc(t, dev, n*4)
	require.NoError(t, device.Upload(s, px, x))
	require.NoError(t, device.Upload(s, py, y))
	require.NoError(t, s.Launch(k, device.Linear(n, 128), py, px, float32(2), uint64(n)))
	got := make([]float32, n)
	require.NoError(t, device.Download(s, got, py))
	for i := range got {
		require.Equal(t, 1+2*float32(i), got[i], "y[%d]", i)
	}
}

func TestCompileCUDAErrors(t *testing.T) {
	dev := testDevice(t)
	if dev.Backend() != "cuda" {
		t.Skip("CUDA C needs a CUDA device with NVRTC; TestCompileCUDAHost covers the host device")
	}
	_, err := dev.CompileCUDA(`extern "C" __global__ void broken(float *y) { y[0] = undeclared_name; }`)
	require.ErrorIs(t, err, device.ErrCompile)
	require.ErrorContains(t, err, "undeclared_name", "the error carries the compiler's log")

	_, err = dev.CompileCUDA(saxpySource, "--no-such-option")
	require.ErrorIs(t, err, device.ErrCompile)

	ptx, err := dev.CompileCUDA(saxpySource, "-DUNUSED=1", "--use_fast_math")
	require.NoError(t, err)
	require.Contains(t, ptx, ".entry gpuarr_test_saxpy")

	restore := dev.HideSymbol("libnvrtc")
	_, err = dev.LoadCUDA(saxpySource)
	restore()
	require.ErrorIs(t, err, device.ErrNotSupported)
	require.ErrorContains(t, err, driver.CompilerLibrary)
}

func TestCompileCUDAHost(t *testing.T) {
	dev := testDevice(t)
	if dev.Backend() != "host" {
		t.Skip("the host device's answer; TestLoadCUDA covers CUDA")
	}
	_, err := dev.CompileCUDA(saxpySource)
	require.ErrorIs(t, err, device.ErrNotSupported)
	require.ErrorContains(t, err, "host backend cannot compile CUDA C")
	_, err = dev.LoadCUDA(saxpySource)
	require.ErrorIs(t, err, device.ErrNotSupported)
}

func TestCompileCUDAEmpty(t *testing.T) {
	dev := testDevice(t)
	_, err := dev.CompileCUDA("")
	require.Error(t, err)
}
