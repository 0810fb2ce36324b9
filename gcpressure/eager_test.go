package gcpressure

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"runtime/metrics"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gpuarr/gpuarr/device"
	"github.com/gpuarr/gpuarr/internal/cleanups"
	"github.com/gpuarr/gpuarr/internal/testutil"
	"github.com/gpuarr/gpuarr/memory"
)

// forcedGCs counts runtime.GC calls in the process.
func forcedGCs() uint64 {
	s := []metrics.Sample{{Name: "/gc/cycles/forced:gc-cycles"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// limitedPool is a caching pool under a small hard limit whose reclaimer
// is rt's ladder, with rt reading its pressure from it.
func limitedPool(t *testing.T, cfg policy, limit uint64) (*runtimeState, *arrays) {
	dev := defaultDevice(t)
	var pool *memory.CachingPool
	rt := poolRuntime(cfg, func() memory.Resource { return pool })
	pool = memory.Caching(memory.Limit(memory.Direct(dev), limit), memory.CachingOptions{Reclaimer: rt.ladder})
	t.Cleanup(func() {
		cleanups.Collect(time.Second)
		assert.NoError(t, pool.EmptyCache())
	})
	return rt, &arrays{rt: rt, pool: pool}
}

func loopPolicy(eager bool) policy {
	cfg, err := policyFromEnv()
	if err != nil {
		panic(err)
	}
	cfg.Enabled, cfg.Log = eager, nil
	return cfg
}

// A loop that allocates ten times the hard limit and releases nothing
// never fails: with eager collection, and through the ladder alone when
// eager collection is off.
func TestLoopBeyondTheLimit(t *testing.T) {
	const limit, size = 64 << 20, 4 << 20
	for _, eager := range []bool{true, false} {
		t.Run(fmt.Sprintf("eager=%v", eager), func(t *testing.T) {
			rt, a := limitedPool(t, loopPolicy(eager), limit)
			s := a.pool.Device().DefaultStream()
			var last *toyArray
			for i := range 10 * limit / size {
				arr, err := a.alloc(s, size)
				require.NoError(t, err, "allocation %d", i)
				require.NoError(t, s.Memset8(arr.b.Ptr(), byte(i), size))
				last = arr // the previous one becomes garbage
			}
			runtime.KeepAlive(last)
			require.NoError(t, s.Synchronize())
			rt.collector.waitIdle() // a background collection may still be running
			st := rt.stats()
			t.Logf("eager %+v; ladder %+v", st.Eager, st.Reclaim)
			require.Zero(t, a.pool.Stats().OOMs)
			if eager {
				assert.Positive(t, st.Eager.Collections)
			} else {
				assert.Zero(t, st.Eager.Collections)
				assert.Positive(t, st.Reclaim.Collections, "the ladder collected")
			}
			assert.Zero(t, a.freeErrs.Load())
		})
	}
}

// Below the threshold nothing collects: no eager collection, no refusal,
// no ladder, no runtime.GC at all; and the allocator's statistics are read
// only once per 1/64 of the limit allocated.
func TestNoCollectionBelowThresholdOnDevice(t *testing.T) {
	const limit, size = 64 << 20, 256 << 10
	rt, a := limitedPool(t, loopPolicy(true), limit)
	reads := 0
	g := rt.devices.of(a.pool.Device())
	inner := g.read
	g.read = func() reading { reads++; return inner() }
	s := a.pool.Device().DefaultStream()
	before := forcedGCs()
	var held []*toyArray
	const n = 1000
	for range n {
		arr, err := a.alloc(s, size)
		require.NoError(t, err)
		held = append(held, arr)
		if len(held) == 64 { // 16 MiB live: pressure 0.25
			for _, h := range held {
				require.NoError(t, a.release(h))
			}
			held = held[:0]
		}
	}
	for _, h := range held {
		require.NoError(t, a.release(h))
	}
	assert.Equal(t, before, forcedGCs(), "no runtime.GC")
	rt.collector.waitIdle()
	st := rt.stats()
	assert.Zero(t, st.Eager.Collections)
	assert.Zero(t, st.Eager.Skipped)
	assert.Zero(t, st.Reclaim.Runs)
	assert.LessOrEqual(t, reads, n*size/(limit/refreshShare)+1)
	t.Logf("%d statistics reads for %d allocations", reads, n)
}

// Cleanups free arrays on the GC's goroutines while other goroutines keep
// allocating on their own streams and releasing some arrays explicitly:
// the race detector stays quiet, no block is freed twice, nothing fails,
// and once everything is unreachable every byte is back.
func TestCleanupsRaceAllocations(t *testing.T) {
	const limit = 64 << 20
	rt, a := limitedPool(t, loopPolicy(true), limit)
	a.slow = 50 * time.Microsecond // widen the windows in which cleanups overlap
	dev := a.pool.Device()
	var wg sync.WaitGroup
	var streams []*device.Stream
	for g := range 4 {
		s, err := dev.NewStream()
		require.NoError(t, err)
		streams = append(streams, s)
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(g), 5))
			for i := range 150 {
				n := 64<<10 + rng.Uint64N(3<<20)
				arr, err := a.alloc(s, n)
				if !assert.NoError(t, err) {
					return
				}
				assert.NoError(t, s.Memset8(arr.b.Ptr(), byte(i), n))
				if i%5 == 0 {
					assert.NoError(t, a.release(arr))
				}
			}
		})
	}
	wg.Wait()
	require.True(t, testutil.WaitFor(5*time.Second, func() bool {
		cleanups.Collect(time.Second)
		return a.pool.Stats().AllocatedBytes.Current == 0
	}), "every array's memory came back: %d bytes still allocated", a.pool.Stats().AllocatedBytes.Current)
	for _, s := range streams {
		require.NoError(t, s.Close())
	}
	st := rt.stats()
	t.Logf("cleanups: %d frees, at most %d at once; eager %+v; ladder %+v", a.freed.Load(), a.maxRun.Load(), st.Eager, st.Reclaim)
	assert.Zero(t, a.freeErrs.Load(), "double frees")
	assert.Zero(t, a.pool.Stats().OOMs)
}

// The gauge's estimate saves readings: below the threshold it reads once
// per 1/64 of the limit announced; above it, while the budget refuses, it
// does not read at all.
func TestGaugeReadsSparingly(t *testing.T) {
	w := &fakeWorld{live: 10 << 20, limit: 64 << 20, clock: time.Unix(0, 0), gcTime: time.Millisecond}
	c := w.collector(testPolicy())
	reads := 0
	g := newGauge(func() reading { reads++; return w.read() })
	for range 64 {
		g.check(c, 64<<10, false) // 4 MiB in all: one refresh step
	}
	assert.Equal(t, 4, reads, "the first reading and one per MiB")

	// Above the threshold: the first check collects, the next ones are
	// refused by the budget without reading.
	w.mu.Lock()
	w.live = 60 << 20
	w.mu.Unlock()
	reads = 0
	assert.True(t, g.check(c, 0, false) || g.check(c, 1<<20, false))
	r0 := reads
	for range 100 {
		assert.False(t, g.check(c, 1, false))
	}
	assert.Equal(t, r0, reads)
	w.advance(time.Second)
	assert.True(t, g.check(c, 1, false), "budget allows it again")
}

// While a collection is in flight the gauge does not read the device:
// maybeCollect would do nothing with the reading, and on a GPU every
// allocation of those milliseconds would take the allocator's locks beside
// the cleanups. The collection's closing reading restarts the estimate.
func TestGaugeSkipsReadingsDuringACollection(t *testing.T) {
	w := &fakeWorld{live: 60 << 20, limit: 64 << 20, garbage: 40 << 20, clock: time.Unix(0, 0), gcTime: time.Millisecond}
	c, release := w.gatedBackground()
	var reads atomic.Int32
	g := newGauge(func() reading { reads.Add(1); return w.read() })

	require.True(t, g.check(c, 1<<20, false), "above the threshold: a background collection starts")
	require.True(t, c.collecting())
	r0 := reads.Load()
	for range 1000 {
		assert.False(t, g.check(c, 64<<10, false))
	}
	assert.Equal(t, r0, reads.Load(), "no reading while the collection is in flight")

	close(release)
	c.waitIdle()
	assert.False(t, c.collecting())
	est, fresh := g.estimate()
	assert.True(t, fresh, "the collection's closing reading restarted the estimate")
	assert.Equal(t, uint64(20<<20), est.Live, "live after the collection, nothing announced since")
}

// Concurrent announcements and readings never make the estimate low.
func TestGaugeConcurrent(t *testing.T) {
	w := &fakeWorld{live: 0, limit: 1 << 30, clock: time.Unix(0, 0)}
	c := w.collector(testPolicy())
	g := newGauge(w.read)
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 2000 {
				g.check(c, 4096, false)
				g.check(c, 0, true)
			}
		})
	}
	wg.Wait()
	est, _ := g.estimate()
	assert.Less(t, est.Live, uint64(1<<40), "since never underflows")
}
