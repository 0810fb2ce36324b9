package gpuarr_test

import (
	"runtime/debug"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gpuarr/gpuarr/gpuarr"
	"github.com/gpuarr/gpuarr/internal/cleanups"
)

// A handle released before the registrar reaches it never gets a GC
// cleanup; one still alive gets exactly one, and releasing it afterwards
// frees its memory once.
func TestCleanupRegisteredOnlyForLiveHandles(t *testing.T) {
	dev := testDevice(t)
	defer debug.SetGCPercent(debug.SetGCPercent(-1)) // no GC cycle (and its flush) in between
	release := gpuarr.HoldRegistrar()
	defer release()
	cleanups.Collect(5 * time.Second)
	base := allocated(t, dev)
	before := gpuarr.ReadCounters()

	var live []*gpuarr.Array[float32]
	for i := range 10 {
		a := must(gpuarr.Zeros[float32](gpuarr.Shape{256}))
		if i%5 < 2 {
			require.NoError(t, a.Release()) // 4 of 10, before any registration
		} else {
			live = append(live, a)
		}
	}
	cleanups.Collect(5 * time.Second) // registers the 6 live handles
	d := gpuarr.ReadCounters().Sub(before)
	assert.Equal(t, uint64(6), d.CleanupsRegistered)
	assert.Equal(t, base+6*1024, allocated(t, dev), "the 4 released handles' memory is back")

	for _, a := range live {
		require.NoError(t, a.Release())
		require.NoError(t, a.Release(), "a second Release does nothing")
	}
	cleanups.Collect(5 * time.Second)
	d = gpuarr.ReadCounters().Sub(before)
	assert.Zero(t, d.FreeErrors, "each buffer freed once: Release stopped the registered cleanups")
	assert.Equal(t, base, allocated(t, dev))
}

// Handles released, dropped and viewed on many goroutines while the
// registrar and collections run: every buffer is freed exactly once (the
// checking host backend fails a double free) and the memory comes back.
func TestRegistrarRacesReleaseAndCollection(t *testing.T) {
	dev := testDevice(t)
	cleanups.Collect(5 * time.Second)
	base := allocated(t, dev)
	before := gpuarr.ReadCounters()
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 600 {
				a := must(gpuarr.Zeros[float32](gpuarr.Shape{64}))
				switch (g + i) % 4 {
				case 0:
					assert.NoError(t, a.Release())
				case 1: // dropped for the GC
				case 2:
					v := must(a.Slice(0, 32))
					assert.NoError(t, a.Release())
					got, err := v.ToSlice()
					assert.NoError(t, err)
					assert.Len(t, got, 32)
					if i%2 == 0 {
						assert.NoError(t, v.Release())
					}
				case 3:
					if i%100 == 3 {
						cleanups.Collect(5 * time.Second)
					}
					assert.NoError(t, a.Release())
				}
			}
		})
	}
	wg.Wait()
	for range 2 {
		cleanups.Collect(5 * time.Second)
	}
	assert.Equal(t, base, allocated(t, dev))
	assert.Zero(t, gpuarr.ReadCounters().Sub(before).FreeErrors)
}
