package gcpressure_test

import (
	"fmt"
	"os"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gpuarr/gpuarr/gcpressure"
	"github.com/gpuarr/gpuarr/gpuarr"
	"github.com/gpuarr/gpuarr/internal/testutil"
	"github.com/gpuarr/gpuarr/memory"
)

// TestMain gives the default resources a small hard limit unless the
// environment sets one, before any test builds them: the loops below
// allocate ten times the limit, so it must be small to stay fast on the
// host backend (and it is on a GPU too).
func TestMain(m *testing.M) {
	testutil.DefaultHardLimit("256MiB")
	os.Exit(m.Run())
}

// Arrays allocated in a loop to ten times the hard limit, none released,
// never run out of memory: with eager collection, and through the reclaim
// ladder alone when it is off. The newest arrays stay reachable and are
// checked at the end of each step, so a cleanup that freed a live
// buffer (or a reused buffer not yet free) shows as a wrong value,
// especially under GPUARR_HOST_CHECK=1, which poisons freed memory.
func TestArraysBeyondTheHardLimit(t *testing.T) {
	dev := testutil.Device(t)
	res, err := memory.Default(dev)
	require.NoError(t, err)
	limit := res.Stats().HardLimit
	require.Positive(t, limit, "TestMain sets a hard limit")
	if m, err := gpuarr.DefaultMemory(dev); err == nil && m == gpuarr.UnifiedMemory {
		// GPUARR_DEFAULT_MEMORY=unified: the arrays come from the managed
		// pool, charged to the same limit; its OOMs are the ones to watch.
		res, err = memory.DefaultManaged(dev)
		require.NoError(t, err)
	}
	const steps = 16 // arrays per limit's worth
	n := int(limit / steps / 4)

	for _, eager := range []bool{true, false} {
		t.Run(fmt.Sprintf("eager=%v", eager), func(t *testing.T) {
			was := gcpressure.SetEager(eager)
			defer gcpressure.SetEager(was)
			gcpressure.WaitIdle() // a background collection of an earlier test
			before, ooms := gcpressure.Stats(), res.Stats().OOMs

			var ring [3]*gpuarr.Array[float32]
			for i := range 10 * steps {
				a, err := gpuarr.Full(gpuarr.Shape{n}, float32(i))
				require.NoError(t, err, "array %d of %d bytes under a %d-byte limit", i, 4*n, limit)
				ring[i%len(ring)] = a
				if old := ring[(i+1)%len(ring)]; old != nil {
					head, err := old.Slice(0, 4)
					require.NoError(t, err)
					got, err := head.ToSlice()
					require.NoError(t, err)
					want := float32(i + 1 - len(ring))
					require.Equal(t, []float32{want, want, want, want}, got, "array %d, still reachable", i+1-len(ring))
				}
			}
			runtime.KeepAlive(ring)

			gcpressure.WaitIdle()
			after := gcpressure.Stats()
			eagerRuns := after.Eager.Collections - before.Eager.Collections
			ladder := after.LadderRuns() - before.LadderRuns()
			t.Logf("%s, limit %s: %d eager collections, %d ladder runs, %d ladder collections",
				dev, memory.FormatBytes(limit), eagerRuns, ladder, after.Reclaim.Collections-before.Reclaim.Collections)
			assert.Equal(t, ooms, res.Stats().OOMs, "no allocation failed, even inside the pool")
			if eager {
				assert.Positive(t, eagerRuns)
			} else {
				assert.Zero(t, eagerRuns)
				assert.Positive(t, ladder, "the ladder did the work")
			}
		})
	}
}
