package device_test

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gpuarr/gpuarr/device"
)

func TestFreeUnknownPointer(t *testing.T) {
	dev := testDevice(t)
	p, err := dev.Alloc(4096)
	require.NoError(t, err)
	require.NoError(t, dev.Free(p))
	for _, bad := range []device.Ptr{p, 0x10, p + 0x1000000000} {
		err := dev.Free(bad)
		assert.ErrorIs(t, err, device.ErrInvalidValue, "free of %v", bad)
	}
}

func TestAllocatingPastCapacityIsOutOfMemory(t *testing.T) {
	dev := testDevice(t)
	_, total, err := dev.MemInfo()
	require.NoError(t, err)
	_, err = dev.Alloc(total + 1<<30)
	require.Error(t, err)
	assert.ErrorIs(t, err, device.ErrOutOfMemory)
	var de *device.Error
	require.ErrorAs(t, err, &de)
	assert.Contains(t, err.Error(), "out of memory")
	_, err = dev.Alloc(0)
	assert.ErrorIs(t, err, device.ErrInvalidValue)
	// The device is still usable afterwards.
	p, err := dev.Alloc(1 << 20)
	require.NoError(t, err)
	require.NoError(t, dev.Free(p))
}

func TestUnknownDeviceSpecIsConfigError(t *testing.T) {
	for _, spec := range []string{"gpu", "cuda:-1", "cuda:x", "host:1.5", ""} {
		_, err := device.Open(spec)
		require.Error(t, err, spec)
		assert.ErrorIs(t, err, device.ErrBadConfig, spec)
		assert.Contains(t, err.Error(), "GPUARR_DEVICE", spec)
	}
	_, err := device.Open("host:999")
	assert.ErrorIs(t, err, device.ErrNoDevice)
}

// A missing entry point disables its feature only, with a typed error; the
// rest of the device keeps working, and the feature comes back with the symbol.
func TestMissingSymbolDisablesOnlyItsFeature(t *testing.T) {
	dev := testDevice(t)
	s := newStream(t, dev)
	restore := dev.HideSymbol("cuMemAllocAsync")
	_, err := s.AllocAsync(1024)
	require.Error(t, err)
	assert.ErrorIs(t, err, device.ErrSymbolMissing)
	assert.ErrorIs(t, err, device.ErrNotSupported)
	assert.Contains(t, err.Error(), "cuMemAllocAsync")

	p, err := dev.Alloc(1024) // other features unaffected
	require.NoError(t, err)
	require.NoError(t, s.Memset32(p, 5, 256))
	assert.Equal(t, uint32(5), download(t, s, p, 1)[0])
	require.NoError(t, dev.Free(p))

	restore()
	q, err := s.AllocAsync(1024)
	require.NoError(t, err)
	require.NoError(t, s.FreeAsync(q))
	require.NoError(t, s.Synchronize())
}

func TestErrorsNameTheCall(t *testing.T) {
	err := error(&device.Error{Call: "cuMemAlloc_v2", Code: 2, Detail: "1 TiB"})
	assert.Equal(t, "cuMemAlloc_v2: CUDA_ERROR_OUT_OF_MEMORY (out of memory): 1 TiB", err.Error())
	assert.True(t, errors.Is(err, device.ErrOutOfMemory))
	assert.False(t, errors.Is(err, device.ErrInvalidValue))
	assert.True(t, errors.Is(&device.Error{Code: 700}, device.ErrDeviceLost), "illegal address is sticky")
}
