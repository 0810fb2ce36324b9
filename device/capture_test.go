package device_test

import (
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gpuarr/gpuarr/device"
)

func TestCaptureRecordsAndGraphReplays(t *testing.T) {
	dev := testDevice(t)
	ks := kernels(t, dev)
	s := newStream(t, dev)
	const n = 256
	x, y := alloc(t, dev, 4*n), alloc(t, dev, 4*n)
	require.NoError(t, s.Memset32(x, 0, n))
	require.NoError(t, s.Memset32(y, 0, n))
	require.NoError(t, s.Synchronize())

	require.NoError(t, s.BeginCapture())
	assert.True(t, s.IsCapturing())
	capturing, err := s.Driver().Capturing()
	require.NoError(t, err)
	assert.True(t, capturing, "the driver agrees")
	cfg := device.Linear(n, 128)
	require.NoError(t, s.Launch(ks.Fill, cfg, x, uint32(7), uint64(n)))
	require.NoError(t, s.Launch(ks.Copy, cfg, y, x, uint64(n)))
	g, err := s.EndCapture()
	require.NoError(t, err)
	defer g.Close()
	assert.False(t, s.IsCapturing())

	want := slices.Repeat([]uint32{7}, n)
	zero := make([]uint32, n)
	assert.Equal(t, zero, download(t, s, y, n), "captured work did not run")

	for i := range 2 {
		require.NoError(t, s.Memset32(x, 0, n))
		require.NoError(t, s.Memset32(y, 0, n))
		require.NoError(t, g.Launch(s))
		assert.Equal(t, want, download(t, s, x, n), "launch %d", i)
		assert.Equal(t, want, download(t, s, y, n), "launch %d", i)
	}

	// Another stream of the device may launch it too.
	o := newStream(t, dev)
	require.NoError(t, s.Memset32(y, 0, n))
	require.NoError(t, s.Synchronize())
	require.NoError(t, g.Launch(o))
	assert.Equal(t, want, download(t, o, y, n))

	require.NoError(t, g.Close())
	assert.ErrorIs(t, g.Close(), device.ErrClosed)
}

func TestCaptureMisuseIsAnError(t *testing.T) {
	dev := testDevice(t)
	s := newStream(t, dev)

	_, err := s.EndCapture()
	assert.ErrorIs(t, err, device.ErrInvalidValue, "EndCapture without BeginCapture")

	require.NoError(t, s.BeginCapture())
	err = s.BeginCapture()
	assert.ErrorIs(t, err, device.ErrStreamCapture, "double BeginCapture")
	assert.True(t, s.IsCapturing(), "the first capture goes on")
	g, err := s.EndCapture()
	require.NoError(t, err, "an empty capture is a graph")
	require.NoError(t, g.Close())

	def := dev.DefaultStream()
	assert.ErrorIs(t, def.BeginCapture(), device.ErrInvalidValue, "the shared default stream does not capture")
}

func TestSyncDuringCaptureIsRefused(t *testing.T) {
	dev := testDevice(t)
	ks := kernels(t, dev)
	x := alloc(t, dev, 4)
	for _, c := range []struct {
		name string
		// invalidates: CUDA documents that the call invalidates the
		// capture; for the others the host device does, and a GPU may.
		invalidates bool
		do          func(s *device.Stream, ev *device.Event) error
	}{
		{"Stream.Synchronize", true, func(s *device.Stream, _ *device.Event) error { return s.Synchronize() }},
		{"Stream.Query", true, func(s *device.Stream, _ *device.Event) error { _, err := s.Query(); return err }},
		{"CopyDtoH", false, func(s *device.Stream, _ *device.Event) error {
			out := make([]uint32, 1)
			return device.Download(s, out, x)
		}},
		{"Event.Synchronize", false, func(s *device.Stream, ev *device.Event) error {
			if err := s.Record(ev); err != nil {
				return err
			}
			return ev.Synchronize()
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := newStream(t, dev)
			ev, err := dev.NewEvent()
			require.NoError(t, err)
			defer ev.Close()
			require.NoError(t, s.BeginCapture())
			require.NoError(t, s.Launch(ks.Fill, device.Linear(1, 1), x, uint32(1), uint64(1)))
			assert.ErrorIs(t, c.do(s, ev), device.ErrStreamCapture)
			// An invalidated capture still ends, with an error.
			g, err := s.EndCapture()
			if c.invalidates || dev.Backend() == "host" || err != nil {
				assert.ErrorIs(t, err, device.ErrStreamCapture, "the capture was invalidated")
			} else {
				require.NoError(t, g.Close())
			}
			assert.False(t, s.IsCapturing())
			require.NoError(t, s.Synchronize(), "the stream works again")
		})
	}
}

func TestCaptureSymbolMissing(t *testing.T) {
	dev := testDevice(t)
	s := newStream(t, dev)
	restore := dev.HideSymbol("cuStreamBeginCapture_v2")
	err := s.BeginCapture()
	restore()
	assert.ErrorIs(t, err, device.ErrSymbolMissing)
	assert.False(t, s.IsCapturing(), "a failed BeginCapture leaves the stream as it was")
	require.NoError(t, s.BeginCapture(), "restored")
	g, err := s.EndCapture()
	require.NoError(t, err)
	require.NoError(t, g.Close())
}

func TestCaptureMayNotWaitOnOutsideEvent(t *testing.T) {
	dev := testDevice(t)
	s, o := newStream(t, dev), newStream(t, dev)
	ev, err := dev.NewEvent()
	require.NoError(t, err)
	defer ev.Close()
	require.NoError(t, o.Record(ev))
	require.NoError(t, s.BeginCapture())
	assert.ErrorIs(t, s.Wait(ev), device.ErrStreamCapture, "a dependency across the capture boundary")
	_, err = s.EndCapture()
	assert.ErrorIs(t, err, device.ErrStreamCapture, "the capture was invalidated")
	assert.False(t, s.IsCapturing())
}

// LaunchJoined runs the graph on its own stream in the caller's order: the
// graph sees the caller's write held back by a 50 ms spin, and the
// caller's next copy sees the graph's result.
func TestLaunchJoinedOrdersBothWays(t *testing.T) {
	dev := testDevice(t)
	ks := kernels(t, dev)
	s, on, caller := newStream(t, dev), newStream(t, dev), newStream(t, dev)
	x, y, z := alloc(t, dev, 4), alloc(t, dev, 4), alloc(t, dev, 4)
	for _, p := range []device.Ptr{x, y, z} {
		require.NoError(t, s.Memset32(p, 0, 1))
	}
	require.NoError(t, s.Synchronize())
	one := device.LaunchConfig{Grid: device.Dim3{X: 1}, Block: device.Dim3{X: 1}}
	require.NoError(t, s.BeginCapture())
	require.NoError(t, s.Launch(ks.Copy, one, y, x, uint64(1)))
	g, err := s.EndCapture()
	require.NoError(t, err)
	defer g.Close()
	before, err := dev.NewEvent()
	require.NoError(t, err)
	defer before.Close()
	after, err := dev.NewEvent()
	require.NoError(t, err)
	defer after.Close()

	require.NoError(t, caller.Launch(ks.SpinWrite, one, x, uint32(7), uint64(50*time.Millisecond)))
	require.NoError(t, g.LaunchJoined(on, caller, before, after))
	require.NoError(t, caller.Launch(ks.Copy, one, z, y, uint64(1)))
	assert.Equal(t, uint32(7), download(t, caller, z, 1)[0], "the graph followed the caller's write and the caller followed the graph")

	closed := newStream(t, dev)
	require.NoError(t, closed.Close())
	assert.ErrorIs(t, g.LaunchJoined(closed, caller, before, after), device.ErrClosed)
	assert.ErrorIs(t, g.LaunchJoined(on, closed, before, after), device.ErrClosed)
}
