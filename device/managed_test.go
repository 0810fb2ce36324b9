package device_test

import (
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gpuarr/gpuarr/device"
)

func TestManagedMemory(t *testing.T) {
	dev := testDevice(t)
	if !dev.Info().ManagedMemory {
		t.Skipf("%s has no managed memory", dev)
	}
	s := newStream(t, dev)
	const n = 1 << 16
	p, err := dev.AllocManaged(n)
	require.NoError(t, err)
	hp := dev.HostPointer(p)
	require.NotNil(t, hp)
	b := unsafe.Slice((*byte)(hp), n)
	for i := range b {
		b[i] = byte(i)
	}
	require.NoError(t, s.Prefetch(p, n, device.LocationOf(dev)))
	require.NoError(t, s.Memset8(p.Add(n/2), 7, n/2)) // the device writes half
	require.NoError(t, s.Prefetch(p, n, device.HostLocation))
	require.NoError(t, s.Synchronize())
	assert.Equal(t, byte(5), b[5])
	assert.Equal(t, byte(7), b[n-1])
	for _, a := range []device.Advice{1, 2, 3, 4, 5, 6} {
		assert.NoError(t, dev.Advise(p, n, a, device.LocationOf(dev)), "advice %d", a)
	}
	assert.NoError(t, dev.Advise(p, n, 3, device.HostLocation))
	require.NoError(t, dev.Free(p))

	_, err = dev.AllocManaged(0)
	assert.ErrorIs(t, err, device.ErrInvalidValue)
	assert.ErrorIs(t, s.Prefetch(p, 0, device.HostLocation), device.ErrInvalidValue)
	assert.ErrorIs(t, dev.Advise(p, 0, 1, device.HostLocation), device.ErrInvalidValue)
	assert.Error(t, dev.Free(p), "double free")
}

// On the host backend, prefetch and advice check their range like the driver.
func TestManagedArgumentsHost(t *testing.T) {
	dev := testDevice(t)
	if dev.Backend() != "host" {
		t.Skip("checks the host backend's validation; the driver's own messages differ")
	}
	s := newStream(t, dev)
	d, err := dev.Alloc(64)
	require.NoError(t, err)
	defer dev.Free(d)
	assert.ErrorIs(t, s.Prefetch(d, 64, device.HostLocation), device.ErrInvalidValue, "not managed")
	m, err := dev.AllocManaged(64)
	require.NoError(t, err)
	defer dev.Free(m)
	assert.ErrorIs(t, s.Prefetch(m, 65, device.HostLocation), device.ErrInvalidValue, "past the end")
	assert.ErrorIs(t, dev.Advise(m, 64, 9, device.HostLocation), device.ErrInvalidValue, "bad advice")
	assert.Error(t, dev.Advise(m, 64, 1, device.Location{Device: 99}), "bad device")
}
