package gpuarr_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/gpuarr/gpuarr/device"
	"github.com/gpuarr/gpuarr/gpuarr"
	"github.com/gpuarr/gpuarr/internal/cleanups"
	"github.com/gpuarr/gpuarr/internal/testutil"
	"github.com/gpuarr/gpuarr/memory"
)

// The device under test is device.Default(): the host device in CI, a GPU
// under GPUARR_DEVICE=cuda, with the same test binary; the helpers are
// internal/testutil's.
var (
	testDevice = testutil.Device
	kernels    = testutil.Kernels
	newStreams = testutil.Streams
)

// must returns v or panics with err (testutil.Must).
func must[T any](v T, err error) T { return testutil.Must(v, err) }

func values[T gpuarr.Element](t testing.TB, a *gpuarr.Array[T]) []T {
	t.Helper()
	v, err := a.ToSlice()
	require.NoError(t, err)
	return v
}

// settledAllocated is allocated once earlier tests' garbage is freed, so
// that their cleanups cannot undercut a baseline taken here.
func settledAllocated(t testing.TB, dev *device.Device) uint64 {
	t.Helper()
	cleanups.Collect(5 * time.Second)
	return allocated(t, dev)
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
