package unified_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

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
		v, err := p.Slice()
		require.NoError(t, err)
		if v[0] != float32(trial) || v[n-1] != float32(trial) {
			wrong++
		}
		for i := range v {
			v[i] = float32(-trial)
		}
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
	_, err = p.Slice()
	assert.ErrorIs(t, err, gpuarr.ErrReleased)
	assert.ErrorIs(t, p.Download(a, s), gpuarr.ErrReleased)
}
