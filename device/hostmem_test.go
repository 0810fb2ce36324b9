package device_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gpuarr/gpuarr/device"
)

// Pinned host memory holds data through asynchronous copies both ways, and
// frees once; anything else is refused cleanly.
func TestAllocHost(t *testing.T) {
	dev := testDevice(t)
	s := newStream(t, dev)
	const n = 1<<20 + 5
	pin, err := dev.AllocHost(n)
	require.NoError(t, err)
	require.Len(t, pin, n)
	src := randomBytes(7, n)
	copy(pin, src)

	p := alloc(t, dev, n)
	require.NoError(t, device.Upload(s, p, pin))
	back, err := dev.AllocHost(n)
	require.NoError(t, err)
	require.NoError(t, device.Download(s, back, p))
	require.NoError(t, s.Synchronize()) // pinned downloads may return early
	assert.Equal(t, src, back)

	require.NoError(t, dev.FreeHost(pin))
	require.NoError(t, dev.FreeHost(back))
	assert.ErrorIs(t, dev.FreeHost(pin), device.ErrInvalidValue, "double free")
	assert.ErrorIs(t, dev.FreeHost(make([]byte, 8)), device.ErrInvalidValue, "Go memory")
	assert.ErrorIs(t, dev.FreeHost(nil), device.ErrInvalidValue)
	_, err = dev.AllocHost(0)
	assert.ErrorIs(t, err, device.ErrInvalidValue)
}

// A driver without cuMemAllocHost loses pinned memory only.
func TestAllocHostSymbolMissing(t *testing.T) {
	dev := testDevice(t)
	restore := dev.HideSymbol("cuMemAllocHost_v2")
	_, err := dev.AllocHost(64)
	restore()
	assert.ErrorIs(t, err, device.ErrSymbolMissing)
	b, err := dev.AllocHost(64)
	require.NoError(t, err)
	require.NoError(t, dev.FreeHost(b))
}
