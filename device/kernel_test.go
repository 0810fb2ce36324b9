package device_test

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gpuarr/gpuarr/device"
)

func TestVectorAddKernel(t *testing.T) {
	dev := testDevice(t)
	ks := kernels(t, dev)
	s := newStream(t, dev)
	for _, n := range []int{1, 255, 257, 1 << 20} {
		a, b := make([]float32, n), make([]float32, n)
		for i := range a {
			a[i], b[i] = rand.Float32()*100-50, rand.Float32()*100-50
		}
		pa, pb, pc := alloc(t, dev, uint64(4*n)), alloc(t, dev, uint64(4*n)), alloc(t, dev, uint64(4*n))
		require.NoError(t, device.Upload(s, pa, a))
		require.NoError(t, device.Upload(s, pb, b))
		require.NoError(t, s.Memset32(pc, 0x7fc00000, uint64(n))) // poison with NaN
		require.NoError(t, s.Launch(ks.VAdd, device.Linear(uint64(n), 256), pa, pb, pc, uint64(n)))
		c := make([]float32, n)
		require.NoError(t, device.Download(s, c, pc))
		for i := range c {
			if c[i] != a[i]+b[i] {
				t.Fatalf("n=%d: c[%d] = %v, want %v", n, i, c[i], a[i]+b[i])
			}
		}
	}
}

// A grid smaller than the data still covers it: the kernels use
// grid-stride loops.
func TestFillKernelGridStride(t *testing.T) {
	dev := testDevice(t)
	ks := kernels(t, dev)
	s := newStream(t, dev)
	const n = 100000
	p := alloc(t, dev, 4*n)
	cfg := device.LaunchConfig{Grid: device.Dim3{X: 3}, Block: device.Dim3{X: 128}}
	require.NoError(t, s.Launch(ks.Fill, cfg, p, uint32(0xC0FFEE), uint64(n)))
	for i, v := range download(t, s, p, n) {
		if v != 0xC0FFEE {
			t.Fatalf("element %d = %#x", i, v)
		}
	}
}

func TestMalformedPTXCarriesJITLog(t *testing.T) {
	dev := testDevice(t)
	bad := dev.PTXHeader() + `
.visible .entry gpuarr_vadd_f32(.param .u64 a)
{
	.reg .b64 %rd<2>;
	ld.param.u64 %rd1, [a];
	add.f32 %rd1, %rd1, %nosuchreg;
	ret;
}
`
	_, err := dev.LoadPTX(bad)
	require.Error(t, err)
	assert.ErrorIs(t, err, device.ErrInvalidPTX)
	var de *device.Error
	require.ErrorAs(t, err, &de)
	assert.NotEmpty(t, de.Detail, "the JIT log")
	assert.Contains(t, err.Error(), "line", "the log points at a line")

	_, err = dev.LoadPTX("this is not PTX")
	assert.ErrorIs(t, err, device.ErrInvalidPTX)
}

func TestLaunchArgumentErrors(t *testing.T) {
	dev := testDevice(t)
	ks := kernels(t, dev)
	s := dev.DefaultStream()
	err := s.Launch(ks.Fill, device.Linear(4, 4), device.Ptr(0), 1, uint64(4))
	require.ErrorIs(t, err, device.ErrInvalidValue)
	assert.Contains(t, err.Error(), "argument 1 has type int")

	_, err = ks.Module.Kernel("no_such_kernel")
	assert.ErrorIs(t, err, device.ErrNotFound)
	assert.Contains(t, err.Error(), "no_such_kernel")
}
