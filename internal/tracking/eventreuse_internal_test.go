package tracking

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gpuarr/gpuarr/device"
	"github.com/gpuarr/gpuarr/memory"
)

// handOff is one producer/consumer round on t: c reads what p wrote, then
// p writes again after c's read.
func handOff(t *testing.T, st *State, p, c *device.Stream) {
	t.Helper()
	st.Lock()
	require.NoError(t, st.UseLocked(c, Read))
	st.Unlock()
	st.Lock()
	require.NoError(t, st.UseLocked(p, Write))
	st.Unlock()
}

// A buffer handed back and forth between two streams keeps its reader's
// event for the next reader: after the first round no event comes from
// the pool or goes back to it. An event someone else still holds is not
// re-recorded for another read, and Release gives the kept event back.
func TestReaderEventKept(t *testing.T) {
	if noReuse {
		t.Skip("GPUARR_DEBUG=events: no event is kept")
	}
	dev, err := device.Default()
	require.NoError(t, err)
	p, err := dev.NewStream()
	require.NoError(t, err)
	defer p.Close()
	c, err := dev.NewStream()
	require.NoError(t, err)
	defer c.Close()

	var st State
	st.Start(p)
	handOff(t, &st, p, c)
	kept := st.kept()
	require.NotNil(t, kept, "the reader's event stays with the buffer")
	assert.Equal(t, int32(1), kept.refs.Load(), "held by the buffer alone")
	assert.True(t, st.Shared(p), "Release has an event to give back")
	for range 3 {
		handOff(t, &st, p, c)
		assert.Same(t, kept, st.kept(), "the next read re-records the kept event")
	}

	// Another holder (a host wait, say) keeps it: the next read takes
	// another event and lets this one go to its last holder.
	kept.hold()
	handOff(t, &st, p, c)
	assert.NotSame(t, kept, st.kept(), "a held event is not re-recorded for another read")
	assert.Equal(t, int32(1), kept.refs.Load(), "only the other holder has it now")
	kept.drop()

	res, err := memory.Default(dev)
	require.NoError(t, err)
	blk, err := res.Alloc(p, 4)
	require.NoError(t, err)
	last := st.kept()
	require.NoError(t, st.Release(res, blk))
	require.NoError(t, res.Free(blk))
	assert.Nil(t, st.kept(), "Release forgets the kept event")
	assert.Equal(t, int32(0), last.refs.Load(), "and gives it back")
	assert.False(t, st.Shared(p), "nothing left to give back")
}

// Records and stream waits are counted once Counts has been asked for, and
// not before: a program that never asks pays no atomic counter per
// hand-off.
func TestCountingStartsWithCounts(t *testing.T) {
	dev, err := device.Default()
	require.NoError(t, err)
	p, err := dev.NewStream()
	require.NoError(t, err)
	defer p.Close()
	c, err := dev.NewStream()
	require.NoError(t, err)
	defer c.Close()
	defer counters.counting.Store(counters.counting.Load())

	var st State
	st.Start(p)
	counters.counting.Store(false)
	w0, r0 := counters.streamWaits.Load(), counters.eventRecords.Load()
	handOff(t, &st, p, c)
	assert.Equal(t, w0, counters.streamWaits.Load(), "no waits counted before Counts")
	assert.Equal(t, r0, counters.eventRecords.Load(), "no records counted before Counts")

	_, w1, r1 := Counts()
	handOff(t, &st, p, c)
	_, w2, r2 := Counts()
	assert.Equal(t, uint64(2), w2-w1, "a wait per hand-off, two per round")
	assert.Equal(t, uint64(2), r2-r1, "a record per hand-off")
	st.reset()
}

// A hand-off borrows its event from the record, which keeps it until the
// launch; when the same ordering gives the event up (a new writer drops
// the old writer's event, a write forgets readers beyond the first), the
// hand-off takes the record's reference over and gives it back once
// issued, so the event is neither lost nor reused before its record.
func TestHandoffAdoptsEventsGivenUp(t *testing.T) {
	if noReuse {
		t.Skip("GPUARR_DEBUG=events: events are destroyed, not counted")
	}
	dev, err := device.Default()
	require.NoError(t, err)
	ss := make([]*device.Stream, 3)
	for i := range ss {
		ss[i], err = dev.NewStream()
		require.NoError(t, err)
		defer ss[i].Close()
	}
	p, c, d := ss[0], ss[1], ss[2]

	// A new writer: c writes what p wrote.
	var st State
	st.Start(p)
	var j Handoffs
	st.Lock()
	require.NoError(t, st.UseLockedInto(c, Write, &j))
	require.Equal(t, 1, j.Len())
	ev := j.ev[0]
	assert.Nil(t, st.wev, "the new writer has no event yet")
	assert.True(t, j.own[0], "the hand-off took the old writer's event over")
	assert.Equal(t, int32(1), ev.refs.Load())
	require.NoError(t, j.Flush())
	st.Unlock()
	assert.Equal(t, int32(0), ev.refs.Load(), "given back once issued")

	// Two readers, then a write: the first reader's event stays with the
	// record, the second goes to the hand-off.
	for _, s := range []*device.Stream{p, d} {
		st.Lock()
		require.NoError(t, st.UseLocked(s, Read))
		st.Unlock()
	}
	st.Lock()
	require.NoError(t, st.UseLockedInto(c, Write, &j))
	require.Equal(t, 2, j.Len())
	first, second := j.ev[0], j.ev[1]
	assert.False(t, j.own[0], "the first reader's event is kept by the record")
	assert.True(t, j.own[1], "the second reader's event was given up to the hand-off")
	assert.Same(t, first, st.kept())
	require.NoError(t, j.Flush())
	st.Unlock()
	assert.Equal(t, int32(1), first.refs.Load(), "kept by the record")
	assert.Equal(t, int32(0), second.refs.Load(), "given back once issued")
	st.reset()
	assert.Equal(t, int32(0), first.refs.Load())
}
