package memory

import (
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gpuarr/gpuarr/device"
)

// Many goroutines on many streams (some shared) allocate, write a pattern
// of their own, declare uses on other streams, verify and free, while
// another goroutine reads statistics and trims. Run it under -race. At the
// end every block is back and the structure is consistent.
func TestConcurrentStress(t *testing.T) {
	dev := defaultDevice(t)
	const workers, nstreams = 12, 6
	iters := 600
	if testing.Short() {
		iters = 100
	}
	pool := Caching(Limit(Direct(dev), 256<<20), CachingOptions{FrontBlocks: 16, FrontBytes: 8 << 20})
	streams := make([]*device.Stream, nstreams)
	for i := range streams {
		var err error
		streams[i], err = dev.NewStream()
		require.NoError(t, err)
	}
	defer func() {
		for _, s := range streams {
			_ = s.Close()
		}
	}()

	var wg sync.WaitGroup
	var stop atomic.Bool
	var pattern atomic.Uint32
	wg.Add(1)
	go func() { // observer
		defer wg.Done()
		for !stop.Load() {
			st := pool.Stats()
			assert.LessOrEqual(t, st.ReservedBytes.Current, uint64(256<<20))
			if rand.IntN(8) == 0 {
				assert.NoError(t, pool.Trim(64<<20))
			}
		}
	}()
	var workersWG sync.WaitGroup
	for w := range workers {
		workersWG.Add(1)
		go func() {
			defer workersWG.Done()
			rng := rand.New(rand.NewPCG(uint64(w), 7))
			s := streams[w%nstreams] // two workers share each stream
			type held struct {
				b *Block
				v uint32
			}
			var hs []held
			verifyFree := func(h held) {
				var got [1]uint32
				assert.NoError(t, device.Download(h.b.Stream(), got[:], h.b.Ptr()))
				assert.Equal(t, h.v, got[0], "block %v overwritten", h.b)
				assert.NoError(t, pool.Free(h.b))
			}
			for range iters {
				if len(hs) > 0 && rng.IntN(2) == 0 {
					i := rng.IntN(len(hs))
					verifyFree(hs[i])
					hs = append(hs[:i], hs[i+1:]...)
					continue
				}
				n := rng.Uint64N(64 << 10)
				if rng.IntN(10) == 0 {
					n = 1<<20 + rng.Uint64N(3<<20)
				}
				b, err := pool.Alloc(s, n)
				if err != nil {
					assert.ErrorIs(t, err, device.ErrOutOfMemory)
					continue
				}
				v := pattern.Add(1)
				assert.NoError(t, s.Memset32(b.Ptr(), v, b.Capacity()/4))
				if rng.IntN(8) == 0 {
					o := streams[rng.IntN(nstreams)]
					if o != s {
						assert.NoError(t, pool.RecordUse(b, o))
						assert.NoError(t, o.Memset32(b.Ptr(), v, 1))
					}
				}
				hs = append(hs, held{b, v})
			}
			for _, h := range hs {
				verifyFree(h)
			}
		}()
	}
	workersWG.Wait()
	stop.Store(true)
	wg.Wait()
	require.NoError(t, pool.checkInvariants())
	st := pool.Stats()
	require.Zero(t, st.AllocatedBytes.Current)
	require.Zero(t, st.Allocations.Current)
	require.NoError(t, pool.EmptyCache())
	st = pool.Stats()
	require.Zero(t, st.ReservedBytes.Current)
	t.Logf("segments +%d/-%d, cross-stream waits %d, event queries %d, peak allocated %d",
		st.SegmentsObtained, st.SegmentsReleased, st.CrossStreamWaits, st.EventQueries, st.AllocatedBytes.Peak)
}
