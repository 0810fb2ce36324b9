package testutil

import (
	"errors"
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/gpuarr/gpuarr/device"
	"github.com/gpuarr/gpuarr/memory"
)

func TestWaitFor(t *testing.T) {
	calls := 0
	assert.True(t, WaitFor(time.Minute, func() bool { calls++; return calls == 3 }))
	assert.Equal(t, 3, calls, "stops at the first true")
	assert.False(t, WaitFor(0, func() bool { return false }))
}

func TestMust(t *testing.T) {
	assert.Equal(t, 7, Must(7, nil))
	assert.PanicsWithError(t, "boom", func() { Must(0, errors.New("boom")) })
}

func TestDefaultHardLimit(t *testing.T) {
	t.Setenv(memory.EnvHardLimit, "")
	DefaultHardLimit("1MiB")
	assert.Equal(t, "1MiB", os.Getenv(memory.EnvHardLimit))
	DefaultHardLimit("2MiB")
	assert.Equal(t, "1MiB", os.Getenv(memory.EnvHardLimit), "the environment's choice stands")
}

// The device helpers on the default device: a buffer written on a stream
// reads back.
func TestDeviceHelpers(t *testing.T) {
	dev := Device(t)
	s := Stream(t, dev)
	p := Alloc(t, dev, 16)
	assert.NoError(t, device.Upload(s, p, []uint32{1, 2, 3, 4}))
	assert.Equal(t, []uint32{1, 2, 3, 4}, Download[uint32](t, s, p, 4))
	assert.Len(t, Streams(t, dev, 3), 3)
	assert.Contains(t, Devices(t), dev, "the default device is one of its backend's")
}
