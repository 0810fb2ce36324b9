package host

import (
	"bytes"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestPoison(t *testing.T) {
	for _, n := range []int{0, 1, 7, 4096, 1<<20 + 3} {
		b := make([]byte, n)
		Poison(b)
		assert.Equal(t, bytes.Repeat([]byte{PoisonByte}, n), b)
	}
}

// In checking mode a pool block freed and handed out again shows poison,
// not the previous owner's data; without checking mode the old data stays.
func TestCheckModePoisonsRecycledBlocks(t *testing.T) {
	for _, check := range []bool{true, false} {
		d := testSystem(t, withCheck(check)).devs[0]
		pool, err := d.NewMemPool(1 << 20)
		require.NoError(t, err)
		s1, s2 := newTestStream(t, d), newTestStream(t, d)
		a, err := pool.AllocAsync(64, s1)
		require.NoError(t, err)
		require.NoError(t, s1.Memset8(a, 0x11, 512))
		require.NoError(t, pool.FreeAsync(a, s1))
		require.NoError(t, s1.Synchronize())
		b, err := pool.AllocAsync(64, s2)
		require.NoError(t, err)
		require.Equal(t, a, b)
		want := byte(0x11)
		if check {
			want = PoisonByte
		}
		assert.Equal(t, bytes.Repeat([]byte{want}, 512), download[byte](t, s2, b, 512), "check=%v", check)
	}
}

// Poison lands in stream order: a block reused on its own stream before
// the free executed is poisoned before the new owner's work, never after.
func TestCheckModePoisonIsStreamOrdered(t *testing.T) {
	d := testSystem(t, withCheck(true)).devs[0]
	k := testKernels(t, d)
	pool, err := d.NewMemPool(1 << 20)
	require.NoError(t, err)
	s := newTestStream(t, d)
	a, err := pool.AllocAsync(512, s)
	require.NoError(t, err)
	launch(t, s, k["spin_write"], a, uint32(1), 20*time.Millisecond)
	require.NoError(t, pool.FreeAsync(a, s))
	b, err := pool.AllocAsync(512, s)
	require.NoError(t, err)
	require.Equal(t, a, b)
	require.NoError(t, s.Memset8(b, 0x22, 512))
	assert.Equal(t, bytes.Repeat([]byte{0x22}, 512), download[byte](t, s, b, 512))
}

// Checking mode delays work at random, which a missing synchronization
// turns into a wrong answer: here a copy on another stream, ordered only
// by an event, must still see the final value every time.
func TestCheckModeDelaysDoNotBreakEventOrder(t *testing.T) {
	d := testSystem(t, withCheck(true)).devs[0]
	k := testKernels(t, d)
	a, b := newTestStream(t, d), newTestStream(t, d)
	x, y := newTestAlloc(t, d, 8), newTestAlloc(t, d, 8)
	ev, err := d.NewEvent(false)
	require.NoError(t, err)
	require.NoError(t, a.Memset32(x, 0, 2))
	for i := range 200 {
		launch(t, a, k["step"], x, uint32(i))
		require.NoError(t, a.Record(ev))
		require.NoError(t, b.Wait(ev))
		require.NoError(t, b.CopyDtoD(y, x, 8))
		got := download[uint32](t, b, y, 2)
		require.Equal(t, []uint32{uint32(i + 1), 0}, got, "round %d", i)
	}
}
