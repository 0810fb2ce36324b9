package device_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gpuarr/gpuarr/device"
)

// LaunchAfter orders its launch after each hand-off: streams A and A2
// write 7 and 9 after a 50 ms spin, and B's copies, launched with the
// hand-offs, see both values; C's unordered copy, the control, runs during
// the spin and sees 0. One hand-off goes in either slot, two in both.
func TestLaunchAfterOrdersTheLaunchAfterEachHandoff(t *testing.T) {
	dev := testDevice(t)
	ks := kernels(t, dev)
	a, a2, b, c := newStream(t, dev), newStream(t, dev), newStream(t, dev), newStream(t, dev)
	x, x2 := alloc(t, dev, 4), alloc(t, dev, 4)
	y, y2, y3, ctl := alloc(t, dev, 4), alloc(t, dev, 4), alloc(t, dev, 4), alloc(t, dev, 4)
	require.NoError(t, a.Memset32(x, 0, 1))
	require.NoError(t, a.Memset32(x2, 0, 1))
	require.NoError(t, a.Synchronize())
	ev, ev2 := newEvent(t, dev), newEvent(t, dev)
	one := device.LaunchConfig{Grid: device.Dim3{X: 1}, Block: device.Dim3{X: 1}}

	require.NoError(t, a.Launch(ks.SpinWrite, one, x, uint32(7), uint64(50*time.Millisecond)))
	done, err := b.LaunchAfter(device.Handoff{}, device.Handoff{From: a, Event: ev}, ks.Copy, one, y, x, uint64(1))
	require.NoError(t, err)
	assert.Equal(t, 1, done, "the hand-off in the second slot")
	require.NoError(t, c.Launch(ks.Copy, one, ctl, x, uint64(1)))
	assert.Equal(t, uint32(7), download(t, b, y, 1)[0], "B waited for A")
	assert.Equal(t, uint32(0), download(t, c, ctl, 1)[0], "C did not wait")

	require.NoError(t, a.Launch(ks.SpinWrite, one, x, uint32(8), uint64(50*time.Millisecond)))
	require.NoError(t, a2.Launch(ks.SpinWrite, one, x2, uint32(9), uint64(50*time.Millisecond)))
	var args device.Args
	args.Append(device.ArgPtr, uint64(y2))
	args.Append(device.ArgPtr, uint64(x2))
	args.Append(device.ArgU64, 1)
	done, err = b.LaunchArgsAfter(device.Handoff{From: a, Event: ev}, device.Handoff{From: a2, Event: ev2}, ks.Copy, one, &args)
	require.NoError(t, err)
	assert.Equal(t, 2, done)
	require.NoError(t, b.Launch(ks.Copy, one, y3, x, uint64(1)))
	assert.Equal(t, uint32(9), download(t, b, y2, 1)[0], "B waited for A2")
	assert.Equal(t, uint32(8), download(t, b, y3, 1)[0], "B waited for A")

	// Without hand-offs it is a plain launch.
	done, err = b.LaunchAfter(device.Handoff{}, device.Handoff{}, ks.Fill, one, y, uint32(5), uint64(1))
	require.NoError(t, err)
	assert.Equal(t, 0, done)
	assert.Equal(t, uint32(5), download(t, b, y, 1)[0])
}

// A hand-off that cannot be issued fails before anything is: no record,
// no wait, no launch (done 0), with the error of the part that is wrong.
func TestLaunchAfterRefusesBadHandoffs(t *testing.T) {
	dev := testDevice(t)
	ks := kernels(t, dev)
	a, b := newStream(t, dev), newStream(t, dev)
	y := alloc(t, dev, 4)
	require.NoError(t, b.Memset32(y, 0, 1))
	one := device.LaunchConfig{Grid: device.Dim3{X: 1}, Block: device.Dim3{X: 1}}
	fill := func(h device.Handoff) (int, error) {
		return b.LaunchAfter(device.Handoff{}, h, ks.Fill, one, y, uint32(5), uint64(1))
	}

	done, err := fill(device.Handoff{From: a})
	require.ErrorIs(t, err, device.ErrInvalidValue, "no event")
	assert.Equal(t, 0, done)

	closedEv := newEvent(t, dev)
	require.NoError(t, closedEv.Close())
	done, err = fill(device.Handoff{From: a, Event: closedEv})
	require.ErrorIs(t, err, device.ErrClosed, "closed event")
	assert.Equal(t, 0, done)

	closedS := newStream(t, dev)
	require.NoError(t, closedS.Close())
	done, err = fill(device.Handoff{From: closedS, Event: newEvent(t, dev)})
	require.ErrorIs(t, err, device.ErrClosed, "closed recording stream")
	assert.Equal(t, 0, done)

	assert.Equal(t, uint32(0), download(t, b, y, 1)[0], "nothing was launched")
}

func newEvent(t *testing.T, dev *device.Device) *device.Event {
	t.Helper()
	ev, err := dev.NewEvent()
	require.NoError(t, err)
	t.Cleanup(func() { _ = ev.Close() })
	return ev
}
