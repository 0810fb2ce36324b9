package memory

import (
	"math"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gpuarr/gpuarr/device"
	"github.com/gpuarr/gpuarr/internal/testkernels"
)

const (
	// Block X is large: when B asks for as much, only X (in A's front
	// cache) can serve it, after the miss moves the front caches to the
	// index. Kernels touch its first xWords words.
	xBytes = 12 << 20
	xWords = 1024
	spinNs = 50_000_000
)

type crossFixture struct {
	dev    *device.Device
	ks     *testkernels.Set
	pool   *CachingPool
	a, b   *device.Stream
	scrap  *Block // spin_write's target
	result *Block // where stream A copies X after its delay
}

func newCrossFixture(t *testing.T, opts CachingOptions) *crossFixture {
	dev := defaultDevice(t)
	ks, err := testkernels.Load(dev)
	require.NoError(t, err)
	f := &crossFixture{dev: dev, ks: ks, pool: Caching(Direct(dev), opts)}
	f.a, err = dev.NewStream()
	require.NoError(t, err)
	f.b, err = dev.NewStream()
	require.NoError(t, err)
	f.scrap, err = f.pool.Alloc(f.a, 512)
	require.NoError(t, err)
	f.result, err = f.pool.Alloc(f.a, 3*xWords*4)
	require.NoError(t, err)
	t.Cleanup(func() {
		require.NoError(t, f.a.Synchronize())
		require.NoError(t, f.b.Synchronize())
		require.NoError(t, f.pool.Free(f.scrap))
		require.NoError(t, f.pool.Free(f.result))
		require.NoError(t, f.pool.EmptyCache())
		require.NoError(t, f.a.Close())
		require.NoError(t, f.b.Close())
		require.NoError(t, f.ks.Module.Close())
	})
	return f
}

// slowRead queues on s: a delay, then a copy of x into the result block.
func (f *crossFixture) slowRead(t *testing.T, s *device.Stream, x *Block) {
	require.NoError(t, s.Launch(f.ks.SpinWrite, device.LaunchConfig{}, f.scrap.Ptr(), uint32(1), uint64(spinNs)))
	require.NoError(t, s.Launch(f.ks.Copy, device.Linear(xWords, 256), f.result.Ptr(), x.Ptr(), uint64(xWords)))
}

func (f *crossFixture) fill(t *testing.T, s *device.Stream, p device.Ptr, v uint32) {
	require.NoError(t, s.Launch(f.ks.Fill, device.Linear(xWords, 256), p, v, uint64(xWords)))
}

func (f *crossFixture) words(t *testing.T, s *device.Stream, p device.Ptr) []uint32 {
	out := make([]uint32, xWords)
	require.NoError(t, device.Download(s, out, p))
	return out
}

func want(v uint32) []uint32 { return slices.Repeat([]uint32{v}, xWords) }

// A kernel on stream A reads block X after a delay; X is freed (on A),
// allocated again on stream B and overwritten at once. B's write must wait
// for A: A's copy still sees A's data.
func TestCrossStreamReuseWaits(t *testing.T) {
	for _, tc := range []struct {
		name string
		opts CachingOptions
	}{
		{"front caches", CachingOptions{}},
		{"index only", CachingOptions{FrontBlocks: -1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newCrossFixture(t, tc.opts)
			x, err := f.pool.Alloc(f.a, xBytes)
			require.NoError(t, err)
			f.fill(t, f.a, x.Ptr(), 7)
			f.slowRead(t, f.a, x)
			require.NoError(t, f.pool.Free(x))
			waits := f.pool.Stats().CrossStreamWaits

			y, err := f.pool.Alloc(f.b, xBytes)
			require.NoError(t, err)
			require.Equal(t, x.Ptr(), y.Ptr(), "B should reuse X")
			require.Equal(t, waits+1, f.pool.Stats().CrossStreamWaits, "B should wait for A on the device")
			f.fill(t, f.b, y.Ptr(), 9)

			require.Equal(t, want(7), f.words(t, f.a, f.result.Ptr()), "A's kernel saw B's data")
			require.Equal(t, want(9), f.words(t, f.b, y.Ptr()))
			require.NoError(t, f.pool.Free(y))
		})
	}
}

// Stream A allocates X and reuses it at once after freeing it: same stream,
// no wait, no event.
func TestSameStreamReuseIsImmediate(t *testing.T) {
	f := newCrossFixture(t, CachingOptions{})
	x, err := f.pool.Alloc(f.a, xBytes)
	require.NoError(t, err)
	f.fill(t, f.a, x.Ptr(), 3)
	f.slowRead(t, f.a, x)
	require.NoError(t, f.pool.Free(x))
	before := f.pool.Stats()
	y, err := f.pool.Alloc(f.a, xBytes)
	require.NoError(t, err)
	require.Equal(t, x.Ptr(), y.Ptr())
	f.fill(t, f.a, y.Ptr(), 4)
	after := f.pool.Stats()
	require.Equal(t, before.CrossStreamWaits, after.CrossStreamWaits)
	require.Equal(t, before.EventQueries, after.EventQueries)
	require.Equal(t, want(3), f.words(t, f.a, f.result.Ptr()))
	require.Equal(t, want(4), f.words(t, f.a, y.Ptr()))
	require.NoError(t, f.pool.Free(y))
}

// X is allocated on A and read late by B (RecordUse); after X's free, A
// allocates again and overwrites at once. A must not get X while B's read
// is pending.
func TestRecordUseDefersReuse(t *testing.T) {
	f := newCrossFixture(t, CachingOptions{})
	x, err := f.pool.Alloc(f.a, xBytes)
	require.NoError(t, err)
	f.fill(t, f.a, x.Ptr(), 5)
	// B reads X once A's fill is done.
	ev, err := f.dev.NewEvent()
	require.NoError(t, err)
	defer ev.Close()
	require.NoError(t, f.a.Record(ev))
	require.NoError(t, f.b.Wait(ev))
	f.slowRead(t, f.b, x)
	require.NoError(t, f.pool.RecordUse(x, f.b))
	require.NoError(t, f.pool.Free(x))
	st := f.pool.Stats()
	require.Equal(t, x.Capacity(), st.ActiveBytes.Current-st.AllocatedBytes.Current, "X is pending")

	y, err := f.pool.Alloc(f.a, xBytes)
	require.NoError(t, err)
	if y.Ptr() == x.Ptr() {
		// Only legal if B's read finished already (a very slow machine).
		ok, err := ev.Query()
		require.NoError(t, err)
		require.True(t, ok)
	}
	f.fill(t, f.a, y.Ptr(), 6)
	require.Equal(t, want(5), f.words(t, f.b, f.result.Ptr()), "B's read saw A's new data")
	require.NoError(t, f.pool.Free(y))

	// Once B is done, X is released to the index at the next check.
	require.NoError(t, f.b.Synchronize())
	require.NoError(t, f.pool.Trim(math.MaxUint64))
	st = f.pool.Stats()
	require.Equal(t, st.AllocatedBytes.Current, st.ActiveBytes.Current)
}

// Once the pool knows A passed the free (a batched query), B takes X
// without any device-side wait.
func TestKnownCompleteNeedsNoWait(t *testing.T) {
	f := newCrossFixture(t, CachingOptions{})
	x, err := f.pool.Alloc(f.a, xBytes)
	require.NoError(t, err)
	f.fill(t, f.a, x.Ptr(), 1)
	require.NoError(t, f.pool.Free(x))
	// Trim with a huge keep releases nothing: it moves the front caches to
	// the index and checks progress (recording a clock event on A).
	require.NoError(t, f.pool.Trim(math.MaxUint64))
	require.NoError(t, f.a.Synchronize())
	require.NoError(t, f.pool.Trim(math.MaxUint64)) // now the clock is found reached
	waits := f.pool.Stats().CrossStreamWaits
	y, err := f.pool.Alloc(f.b, xBytes)
	require.NoError(t, err)
	require.Equal(t, x.Ptr(), y.Ptr())
	require.Equal(t, waits, f.pool.Stats().CrossStreamWaits)
	require.NoError(t, f.pool.Free(y))
}

// Memory of a closed stream needs no wait at all.
func TestClosedStreamMemory(t *testing.T) {
	f := newCrossFixture(t, CachingOptions{})
	c, err := f.dev.NewStream()
	require.NoError(t, err)
	x, err := f.pool.Alloc(c, xBytes)
	require.NoError(t, err)
	f.fill(t, c, x.Ptr(), 2)
	require.NoError(t, c.Close())
	require.NoError(t, f.pool.Free(x)) // after the close: goes straight to the index
	y, err := f.pool.Alloc(f.b, xBytes)
	require.NoError(t, err)
	require.Equal(t, x.Ptr(), y.Ptr())
	require.Zero(t, f.pool.Stats().CrossStreamWaits)
	require.NoError(t, f.pool.Free(y))
	require.NoError(t, f.pool.checkInvariants())
}

// Over a stream-ordered upstream (the driver's pool), a new segment is
// usable in its allocating stream's order only: another stream that takes
// part of it waits first.
func TestStreamOrderedUpstream(t *testing.T) {
	dev := defaultDevice(t)
	if !dev.Info().MemoryPools {
		t.Skip("no memory pools")
	}
	dp, err := DriverPool(dev, DriverPoolOptions{})
	require.NoError(t, err)
	pool := Caching(Statistics(dp), CachingOptions{})
	a, b := newStream(t, dev), newStream(t, dev)
	x, err := pool.Alloc(a, 4096) // a new 2 MiB segment in a's order
	require.NoError(t, err)
	y, err := pool.Alloc(b, 4096) // the rest of it, for b
	require.NoError(t, err)
	require.Equal(t, uint64(1), pool.Stats().SegmentsObtained)
	require.Equal(t, uint64(1), pool.Stats().CrossStreamWaits)
	require.NoError(t, pool.Free(x))
	require.NoError(t, pool.Free(y))
	require.NoError(t, pool.EmptyCache())
	require.Zero(t, dp.Stats().Allocations.Current)
}

// A program that makes many short-lived streams does not grow the pool's
// registry without bound.
func TestClosedStreamsAreForgotten(t *testing.T) {
	dev := defaultDevice(t)
	pool := Caching(Direct(dev), CachingOptions{})
	for range 3 * probeStreams {
		s, err := dev.NewStream()
		require.NoError(t, err)
		b, err := pool.Alloc(s, 4096)
		require.NoError(t, err)
		require.NoError(t, pool.Free(b))
		require.NoError(t, s.Close())
	}
	require.NoError(t, pool.Trim(math.MaxUint64)) // flush, collect, prune
	require.NoError(t, pool.Trim(math.MaxUint64))
	require.LessOrEqual(t, len(pool.reg.Load().all), probeStreams)
	require.NoError(t, pool.checkInvariants())
	require.NoError(t, pool.EmptyCache())
	require.Zero(t, pool.Stats().ReservedBytes.Current)
}
