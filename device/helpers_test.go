package device_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gpuarr/gpuarr/device"
	"github.com/gpuarr/gpuarr/internal/testkernels"
)

// testDevice is the device under test: device.Default(), so the same test
// binary checks the host backend in CI and a GPU under GPUARR_DEVICE=cuda.
func testDevice(t testing.TB) *device.Device {
	t.Helper()
	dev, err := device.Default()
	require.NoError(t, err)
	return dev
}

func kernels(t testing.TB, dev *device.Device) *testkernels.Set {
	t.Helper()
	ks, err := testkernels.Load(dev)
	require.NoError(t, err)
	t.Cleanup(func() { _ = ks.Module.Close() })
	return ks
}

func newStream(t testing.TB, dev *device.Device) *device.Stream {
	t.Helper()
	s, err := dev.NewStream()
	require.NoError(t, err)
	t.Cleanup(func() { _ = s.Close() })
	return s
}

func alloc(t testing.TB, dev *device.Device, n uint64) device.Ptr {
	t.Helper()
	p, err := dev.Alloc(n)
	require.NoError(t, err)
	t.Cleanup(func() { _ = dev.Free(p) })
	return p
}

// download reads n uint32 words from p in s's order.
func download(t testing.TB, s *device.Stream, p device.Ptr, n int) []uint32 {
	t.Helper()
	out := make([]uint32, n)
	require.NoError(t, device.Download(s, out, p))
	return out
}
