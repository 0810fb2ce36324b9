package gpuarr_test

import (
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gpuarr/gpuarr/gcpressure"
	"github.com/gpuarr/gpuarr/gpuarr"
)

// Arrays dropped for the GC are freed by a collection gcpressure runs
// before it returns (the reclaim ladder relies on it) ...
func TestCollectionFreesDroppedArrays(t *testing.T) {
	dev := testDevice(t)
	gcpressure.CollectAndWait(5 * time.Second)
	release := gpuarr.HoldDrainer() // only CollectAndWait's own drain frees
	defer release()
	base := allocated(t, dev)
	before := gpuarr.ReadCounters()
	for range 64 {
		x := must(gpuarr.Zeros[float32](gpuarr.Shape{1024}))
		v := must(x.Slice(0, 512))
		_ = v
	}
	gcpressure.CollectAndWait(5 * time.Second)
	assert.Equal(t, base, allocated(t, dev), "the memory is back when CollectAndWait returns")
	assert.GreaterOrEqual(t, gpuarr.ReadCounters().Sub(before).Frees, uint64(64))
}

// ... and by a collection nobody in gpuarr asked for (the Go runtime's
// own, or a plain runtime.GC), through the queue's drainer goroutine.
func TestPlainGCFreesDroppedArrays(t *testing.T) {
	dev := testDevice(t)
	gcpressure.CollectAndWait(5 * time.Second)
	base := allocated(t, dev)
	for range 64 {
		_ = must(gpuarr.Zeros[float32](gpuarr.Shape{1024}))
	}
	runtime.GC()
	require.True(t, gcpressure.WaitForCleanups(5*time.Second))
	deadline := time.Now().Add(5 * time.Second)
	for allocated(t, dev) != base && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	assert.Equal(t, base, allocated(t, dev), "the drainer freed what the cleanups queued")
}
