package gcpressure

import (
	"bytes"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gpuarr/gpuarr/device"
	"github.com/gpuarr/gpuarr/memory"
)

// The ladder's order is observable: a fake "GC" and fake synchronizations
// log each step, and the one named in a case frees the memory that the
// failing allocation needs. Each step runs once, in the order, and
// the allocator stops at the first that helps; after the ladder gives up,
// the caching pool releases cached segments, and only then fails.
func TestLadderOrder(t *testing.T) {
	dev := defaultDevice(t)
	const limit, big = 4 << 20, 3 << 20
	full := []string{"sync-stream", "collect", "sync-device", "give-up"}
	cases := []struct {
		name    string
		freeAt  string // the step that frees the held block; "" none
		cached  bool   // an idle cached segment that only its release gives back
		caching bool   // the case needs a caching pool
		want    []string
		oom     bool
	}{
		{name: "stream sync frees", freeAt: "sync-stream", want: full[:1]},
		{name: "collection frees", freeAt: "collect", want: full[:2]},
		{name: "device sync frees", freeAt: "sync-device", want: full[:3]},
		{name: "releasing cached segments frees", cached: true, caching: true, want: append(full[:4:4], "release")},
		{name: "nothing frees", want: full, oom: true},
	}
	for _, kind := range []string{"caching", "reclaiming"} {
		for _, c := range cases {
			if c.caching && kind != "caching" {
				continue
			}
			t.Run(kind+"/"+c.name, func(t *testing.T) {
				var log steps
				var held *memory.Block
				var pool memory.Resource
				var up *recorder
				free := func(step string) {
					log.add(step)
					if step == c.freeAt {
						up.mute.Store(true)
						require.NoError(t, pool.Free(held))
						up.mute.Store(false)
					}
				}
				var debug bytes.Buffer
				cfg := testPolicy()
				cfg.Log = &debug
				col := newCollector(cfg)
				col.gc = func(time.Duration) time.Duration { free("collect"); return time.Microsecond }
				r := newLadder(col, func(*device.Device) uint64 { return pool.Stats().AllocatedBytes.Current })
				r.syncStream = func(*device.Device) error { free("sync-stream"); return nil }
				r.syncDevice = func(*device.Device) error { free("sync-device"); return nil }
				ladder := memory.ReclaimFunc(func(d *device.Device, need uint64, level int) bool {
					assert.Equal(t, dev, d)
					assert.Equal(t, uint64(big), need)
					if level == levelGiveUp {
						log.add("give-up")
					}
					return r.Reclaim(d, need, level)
				})
				up = &recorder{Resource: memory.Limit(memory.Direct(dev), limit), log: &log}
				if kind == "caching" {
					pool = memory.Caching(up, memory.CachingOptions{Reclaimer: ladder})
				} else {
					pool = memory.Reclaiming(up, ladder)
				}
				s := dev.DefaultStream()
				if c.cached {
					small, err := pool.Alloc(s, 4096) // a 2 MiB segment, cached once freed
					require.NoError(t, err)
					require.NoError(t, pool.Free(small))
				} else {
					var err error
					held, err = pool.Alloc(s, big)
					require.NoError(t, err)
				}
				heldBytes := pool.Stats().AllocatedBytes.Current // the rounded size
				log.reset()

				b, err := pool.Alloc(s, big)
				got := log.get()
				if kind == "reclaiming" && c.freeAt == "" {
					// Reclaiming empties its upstream's cache after the ladder.
					c.want = append(c.want[:len(c.want):len(c.want)], "empty-cache")
				}
				assert.Equal(t, c.want, got)
				if c.oom {
					require.ErrorIs(t, err, device.ErrOutOfMemory)
					assert.Contains(t, err.Error(), "reserved", "the error carries the status report")
					assert.Contains(t, err.Error(), "limit")
				} else {
					require.NoError(t, err)
					require.NoError(t, pool.Free(b))
				}
				if c.oom || c.cached {
					require.NoError(t, func() error {
						if held != nil {
							return pool.Free(held)
						}
						return nil
					}())
				}
				// Each level ran once, up to the one that helped.
				runs := r.snapshot().Runs
				for level := range runs {
					want := uint64(0)
					if level < len(c.want) && c.want[level] == full[level] {
						want = 1
					}
					assert.Equal(t, want, runs[level], "level %d", level)
				}
				if c.freeAt == "collect" {
					assert.Equal(t, uint64(1), r.snapshot().Collections)
					assert.Equal(t, heldBytes, r.snapshot().BytesFreed)
					assert.Contains(t, debug.String(), "level 1 (collect) freed "+memory.FormatBytes(heldBytes))
				}
				require.NoError(t, pool.EmptyCache())
			})
		}
	}
}

// Concurrent ladders share collections: callers that arrive while one is
// under way wait for it and then for one that started after they came, so
// a crowd of failing allocations costs about two collections, not one each.
func TestCollectSharesCollections(t *testing.T) {
	w := &fakeWorld{live: 10, limit: 100, clock: time.Unix(0, 0), gcTime: time.Millisecond}
	c := w.collector(testPolicy())
	release := make(chan struct{})
	inner := c.gc
	c.gc = func(d time.Duration) time.Duration { <-release; return inner(d) }
	type result struct{ ran bool }
	out := make(chan result)
	for range 8 {
		go func() {
			ran, _, _ := c.collect(w.read, time.Second)
			out <- result{ran}
		}()
	}
	time.Sleep(20 * time.Millisecond) // let them all arrive
	close(release)
	ran := 0
	for range 8 {
		if (<-out).ran {
			ran++
		}
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	assert.Equal(t, ran, w.gcCalls)
	assert.LessOrEqual(t, ran, 2)
	assert.GreaterOrEqual(t, ran, 1)
}

// A forced collection counts in the eager budget: right after the ladder
// collected, an eager collection has to wait its turn.
func TestCollectChargesTheBudget(t *testing.T) {
	w := &fakeWorld{live: 80, limit: 100, clock: time.Unix(0, 0), gcTime: time.Millisecond}
	c := w.collector(testPolicy())
	ran, took, _ := c.collect(w.read, time.Second)
	require.True(t, ran)
	assert.Equal(t, time.Millisecond, took)
	assert.True(t, c.refuses(w.read(), false))
	assert.False(t, c.maybeCollect(w.read, false))
	assert.Zero(t, c.snapshot().Collections, "forced collections are the ladder's to count")
	w.advance(25 * time.Millisecond)
	assert.True(t, c.maybeCollect(w.read, false))
}

func TestGiveUpLevel(t *testing.T) {
	var log bytes.Buffer
	cfg := testPolicy()
	cfg.Log = &log
	r := newLadder(newCollector(cfg), func(*device.Device) uint64 { return 0 })
	dev := defaultDevice(t)
	assert.False(t, r.Reclaim(dev, 1<<20, levelGiveUp))
	assert.False(t, r.Reclaim(dev, 1<<20, 7))
	assert.Equal(t, uint64(2), r.snapshot().Runs[levelGiveUp])
	assert.Contains(t, log.String(), "ladder exhausted")
}

// An allocation that outruns a background collection shares it when it
// frees enough, instead of stalling for a second collection; when it frees
// too little, the ladder collects again at once; and when the shared one
// was enough on paper but the retry failed, the device-sync step collects.
func TestLadderJoinsBackgroundCollection(t *testing.T) {
	dev := defaultDevice(t)
	start := func() (*fakeWorld, *collector, *ladder) {
		w := &fakeWorld{live: 90, limit: 100, garbage: 40, clock: time.Unix(0, 0), gcTime: time.Millisecond}
		c, gate := w.gatedBackground()
		// The background collection ends once the ladder waits for it.
		c.joining = func() { close(gate) }
		r := newLadder(c, func(*device.Device) uint64 { return w.read().Live })
		r.syncDevice = func(*device.Device) error { return nil }
		require.True(t, c.maybeCollect(w.read, false), "background collection started")
		return w, c, r
	}

	w, c, r := start()
	r.Reclaim(dev, 30, levelCollect)
	assert.Equal(t, 1, w.calls(), "joined, no second collection")
	assert.Zero(t, r.snapshot().Collections)
	assert.Equal(t, uint64(1), r.snapshot().Runs[levelCollect])
	// The retry failed after all: the next step collects.
	w.mu.Lock()
	w.garbage = 5
	w.mu.Unlock()
	r.Reclaim(dev, 30, levelSyncDevice)
	assert.Equal(t, 2, w.calls(), "the device-sync step collected")
	assert.Equal(t, uint64(1), r.snapshot().Collections)
	r.Reclaim(dev, 30, levelSyncDevice)
	assert.Equal(t, 2, w.calls(), "only once per join")
	c.waitIdle()

	w, _, r = start()
	r.Reclaim(dev, 50, levelCollect)
	assert.Equal(t, 2, w.calls(), "the background collection freed 40 of the 50 needed: collected again")
	assert.Equal(t, uint64(1), r.snapshot().Collections)
	r.Reclaim(dev, 50, levelSyncDevice)
	assert.Equal(t, 2, w.calls(), "nothing was joined")
}
