package host

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gpuarr/gpuarr/device/driver"
)

// Stream B waits for A's event; stream C, without the wait, runs during
// A's spin and sees the old value, which proves the order is observable.
func TestEventOrdersStreams(t *testing.T) {
	d := testSystem(t).devs[0]
	k := testKernels(t, d)
	a, b, c := newTestStream(t, d), newTestStream(t, d), newTestStream(t, d)
	x := newTestAlloc(t, d, 4)
	require.NoError(t, d.CopyHtoD(x, ptrOf(new(uint32)), 4))
	ev, err := d.NewEvent(false)
	require.NoError(t, err)
	launch(t, a, k["spin_write"], x, uint32(7), 40*time.Millisecond)
	require.NoError(t, a.Record(ev))
	done, err := ev.Query()
	require.NoError(t, err)
	assert.False(t, done, "recorded behind a spinning kernel")
	require.NoError(t, b.Wait(ev))
	withWait, withoutWait := newTestAlloc(t, d, 4), newTestAlloc(t, d, 4)
	require.NoError(t, b.CopyDtoD(withWait, x, 4))
	require.NoError(t, c.CopyDtoD(withoutWait, x, 4))

	assert.Equal(t, []uint32{7}, download[uint32](t, b, withWait, 1))
	assert.Equal(t, []uint32{0}, download[uint32](t, c, withoutWait, 1))
	require.NoError(t, ev.Synchronize())
	done, err = ev.Query()
	require.NoError(t, err)
	assert.True(t, done)
}

// A wait binds to the record current when Wait is called: recording the
// event again elsewhere does not release it early.
func TestWaitBindsToRecordAtCallTime(t *testing.T) {
	d := testSystem(t).devs[0]
	k := testKernels(t, d)
	a, b, c := newTestStream(t, d), newTestStream(t, d), newTestStream(t, d)
	x, y := newTestAlloc(t, d, 4), newTestAlloc(t, d, 4)
	require.NoError(t, a.Memset32(x, 0, 1))
	require.NoError(t, a.Synchronize())
	ev, err := d.NewEvent(false)
	require.NoError(t, err)
	launch(t, a, k["spin_write"], x, uint32(1), 40*time.Millisecond)
	require.NoError(t, a.Record(ev))
	require.NoError(t, b.Wait(ev))
	require.NoError(t, c.Record(ev)) // reached at once
	require.NoError(t, c.Synchronize())
	require.NoError(t, b.CopyDtoD(y, x, 4))
	assert.Equal(t, []uint32{1}, download[uint32](t, b, y, 1))
}

func TestEventNeverRecordedCountsAsReached(t *testing.T) {
	d := testSystem(t).devs[0]
	s := newTestStream(t, d)
	ev, err := d.NewEvent(false)
	require.NoError(t, err)
	done, err := ev.Query()
	require.NoError(t, err)
	assert.True(t, done)
	require.NoError(t, ev.Synchronize())
	require.NoError(t, s.Wait(ev))
	require.NoError(t, s.Synchronize())
	require.NoError(t, ev.Close())
	assert.Equal(t, driver.Closed, code(t, ev.Close()))
	assert.Equal(t, driver.Closed, code(t, s.Record(ev)))
}

// A stream of one device waits for an event of another.
func TestCrossDeviceWait(t *testing.T) {
	sys := testSystem(t, withDevices(2))
	d0, d1 := sys.devs[0], sys.devs[1]
	k0 := testKernels(t, d0)
	s0, s1 := newTestStream(t, d0), newTestStream(t, d1)
	x := newTestAlloc(t, d0, 4)
	y := newTestAlloc(t, d1, 4)
	require.NoError(t, d0.CopyHtoD(x, ptrOf(new(uint32)), 4))
	ev, err := d0.NewEvent(false)
	require.NoError(t, err)
	launch(t, s0, k0["spin_write"], x, uint32(42), 30*time.Millisecond)
	require.NoError(t, s0.Record(ev))
	require.NoError(t, s1.Wait(ev))
	require.NoError(t, s1.CopyPeer(y, d1, x, d0, 4))
	assert.Equal(t, []uint32{42}, download[uint32](t, s1, y, 1))
}

func TestTimingEvents(t *testing.T) {
	d := testSystem(t).devs[0]
	k := testKernels(t, d)
	s := newTestStream(t, d)
	x := newTestAlloc(t, d, 4)
	newEvent := func(timing bool) driver.Event {
		e, err := d.NewEvent(timing)
		require.NoError(t, err)
		return e
	}
	start, end, plain, unrecorded := newEvent(true), newEvent(true), newEvent(false), newEvent(true)
	require.NoError(t, s.Record(start))
	require.NoError(t, s.Record(plain))
	launch(t, s, k["spin_write"], x, uint32(1), 25*time.Millisecond)
	require.NoError(t, s.Record(end))

	_, err := end.ElapsedSince(start)
	assert.Equal(t, driver.NotReady, code(t, err), "end not reached yet")
	require.NoError(t, end.Synchronize())
	ms, err := end.ElapsedSince(start)
	require.NoError(t, err)
	assert.GreaterOrEqual(t, ms, float32(25))
	assert.Less(t, ms, float32(2000))

	_, err = end.ElapsedSince(plain)
	assert.Equal(t, driver.InvalidHandle, code(t, err), "non-timing event")
	_, err = unrecorded.ElapsedSince(start)
	assert.Equal(t, driver.InvalidHandle, code(t, err), "never recorded")
}

// In checking mode Synchronize follows the event as CUDA's does: a host
// thread blocked on a record that is then replaced by a record on an idle
// stream returns, although the record it started on is not reached. (The
// normal mode keeps binding to the record current at the call.)
func TestCheckingSynchronizeFollowsARecordElsewhere(t *testing.T) {
	d := testSystem(t, withCheck(true)).devs[0]
	a, c := newTestStream(t, d), newTestStream(t, d)
	gate := make(chan struct{})
	defer close(gate)
	require.NoError(t, a.enqueue("gate", func() error { <-gate; return nil }))
	ev, err := d.NewEvent(false)
	require.NoError(t, err)
	require.NoError(t, a.Record(ev))
	returned := make(chan error, 1)
	go func() { returned <- ev.Synchronize() }()
	// Let the goroutine block on a's record first (if it does not, it
	// binds to c's record below, which tests nothing but passes).
	time.Sleep(20 * time.Millisecond)
	require.NoError(t, c.Record(ev))
	require.NoError(t, c.Synchronize())
	select {
	case err := <-returned:
		require.NoError(t, err)
	case <-time.After(10 * time.Second):
		t.Fatal("Synchronize still waits for the record it started on; CUDA's follows the event to its new record")
	}
	done, err := ev.Query()
	require.NoError(t, err)
	assert.True(t, done, "the latest record, on an idle stream, is reached")
}
