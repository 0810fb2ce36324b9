package unified_test

import (
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/gpuarr/gpuarr/device"
	"github.com/gpuarr/gpuarr/gpuarr"
	"github.com/gpuarr/gpuarr/internal/cleanups"
	"github.com/gpuarr/gpuarr/internal/testutil"
	"github.com/gpuarr/gpuarr/unified"
)

// A View keeps its array alive: with the array itself unreachable, a
// collection must not return its memory while the view is in use, and new
// unified arrays written meanwhile do not show through the view.
func TestViewKeepsItsArrayAlive(t *testing.T) {
	dev := testDevice(t)
	const n = 1 << 12
	want := make([]float32, n)
	for i := range want {
		want[i] = float32(i) + 0.5
	}
	cleanups.Collect(5 * time.Second)
	before := managedInUse(t, dev)
	v := func() unified.View[float32] {
		a, err := unified.FromSlice(want, gpuarr.Shape{n})
		require.NoError(t, err)
		v, err := unified.Host(a)
		require.NoError(t, err)
		return v // a is reachable only through v from here on
	}()
	held := managedInUse(t, dev)
	require.Greater(t, held, before)
	for range 3 {
		cleanups.Collect(5 * time.Second)
	}
	// Checked before the view is read: with its memory gone, reading it
	// could fault.
	require.Equal(t, held, managedInUse(t, dev), "the array's memory went back while its view was live")
	for range 4 {
		b, err := unified.Zeros[float32](gpuarr.Shape{n})
		require.NoError(t, err)
		require.NoError(t, b.CopyFromHost(make([]float32, n)))
		defer b.Release()
	}
	for i := range n {
		require.Equal(t, want[i], v.At(i), "element %d through the view", i)
	}
	runtime.KeepAlive(v)
}

// Releasing a unified array while a read of it is still queued on another
// stream (behind a slow kernel) must not return its memory before that
// read ran: the read sees the array's contents, not what a new unified
// array written at once put there, nor freed memory.
func TestReleaseWaitsForQueuedRead(t *testing.T) {
	dev := testDevice(t)
	ks := testutil.Kernels(t, dev)
	ss := testutil.Streams(t, dev, 2)
	a, b := ss[0], ss[1]
	const n = 1 << 10
	delay, err := gpuarr.Zeros[uint32](gpuarr.Shape{1}, gpuarr.On(b))
	require.NoError(t, err)
	defer delay.Release()
	one := device.LaunchConfig{Grid: device.Dim3{X: 1}, Block: device.Dim3{X: 1}}
	for trial := range 20 {
		v := uint32(trial + 1)
		u, err := unified.FromSlice(slices.Repeat([]uint32{v}, n), gpuarr.Shape{n}, unified.On(a))
		require.NoError(t, err)
		y, err := gpuarr.Empty[uint32](gpuarr.Shape{n}, gpuarr.On(b))
		require.NoError(t, err)
		require.NoError(t, gpuarr.Launch(ks.SpinWrite, one, gpuarr.Out(delay), uint32(0), uint64(50_000), gpuarr.On(b)))
		require.NoError(t, gpuarr.Launch(ks.Copy, device.Linear(n, 128), gpuarr.Out(y), gpuarr.In(u), uint64(n), gpuarr.On(b)))
		require.NoError(t, u.Release())
		z, err := unified.FromSlice(slices.Repeat([]uint32{1000 + v}, n), gpuarr.Shape{n}, unified.On(a))
		require.NoError(t, err)
		got, err := y.ToSlice()
		require.NoError(t, err)
		require.Equal(t, slices.Repeat([]uint32{v}, n), got, "trial %d: the read queued before Release", trial)
		require.NoError(t, y.Release())
		require.NoError(t, z.Release())
	}
}
