package memory

import (
	"errors"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gpuarr/gpuarr/device"
	"github.com/gpuarr/gpuarr/internal/testkernels"
)

// watch is an upstream that measures what it has handed out, and the most
// it ever had out at once.
type watch struct {
	Resource
	live, peak atomic.Uint64
}

func (w *watch) Alloc(s *device.Stream, n uint64) (*Block, error) {
	b, err := w.Resource.Alloc(s, n)
	if err == nil {
		v := w.live.Add(b.Capacity())
		for p := w.peak.Load(); v > p && !w.peak.CompareAndSwap(p, v); p = w.peak.Load() {
		}
	}
	return b, err
}

func (w *watch) Free(b *Block) error {
	n := b.Capacity()
	err := w.Resource.Free(b)
	if err == nil {
		w.live.Add(-n)
	}
	return err
}

func defaultDevice(t testing.TB) *device.Device {
	dev, err := device.Default()
	require.NoError(t, err)
	return dev
}

// newStream is a new stream on dev, closed when the test ends.
func newStream(t testing.TB, dev *device.Device) *device.Stream {
	s, err := dev.NewStream()
	require.NoError(t, err)
	t.Cleanup(func() { _ = s.Close() })
	return s
}

// The hard limit holds while 16 goroutines, each with its own stream,
// allocate (and free, and sometimes hold on) at once.
func TestHardLimitUnderConcurrency(t *testing.T) {
	dev := defaultDevice(t)
	const hard = 48 << 20
	w := &watch{Resource: Direct(dev)}
	var reclaims atomic.Int64
	pool := Caching(Limit(w, hard), CachingOptions{
		FrontBlocks: 4,
		Reclaimer: ReclaimFunc(func(d *device.Device, need uint64, level int) bool {
			reclaims.Add(1)
			return false
		}),
	})
	var wg sync.WaitGroup
	var ooms atomic.Int64
	for g := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s, err := dev.NewStream()
			if !assert.NoError(t, err) {
				return
			}
			defer s.Close()
			rng := rand.New(rand.NewPCG(uint64(g), 1))
			var held []*Block
			for range 150 {
				if len(held) > 0 && rng.IntN(3) == 0 {
					i := rng.IntN(len(held))
					assert.NoError(t, pool.Free(held[i]))
					held = append(held[:i], held[i+1:]...)
					continue
				}
				var n uint64
				switch rng.IntN(2) {
				case 0:
					n = rng.Uint64N(8 << 20) // large: 20 MiB segments, or exact ones near the limit
				default:
					n = rng.Uint64N(256 << 10)
				}
				b, err := pool.Alloc(s, n)
				if err != nil {
					assert.ErrorIs(t, err, device.ErrOutOfMemory)
					ooms.Add(1)
					continue
				}
				held = append(held, b)
				if len(held) > 6 {
					assert.NoError(t, pool.Free(held[0]))
					held = held[1:]
				}
			}
			for _, b := range held {
				assert.NoError(t, pool.Free(b))
			}
		}()
	}
	wg.Wait()
	st := pool.Stats()
	t.Logf("peak upstream %d of %d; OOMs %d (stats %d), retries %d, reclaimer calls %d",
		w.peak.Load(), hard, ooms.Load(), st.OOMs, st.AllocRetries, reclaims.Load())
	require.LessOrEqual(t, w.peak.Load(), uint64(hard), "upstream held more than the hard limit")
	require.LessOrEqual(t, st.ReservedBytes.Peak, uint64(hard))
	require.Equal(t, uint64(ooms.Load()), st.OOMs)
	// The reclaimer ran before every failure (and maybe before successes
	// that a concurrent free made possible), once per retry at most.
	require.GreaterOrEqual(t, reclaims.Load(), ooms.Load())
	require.LessOrEqual(t, uint64(reclaims.Load()), st.AllocRetries)
	require.Zero(t, st.AllocatedBytes.Current)
	require.NoError(t, pool.checkInvariants())
	require.NoError(t, pool.EmptyCache())
	require.Zero(t, w.live.Load())
}

// A failed allocation's error matches ErrOutOfMemory and its text is the
// status report.
func TestOOMErrorCarriesReport(t *testing.T) {
	dev := defaultDevice(t)
	pool := Caching(Limit(Direct(dev), 8<<20), CachingOptions{})
	s := dev.DefaultStream()
	small, err := pool.Alloc(s, 1000)
	require.NoError(t, err)
	_, err = pool.Alloc(s, 16<<20)
	require.Error(t, err)
	require.ErrorIs(t, err, device.ErrOutOfMemory)
	var oom *OutOfMemoryError
	require.True(t, errors.As(err, &oom))
	require.Equal(t, uint64(16<<20), oom.Requested)
	msg := err.Error()
	for _, want := range []string{
		"out of memory on " + dev.String(), "requested 16.0 MiB",
		"used      1.0 KiB in 1 blocks", "reserved  2.0 MiB in 1 segments",
		"hard 8.0 MiB", "largest free block 2.0 MiB", "fragmentation",
		"memory.Limit", // the upstream's refusal
	} {
		require.Contains(t, msg, want)
	}
	t.Log(msg)
	st := pool.Stats()
	require.Equal(t, uint64(1), st.OOMs)
	require.Equal(t, uint64(1), st.AllocRetries)
	require.NoError(t, pool.Free(small))

	// A request beyond any rounding fails cleanly too.
	_, err = pool.Alloc(s, 1<<63)
	require.ErrorIs(t, err, device.ErrOutOfMemory)
}

// The ladder's steps: pending (RecordUse) blocks are waited for, the
// reclaimer is called with rising levels, idle segments are released.
func TestExhaustionLadder(t *testing.T) {
	dev := defaultDevice(t)
	s := dev.DefaultStream()
	other := newStream(t, dev)

	t.Run("pending blocks", func(t *testing.T) {
		ks, err := testkernels.Load(dev)
		require.NoError(t, err)
		defer ks.Module.Close()
		pool := Caching(Limit(Direct(dev), 4<<20), CachingOptions{})
		x, err := pool.Alloc(s, 3<<20) // an exact 4 MiB segment under the limit
		require.NoError(t, err)
		// other is still busy with x when x is freed, so the free is pending
		// (an idle stream's event would already be complete on a GPU) and
		// only the ladder's wait makes x available again.
		require.NoError(t, other.Launch(ks.SpinWrite, device.LaunchConfig{}, x.Ptr(), uint32(1), uint64(20*time.Millisecond)))
		require.NoError(t, pool.RecordUse(x, other))
		require.NoError(t, pool.Free(x))
		y, err := pool.Alloc(s, 3<<20)
		require.NoError(t, err)
		require.Equal(t, x.Ptr(), y.Ptr())
		require.Equal(t, uint64(1), pool.Stats().AllocRetries)
		require.NoError(t, pool.Free(y))
		require.NoError(t, pool.EmptyCache())
	})

	t.Run("reclaimer", func(t *testing.T) {
		var held *Block
		var levels []int
		var pool *CachingPool
		pool = Caching(Limit(Direct(dev), 4<<20), CachingOptions{
			Reclaimer: ReclaimFunc(func(d *device.Device, need uint64, level int) bool {
				require.Equal(t, dev, d)
				require.Equal(t, uint64(3<<20), need)
				levels = append(levels, level)
				if level == 2 { // frees what the "GC" found only at level 2
					require.NoError(t, pool.Free(held))
				}
				return true
			}),
		})
		var err error
		held, err = pool.Alloc(s, 3<<20)
		require.NoError(t, err)
		y, err := pool.Alloc(s, 3<<20)
		require.NoError(t, err)
		require.Equal(t, []int{0, 1, 2}, levels)
		require.NoError(t, pool.Free(y))
	})

	t.Run("global reclaimer and give-up", func(t *testing.T) {
		calls := 0
		prev := SetReclaimer(ReclaimFunc(func(*device.Device, uint64, int) bool { calls++; return true }))
		defer SetReclaimer(prev)
		pool := Caching(Limit(Direct(dev), 4<<20), CachingOptions{})
		x, err := pool.Alloc(s, 3<<20)
		require.NoError(t, err)
		_, err = pool.Alloc(s, 3<<20)
		require.ErrorIs(t, err, device.ErrOutOfMemory)
		require.Equal(t, ReclaimLevels, calls)
		require.NoError(t, pool.Free(x))
	})

	t.Run("idle segments", func(t *testing.T) {
		pool := Caching(Limit(Direct(dev), 6<<20), CachingOptions{})
		small, err := pool.Alloc(s, 4096) // a 2 MiB small segment
		require.NoError(t, err)
		require.NoError(t, pool.Free(small))
		// 4 MiB more than fits next to the cached small segment: the pool
		// must give the small segment back.
		big, err := pool.Alloc(s, 5<<20)
		require.NoError(t, err)
		st := pool.Stats()
		require.Equal(t, uint64(1), st.SegmentsReleased)
		require.Equal(t, uint64(6<<20), st.ReservedBytes.Current)
		require.NoError(t, pool.Free(big))
	})
}

func TestSoftLimitTrimsAtChecks(t *testing.T) {
	dev := defaultDevice(t)
	s := dev.DefaultStream()
	pool := Caching(Direct(dev), CachingOptions{SoftLimit: 4 << 20, FrontBlocks: 2})
	var bs []*Block
	for range 6 {
		b, err := pool.Alloc(s, 12<<20) // a 12 MiB segment each
		require.NoError(t, err)
		bs = append(bs, b)
	}
	for _, b := range bs {
		require.NoError(t, pool.Free(b))
	}
	require.NoError(t, s.Synchronize())
	// Checks happen on misses: the first records a clock event on s, the
	// next finds it reached, after which idle segments beyond the soft
	// limit go (not the blocks freed after the clock).
	for i := range uint64(3) {
		b, err := pool.Alloc(s, 40<<20+i<<20)
		require.NoError(t, err)
		require.NoError(t, pool.Free(b))
		require.NoError(t, s.Synchronize())
	}
	st := pool.Stats()
	t.Log(Report(st))
	require.LessOrEqual(t, st.CachedBytes, uint64(3*42<<20))
	require.NotZero(t, st.SegmentsReleased)
}

func TestLimitAdaptor(t *testing.T) {
	dev := defaultDevice(t)
	l := Limit(Direct(dev), 1<<20)
	a, err := l.Alloc(nil, 600<<10)
	require.NoError(t, err)
	_, err = l.Alloc(nil, 600<<10)
	require.ErrorIs(t, err, device.ErrOutOfMemory)
	require.Equal(t, uint64(1<<20), l.Stats().HardLimit)
	require.NoError(t, l.Free(a))
	b, err := l.Alloc(nil, 1<<20)
	require.NoError(t, err)
	require.NoError(t, l.Free(b))
	require.Zero(t, l.(*limited).Used())
}

// Repeated mid-size requests (a training loop's batches) can use almost all
// of a hard limit: their segments hold whole blocks, not PyTorch's 20 MiB
// with 4.4 MiB left over for every two 7.8 MiB batches.
func TestMidSizeBatchesFillTheLimit(t *testing.T) {
	dev := defaultDevice(t)
	const hard, batch = 160 << 20, 2048 * 1000 * 4
	pool := Caching(Limit(Direct(dev), hard), CachingOptions{})
	defer pool.EmptyCache()
	var blocks []*Block
	for {
		b, err := pool.Alloc(nil, batch)
		if err != nil {
			require.ErrorIs(t, err, device.ErrOutOfMemory)
			break
		}
		blocks = append(blocks, b)
	}
	used := uint64(len(blocks)) * batch
	assert.GreaterOrEqual(t, float64(used)/hard, 0.95, "%d batches of %d bytes under a %d-byte limit", len(blocks), batch, hard)
	for _, b := range blocks {
		require.NoError(t, pool.Free(b))
	}
}
