// Package testutil is what the tests of several packages need to set up
// and tear down: the device under test, streams and buffers freed when the
// test ends, the test kernels, waiting for a condition, and the memory
// limit a test binary runs under; and exact references for math functions
// (bigmath.go). Every helper works on whichever device is
// selected (the host backend in CI, a GPU under GPUARR_DEVICE=cuda), so the
// same test binary checks both.
//
// Only tests import it.
package testutil

import (
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/gpuarr/gpuarr/device"
	"github.com/gpuarr/gpuarr/internal/testkernels"
	"github.com/gpuarr/gpuarr/memory"
)

// Device is the device under test: device.Default().
func Device(t testing.TB) *device.Device {
	t.Helper()
	dev, err := device.Default()
	require.NoError(t, err)
	return dev
}

// Devices is every device of the default backend.
func Devices(t testing.TB) []*device.Device {
	t.Helper()
	devs, err := device.Devices()
	require.NoError(t, err)
	return devs
}

// HostDevice is the default device, skipping the test unless it is the host
// backend, for tests of the host backend's own machinery.
func HostDevice(t testing.TB) *device.Device {
	t.Helper()
	dev := Device(t)
	if !dev.RunsHostKernels() {
		t.Skipf("this test drives the host backend (kernels written in Go); the default device %s runs PTX", dev)
	}
	return dev
}

// TwoDevices returns the first two devices of the default backend, or
// skips the test.
func TwoDevices(t testing.TB) (*device.Device, *device.Device) {
	t.Helper()
	devs := Devices(t)
	if len(devs) < 2 {
		t.Skipf("needs two devices (GPUARR_HOST_DEVICES=2 on the host backend); have %d", len(devs))
	}
	return devs[0], devs[1]
}

// Kernels loads the test kernels on dev, unloaded when the test ends.
func Kernels(t testing.TB, dev *device.Device) *testkernels.Set {
	t.Helper()
	ks, err := testkernels.Load(dev)
	require.NoError(t, err)
	t.Cleanup(func() { _ = ks.Module.Close() })
	return ks
}

// Stream is a new stream on dev, closed when the test ends.
func Stream(t testing.TB, dev *device.Device) *device.Stream {
	t.Helper()
	s, err := dev.NewStream()
	require.NoError(t, err)
	t.Cleanup(func() { _ = s.Close() })
	return s
}

// Streams is n new streams on dev, closed when the test ends.
func Streams(t testing.TB, dev *device.Device, n int) []*device.Stream {
	t.Helper()
	out := make([]*device.Stream, n)
	for i := range out {
		out[i] = Stream(t, dev)
	}
	return out
}

// Alloc is n bytes of device memory on dev, freed when the test ends.
func Alloc(t testing.TB, dev *device.Device, n uint64) device.Ptr {
	t.Helper()
	p, err := dev.Alloc(n)
	require.NoError(t, err)
	t.Cleanup(func() { _ = dev.Free(p) })
	return p
}

// Download reads n elements from p in s's order.
func Download[T any](t testing.TB, s *device.Stream, p device.Ptr, n int) []T {
	t.Helper()
	out := make([]T, n)
	require.NoError(t, device.Download(s, out, p))
	return out
}

// Must returns v or panics with err: for calls that are the test's setup
// rather than what it tests (Go cannot pass t alongside a call's two
// results).
func Must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// WaitFor calls cond until it reports true, at most for max, and reports
// whether it did: for effects that another goroutine (a cleanup, a
// drainer) completes. It polls, every millisecond at first and at most
// every 10 ms.
func WaitFor(max time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(max)
	for pause := time.Millisecond; ; pause = min(2*pause, 10*time.Millisecond) {
		if cond() {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(pause)
	}
}

// DefaultHardLimit sets the default memory resources' hard limit
// (memory.EnvHardLimit) to size unless the environment sets one. Call it
// from TestMain, before any test builds a device's resource, in test
// binaries that allocate beyond a limit on purpose: the limit keeps them
// fast on the host backend, and the environment can still choose another.
func DefaultHardLimit(size string) {
	if os.Getenv(memory.EnvHardLimit) == "" {
		os.Setenv(memory.EnvHardLimit, size)
	}
}
