package gpuarr_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gpuarr/gpuarr/device"
	"github.com/gpuarr/gpuarr/gpuarr"
	"github.com/gpuarr/gpuarr/internal/testkernels"
	"github.com/gpuarr/gpuarr/memory"
)

// testDevice is device.Default(): the host device in CI, a GPU under
// GPUARR_DEVICE=cuda, with the same test binary.
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

func newStreams(t testing.TB, dev *device.Device, n int) []*device.Stream {
	t.Helper()
	out := make([]*device.Stream, n)
	for i := range out {
		s, err := dev.NewStream()
		require.NoError(t, err)
		t.Cleanup(func() { _ = s.Close() })
		out[i] = s
	}
	return out
}

// must returns v or panics with err: tests use it where the call is the
// setup rather than what is tested (Go cannot pass t alongside a call's
// two results).
func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

func values[T gpuarr.Numeric](t testing.TB, a *gpuarr.Array[T]) []T {
	t.Helper()
	v, err := a.ToSlice()
	require.NoError(t, err)
	return v
}

func allocated(t testing.TB, dev *device.Device) uint64 {
	t.Helper()
	res, err := memory.Default(dev)
	require.NoError(t, err)
	return res.Stats().AllocatedBytes.Current
}

// one is a single-thread launch (the spin and step kernels use thread 0).
var one = device.LaunchConfig{Grid: device.Dim3{X: 1}, Block: device.Dim3{X: 1}}

func linear(n int) device.LaunchConfig { return device.Linear(uint64(n), 128) }
