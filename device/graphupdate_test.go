package device_test

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gpuarr/gpuarr/device"
	"github.com/gpuarr/gpuarr/device/driver"
)

// A captured launch and copy, named while capturing, take new sizes in
// the instantiated graph; launches issued before an update keep theirs.
func TestGraphNodesUpdateInPlace(t *testing.T) {
	dev := testDevice(t)
	ks := kernels(t, dev)
	s := newStream(t, dev)
	const n = 256
	x, y, z := alloc(t, dev, 4*n), alloc(t, dev, 4*n), alloc(t, dev, 4*n)

	require.NoError(t, s.BeginCapture())
	require.NoError(t, s.Launch(ks.Fill, device.Linear(n, 128), x, uint32(7), uint64(n)))
	fill, err := s.LastCaptured()
	require.NoError(t, err)
	require.NoError(t, s.CopyDtoD(y, x, 4*n))
	cp, err := s.LastCaptured()
	require.NoError(t, err)
	require.NoError(t, s.Memset32(z, 5, n))
	set, err := s.LastCaptured()
	require.NoError(t, err)
	assert.True(t, fill.Valid())
	assert.NotEqual(t, fill, cp)
	g, err := s.EndCapture()
	require.NoError(t, err)
	defer g.Close()

	reset := func() {
		require.NoError(t, s.Memset32(x, 0, n))
		require.NoError(t, s.Memset32(y, 0, n))
		require.NoError(t, s.Memset32(z, 0, n))
	}
	reset()
	require.NoError(t, g.Launch(s))
	assert.Equal(t, slices.Repeat([]uint32{7}, n), download(t, s, y, n), "as captured")

	for _, m := range []int{1, 100, 37, n} {
		reset()
		var a driver.Args
		require.True(t, a.Append(driver.ArgPtr, uint64(x)))
		require.True(t, a.Append(driver.ArgU32, 9))
		require.True(t, a.Append(driver.ArgU64, uint64(m)))
		require.NoError(t, g.UpdateLaunch(fill, ks.Fill, device.Linear(uint64(m), 64), &a))
		require.NoError(t, g.UpdateCopy(cp, uint64(4*m)))
		require.NoError(t, g.UpdateMemset(set, uint64(4*m)))
		require.NoError(t, g.Launch(s))
		want := append(slices.Repeat([]uint32{9}, m), make([]uint32, n-m)...)
		assert.Equal(t, want, download(t, s, x, n), "fill of %d", m)
		assert.Equal(t, want, download(t, s, y, n), "copy of %d", m)
		assert.Equal(t, append(slices.Repeat([]uint32{5}, m), make([]uint32, n-m)...), download(t, s, z, n), "memset of %d", m)
	}

	// Misuse.
	var a driver.Args
	require.True(t, a.Append(driver.ArgPtr, uint64(x)))
	require.True(t, a.Append(driver.ArgU32, 9))
	require.True(t, a.Append(driver.ArgU64, 1))
	_, err = s.LastCaptured()
	assert.ErrorIs(t, err, device.ErrInvalidValue, "not capturing")
	assert.ErrorIs(t, g.UpdateLaunch(device.GraphNode{}, ks.Fill, device.Linear(1, 64), &a), device.ErrInvalidValue)
	assert.ErrorIs(t, g.UpdateCopy(device.GraphNode{}, 4), device.ErrInvalidValue)
	assert.ErrorIs(t, g.UpdateCopy(cp, 0), device.ErrInvalidValue)
	assert.ErrorIs(t, g.UpdateMemset(set, 0), device.ErrInvalidValue)
	assert.Error(t, g.UpdateMemset(set, 6), "not whole 32-bit words")
	assert.Error(t, g.UpdateMemset(cp, 4), "a copy node is not a memset node")
	assert.ErrorIs(t, g.UpdateLaunch(fill, nil, device.Linear(1, 64), &a), device.ErrInvalidValue)
	assert.Error(t, g.UpdateCopy(fill, 4), "a kernel node is not a copy node")
	assert.Error(t, g.UpdateLaunch(cp, ks.Fill, device.Linear(1, 64), &a), "a copy node is not a kernel node")

	require.NoError(t, g.Close())
	assert.ErrorIs(t, g.UpdateCopy(cp, 4), device.ErrClosed)
	assert.ErrorIs(t, g.UpdateMemset(set, 4), device.ErrClosed)
	assert.ErrorIs(t, g.UpdateLaunch(fill, ks.Fill, device.Linear(1, 64), &a), device.ErrClosed)
}

func TestGraphNodeSymbolMissing(t *testing.T) {
	dev := testDevice(t)
	ks := kernels(t, dev)
	s := newStream(t, dev)
	x := alloc(t, dev, 64)
	require.NoError(t, s.BeginCapture())
	require.NoError(t, s.Launch(ks.Fill, device.Linear(16, 16), x, uint32(1), uint64(16)))
	restore := dev.HideSymbol("cuStreamGetCaptureInfo_v3")
	_, err := s.LastCaptured()
	restore()
	assert.ErrorIs(t, err, device.ErrSymbolMissing)
	node, err := s.LastCaptured()
	require.NoError(t, err, "restored")
	g, err := s.EndCapture()
	require.NoError(t, err)
	defer g.Close()

	var a driver.Args
	require.True(t, a.Append(driver.ArgPtr, uint64(x)))
	require.True(t, a.Append(driver.ArgU32, 2))
	require.True(t, a.Append(driver.ArgU64, 8))
	restore = dev.HideSymbol("cuGraphExecKernelNodeSetParams_v2")
	err = g.UpdateLaunch(node, ks.Fill, device.Linear(8, 16), &a)
	restore()
	assert.ErrorIs(t, err, device.ErrSymbolMissing)
	require.NoError(t, g.UpdateLaunch(node, ks.Fill, device.Linear(8, 16), &a))
}
