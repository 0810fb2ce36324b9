package device_test

import (
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gpuarr/gpuarr/device"
)

// Opening a device that does not exist says which exist, in the user's
// terms (no CUDA result name, no "device(s)"), and how to get more host
// devices; it still matches ErrNoDevice.
func TestOpenMissingDevice(t *testing.T) {
	devs, err := device.BackendDevices("host")
	require.NoError(t, err)
	_, err = device.Open("host:99")
	require.ErrorIs(t, err, device.ErrNoDevice)
	msg := err.Error()
	assert.Contains(t, msg, "host:99")
	assert.Contains(t, msg, "the host backend has "+strconv.Itoa(len(devs))+" device")
	assert.Contains(t, msg, "GPUARR_HOST_DEVICES")
	assert.NotContains(t, msg, "CUDA_ERROR")
	assert.NotContains(t, msg, "(s)")
}

// The host backend's errors say what failed in words: no CUDA call or
// result names, which mean nothing without CUDA. They still match the
// sentinels and keep the names in Call and Code.
func TestHostErrorsHaveNoCUDANames(t *testing.T) {
	dev, err := device.Open("host:0")
	require.NoError(t, err)
	for _, tc := range []struct {
		name     string
		run      func() error
		sentinel error
		want     string
	}{
		{"alloc", func() error { _, err := dev.Alloc(1 << 60); return err }, device.ErrOutOfMemory, "device memory allocation: out of memory"},
		{"alloc 0", func() error { _, err := dev.Alloc(0); return err }, device.ErrInvalidValue, "Device.Alloc: invalid value: size 0"},
		{"free", func() error { return dev.Free(12345) }, device.ErrInvalidValue, "freeing device memory: invalid value"},
		{"ptx", func() error { _, err := dev.LoadPTX("not ptx"); return err }, device.ErrInvalidPTX, "loading PTX"},
		{"compile", func() error { _, err := dev.CompileCUDA("x"); return err }, device.ErrNotSupported, "CUDA C compilation: not supported"},
	} {
		err := tc.run()
		require.ErrorIs(t, err, tc.sentinel, tc.name)
		msg := err.Error()
		assert.Contains(t, msg, tc.want, tc.name)
		assert.NotContains(t, msg, "CUDA_ERROR", tc.name)
		assert.False(t, strings.Contains(msg, "cuMem") || strings.Contains(msg, "cuModule"), "%s: %s", tc.name, msg)
		var de *device.Error
		require.True(t, errors.As(err, &de), tc.name)
		assert.NotEmpty(t, de.Call, tc.name)
	}
}

// Devices are named "host:0" / "cuda:0" in messages: the product name
// (Name) does not repeat in every message that names a device.
func TestDeviceString(t *testing.T) {
	dev, err := device.Default()
	require.NoError(t, err)
	assert.Equal(t, dev.Backend()+":"+strconv.Itoa(dev.Ordinal()), dev.String())
	assert.NotEmpty(t, dev.Name())
}
