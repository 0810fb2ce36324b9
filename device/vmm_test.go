package device_test

import (
	"bytes"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gpuarr/gpuarr/device"
)

func TestAddressRangeGrowsInPlaceAndTrims(t *testing.T) {
	dev := testDevice(t)
	r, err := dev.ReserveAddresses(1)
	if err != nil {
		require.ErrorIs(t, err, device.ErrNotSupported)
		t.Skipf("no virtual memory management on %s: %v", dev, err)
	}
	require.NoError(t, r.Free())
	gran := r.Granularity()
	require.Equal(t, gran, r.Size(), "a reservation is rounded up to the granularity")

	r, err = dev.ReserveAddresses(3*gran + 1)
	require.NoError(t, err)
	require.Equal(t, 4*gran, r.Size())
	assert.Zero(t, r.Mapped())
	freeBefore, _, err := dev.MemInfo()
	require.NoError(t, err)

	require.NoError(t, r.Map(0, gran))
	data := bytes.Repeat([]byte{1, 2, 3, 4}, 256)
	require.NoError(t, dev.CopyHtoD(r.Base(), unsafe.Pointer(&data[0]), uint64(len(data))))
	// Grow in place: the next granule continues the same addresses, and a
	// copy across the boundary works.
	require.NoError(t, r.Map(gran, gran))
	require.NoError(t, r.Map(0, 2*gran), "mapping what is mapped changes nothing")
	assert.Equal(t, 2*gran, r.Mapped())
	edge := r.Base().Add(gran - 512)
	require.NoError(t, dev.CopyHtoD(edge, unsafe.Pointer(&data[0]), uint64(len(data))))
	got := make([]byte, len(data))
	require.NoError(t, dev.CopyDtoH(unsafe.Pointer(&got[0]), edge, uint64(len(got))))
	assert.Equal(t, data, got)
	require.NoError(t, dev.CopyDtoH(unsafe.Pointer(&got[0]), r.Base(), uint64(len(got))))
	assert.Equal(t, data[:512], got[:512], "the first granule kept its bytes")
	if dev.Backend() == "host" {
		freeMapped, _, err := dev.MemInfo()
		require.NoError(t, err)
		assert.Equal(t, freeBefore-2*gran, freeMapped, "mapping charges physical memory")
	}

	// Trim back: unmap the second granule.
	require.NoError(t, r.Unmap(gran, 3*gran))
	assert.Equal(t, gran, r.Mapped())
	if dev.Backend() == "host" {
		// On a GPU, touching unmapped addresses may break the context.
		err := dev.CopyHtoD(edge, unsafe.Pointer(&data[0]), uint64(len(data)))
		require.ErrorIs(t, err, device.ErrIllegalAddress)
		assert.Contains(t, err.Error(), "not mapped")
		freeTrimmed, _, err := dev.MemInfo()
		require.NoError(t, err)
		assert.Equal(t, freeBefore-gran, freeTrimmed, "unmapping returns physical memory")
	}

	// Bad input.
	require.ErrorIs(t, r.Map(1, gran), device.ErrInvalidValue)
	require.ErrorIs(t, r.Map(0, 5*gran), device.ErrInvalidValue)
	require.ErrorIs(t, r.Unmap(0, 0), device.ErrInvalidValue)
	_, err = dev.ReserveAddresses(0)
	require.ErrorIs(t, err, device.ErrInvalidValue)

	require.NoError(t, r.Free())
	require.ErrorIs(t, r.Free(), device.ErrClosed)
	require.ErrorIs(t, r.Map(0, gran), device.ErrClosed)
}

func TestAddressRangeMissingSymbol(t *testing.T) {
	dev := testDevice(t)
	restore := dev.HideSymbol("cuMemAddressReserve")
	defer restore()
	_, err := dev.ReserveAddresses(1)
	require.Error(t, err)
	if dev.Backend() == "host" {
		require.ErrorIs(t, err, device.ErrSymbolMissing)
		assert.Contains(t, err.Error(), "cuMemAddressReserve")
	}
}
