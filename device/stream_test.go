package device_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gpuarr/gpuarr/device"
	"github.com/gpuarr/gpuarr/internal/testkernels"
)

// Each step kernel checks that the counter holds its own index, so any
// reordering among the 10,000 launches leaves the error flag set.
func TestStreamExecutesTenThousandOpsInOrder(t *testing.T) {
	dev := testDevice(t)
	ks := kernels(t, dev)
	s := newStream(t, dev)
	p := alloc(t, dev, 8)
	require.NoError(t, s.Memset32(p, 0, 2))
	const n = 10000
	one := device.LaunchConfig{Grid: device.Dim3{X: 1}, Block: device.Dim3{X: 1}}
	for i := range n {
		require.NoError(t, s.Launch(ks.Step, one, p, uint32(i)))
	}
	got := download(t, s, p, 2)
	assert.Equal(t, uint32(n), got[0], "counter")
	assert.Equal(t, uint32(0), got[1], "out-of-order flag")
}

// checkOrdering has stream A write 7 after a 50 ms spin and stream B copy
// the value once order (given A, B and an event) has ordered B after A;
// stream C copies it unordered, as a control: it runs during the spin and
// sees 0, which proves the ordering is observable. It returns the event.
func checkOrdering(t *testing.T, dev *device.Device, order func(a, b *device.Stream, ev *device.Event) error) *device.Event {
	t.Helper()
	ks := kernels(t, dev)
	a, b, c := newStream(t, dev), newStream(t, dev), newStream(t, dev)
	x, withWait, withoutWait := alloc(t, dev, 4), alloc(t, dev, 4), alloc(t, dev, 4)
	require.NoError(t, a.Memset32(x, 0, 1))
	require.NoError(t, a.Synchronize())

	ev, err := dev.NewEvent()
	require.NoError(t, err)
	t.Cleanup(func() { _ = ev.Close() })
	one := device.LaunchConfig{Grid: device.Dim3{X: 1}, Block: device.Dim3{X: 1}}
	require.NoError(t, a.Launch(ks.SpinWrite, one, x, uint32(7), uint64(50*time.Millisecond)))
	require.NoError(t, order(a, b, ev))
	require.NoError(t, b.Launch(ks.Copy, one, withWait, x, uint64(1)))
	require.NoError(t, c.Launch(ks.Copy, one, withoutWait, x, uint64(1)))

	assert.Equal(t, uint32(7), download(t, b, withWait, 1)[0], "stream B waited for A's event")
	assert.Equal(t, uint32(0), download(t, c, withoutWait, 1)[0], "stream C did not wait")
	return ev
}

func TestEventOrdersOneStreamAfterAnother(t *testing.T) {
	ev := checkOrdering(t, testDevice(t), func(a, b *device.Stream, ev *device.Event) error {
		if err := a.Record(ev); err != nil {
			return err
		}
		return b.Wait(ev)
	})
	done, err := ev.Query()
	require.NoError(t, err)
	assert.True(t, done)
}

// RecordWait is Record then Wait in one call: the waiting stream sees the
// recording stream's earlier work, and a closed stream on either side is
// an error matching ErrClosed that Closed attributes.
func TestRecordWaitOrdersOneStreamAfterAnother(t *testing.T) {
	dev := testDevice(t)
	ev := checkOrdering(t, dev, func(a, b *device.Stream, ev *device.Event) error { return a.RecordWait(ev, b) })

	a, b := newStream(t, dev), newStream(t, dev)
	closedS := newStream(t, dev)
	require.NoError(t, closedS.Close())
	assert.True(t, closedS.Closed())
	assert.False(t, a.Closed())
	require.ErrorIs(t, a.RecordWait(ev, closedS), device.ErrClosed, "closed waiter")
	require.ErrorIs(t, closedS.RecordWait(ev, a), device.ErrClosed, "closed recorder")
	other, err := dev.NewEvent()
	require.NoError(t, err)
	require.NoError(t, other.Close())
	require.ErrorIs(t, a.RecordWait(other, b), device.ErrClosed, "closed event")
}

func TestTimingEventsMeasureSpin(t *testing.T) {
	dev := testDevice(t)
	ks := kernels(t, dev)
	s := newStream(t, dev)
	start, err := dev.NewTimingEvent()
	require.NoError(t, err)
	end, err := dev.NewTimingEvent()
	require.NoError(t, err)
	x := alloc(t, dev, 4)
	require.NoError(t, s.Record(start))
	one := device.LaunchConfig{Grid: device.Dim3{X: 1}, Block: device.Dim3{X: 1}}
	require.NoError(t, s.Launch(ks.SpinWrite, one, x, uint32(1), uint64(20*time.Millisecond)))
	require.NoError(t, s.Record(end))
	require.NoError(t, end.Synchronize())
	d, err := device.Elapsed(start, end)
	require.NoError(t, err)
	assert.GreaterOrEqual(t, d, 19*time.Millisecond)
	assert.Less(t, d, 2*time.Second)

	plain, err := dev.NewEvent()
	require.NoError(t, err)
	_, err = device.Elapsed(start, plain)
	assert.ErrorIs(t, err, device.ErrInvalidValue, "non-timing event")
}

func TestStreamQueryAndSynchronize(t *testing.T) {
	dev := testDevice(t)
	ks := kernels(t, dev)
	s := newStream(t, dev)
	x := alloc(t, dev, 4)
	one := device.LaunchConfig{Grid: device.Dim3{X: 1}, Block: device.Dim3{X: 1}}
	require.NoError(t, s.Launch(ks.SpinWrite, one, x, uint32(3), uint64(30*time.Millisecond)))
	done, err := s.Query()
	require.NoError(t, err)
	assert.False(t, done, "spinning stream reported idle")
	require.NoError(t, s.Synchronize())
	done, err = s.Query()
	require.NoError(t, err)
	assert.True(t, done)
	require.NoError(t, dev.Synchronize())
}

func TestClosedObjectsAreErrors(t *testing.T) {
	dev := testDevice(t)
	s, err := dev.NewStream()
	require.NoError(t, err)
	require.NoError(t, s.Close())
	assert.ErrorIs(t, s.Close(), device.ErrClosed, "double close")
	assert.ErrorIs(t, s.Synchronize(), device.ErrClosed)
	_, err = s.AllocAsync(16)
	assert.ErrorIs(t, err, device.ErrClosed)

	ev, err := dev.NewEvent()
	require.NoError(t, err)
	require.NoError(t, ev.Close())
	assert.ErrorIs(t, ev.Close(), device.ErrClosed)
	assert.ErrorIs(t, dev.DefaultStream().Record(ev), device.ErrClosed)

	ks, err := testkernels.Load(dev)
	require.NoError(t, err)
	require.NoError(t, ks.Module.Close())
	assert.ErrorIs(t, ks.Module.Close(), device.ErrClosed)
	err = dev.DefaultStream().Launch(ks.Empty, device.LaunchConfig{})
	assert.ErrorIs(t, err, device.ErrClosed)
	assert.NoError(t, dev.DefaultStream().Close(), "closing the default stream is a no-op")
	assert.NoError(t, dev.DefaultStream().Synchronize())
}
