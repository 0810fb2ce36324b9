package unified_test

import (
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gpuarr/gpuarr/device"
	"github.com/gpuarr/gpuarr/gpuarr"
	"github.com/gpuarr/gpuarr/unified"
)

// Asynchronous copies through pinned memory: the CPU sees a download only
// after it is done, and an upload reads what the CPU wrote before it.
func TestPinnedCopies(t *testing.T) {
	dev := testDevice(t)
	s := newStream(t, dev)
	const n = 4096
	p, err := unified.NewPinned[float32](n, dev)
	require.NoError(t, err)
	defer p.Release()
	a, err := gpuarr.Zeros[float32](gpuarr.Shape{n})
	require.NoError(t, err)
	defer a.Release()
	wrong := 0
	for trial := range 100 {
		require.NoError(t, gpuarr.EvalInto(a, gpuarr.Scalar(float32(trial)), gpuarr.On(s)))
		require.NoError(t, p.Download(a, s))
		require.NoError(t, p.Borrow(func(v []float32) error {
			if v[0] != float32(trial) || v[n-1] != float32(trial) {
				wrong++
			}
			for i := range v {
				v[i] = float32(-trial)
			}
			return nil
		}))
		require.NoError(t, p.Upload(a, s))
		got, err := a.ToSlice()
		require.NoError(t, err)
		if got[n/2] != float32(-trial) {
			wrong++
		}
	}
	assert.Zero(t, wrong)

	b, err := gpuarr.Zeros[float32](gpuarr.Shape{n + 1})
	require.NoError(t, err)
	defer b.Release()
	assert.ErrorIs(t, p.Download(b, s), gpuarr.ErrShape)
	assert.ErrorIs(t, p.Download(nil, s), gpuarr.ErrArgument)
	_, err = unified.NewPinned[float32](0, dev)
	assert.ErrorIs(t, err, gpuarr.ErrArgument)

	require.NoError(t, p.Release())
	require.NoError(t, p.Release(), "a second Release does nothing")
	_, err = p.UnsafeSlice()
	assert.ErrorIs(t, err, gpuarr.ErrReleased)
	assert.ErrorIs(t, p.Borrow(func([]float32) error { return nil }), gpuarr.ErrReleased)
	assert.ErrorIs(t, p.Download(a, s), gpuarr.ErrReleased)
}

// A pinned array's slice is also a direct source and destination for
// gpuarr's CopyFromHost and CopyToHost (DMA, no staging copy; both return
// with the copy done, so the slice is free for reuse at once).
func TestPinnedWithCopyFromHostAndToHost(t *testing.T) {
	dev := testDevice(t)
	s := newStream(t, dev)
	const n = 4096
	p, err := unified.NewPinned[float32](n, dev)
	require.NoError(t, err)
	defer p.Release()
	a, err := gpuarr.Zeros[float32](gpuarr.Shape{n}, gpuarr.On(s))
	require.NoError(t, err)
	defer a.Release()
	v, err := p.UnsafeSlice() // p stays reachable: its Release is deferred
	require.NoError(t, err)
	require.True(t, device.IsPinned(unsafe.Pointer(unsafe.SliceData(v)), n*4), "the registry knows pinned arrays")
	wrong := 0
	for trial := range 50 {
		for i := range v {
			v[i] = float32(trial)
		}
		require.NoError(t, a.CopyFromHost(v, gpuarr.On(s)))
		for i := range v {
			v[i] = -1 // reused at once
		}
		require.NoError(t, gpuarr.EvalInto(a, gpuarr.Add[float32](a, gpuarr.Scalar[float32](1)), gpuarr.On(s)))
		require.NoError(t, a.CopyToHost(v))
		if v[0] != float32(trial+1) || v[n-1] != float32(trial+1) {
			wrong++
		}
	}
	assert.Zero(t, wrong)
}
