package device_test

import (
	"testing"
	"unsafe"

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

// IsPinned knows the live AllocHost ranges, to the byte.
func TestIsPinned(t *testing.T) {
	dev := testDevice(t)
	const n = 4096
	pin, err := dev.AllocHost(n)
	require.NoError(t, err)
	base := unsafe.Pointer(unsafe.SliceData(pin))
	assert.True(t, device.IsPinned(base, n), "the whole allocation")
	assert.True(t, device.IsPinned(unsafe.Add(base, 100), n-100), "a tail")
	assert.True(t, device.IsPinned(unsafe.Add(base, 8), 16), "inside")
	assert.False(t, device.IsPinned(base, n+1), "one byte past the end")
	assert.False(t, device.IsPinned(unsafe.Add(base, 100), n-99), "a tail one byte too long")
	goMem := make([]byte, 64)
	assert.False(t, device.IsPinned(unsafe.Pointer(unsafe.SliceData(goMem)), 64), "Go memory")
	require.NoError(t, dev.FreeHost(pin))
	assert.False(t, device.IsPinned(base, 8), "freed")
}
