package gpuarr_test

import (
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gpuarr/gpuarr/gpuarr"
	"github.com/gpuarr/gpuarr/internal/cleanups"
	"github.com/gpuarr/gpuarr/internal/testutil"
)

// Every use of a released handle is an error naming the array; Release
// again is a no-op.
func TestUseAfterRelease(t *testing.T) {
	dev := testDevice(t)
	ks := kernels(t, dev)
	x := must(gpuarr.Zeros[uint32](gpuarr.Shape{4}))
	other := must(gpuarr.Zeros[uint32](gpuarr.Shape{4}))
	defer other.Release()
	require.NoError(t, x.Release())
	require.NoError(t, x.Release(), "a second Release does nothing")
	assert.True(t, x.Released())

	uses := map[string]func() error{
		"ToSlice":      func() error { _, err := x.ToSlice(); return err },
		"CopyToHost":   func() error { return x.CopyToHost(make([]uint32, 4)) },
		"CopyFromHost": func() error { return x.CopyFromHost(make([]uint32, 4)) },
		"Reshape":      func() error { _, err := x.Reshape(gpuarr.Shape{2, 2}); return err },
		"Slice":        func() error { _, err := x.Slice(0, 1); return err },
		"Copy":         func() error { return gpuarr.Copy(x, other) },
		"Copy src":     func() error { return gpuarr.Copy(other, x) },
		"Clone":        func() error { _, err := gpuarr.Clone(x); return err },
		"Launch":       func() error { return gpuarr.Launch(ks.Fill, linear(4), gpuarr.Out(x), uint32(1), uint64(4)) },
		"Launch In":    func() error { return gpuarr.Launch(ks.Copy, linear(4), gpuarr.Out(other), gpuarr.In(x), uint64(4)) },
	}
	for name, use := range uses {
		err := use()
		require.ErrorIs(t, err, gpuarr.ErrReleased, name)
		assert.Contains(t, err.Error(), "uint32[4] array on "+dev.String(), name)
	}
	assert.Equal(t, []uint32{0, 0, 0, 0}, values(t, other), "a failed launch wrote nothing")
}

// Views keep the buffer alive after their parent is released, and the
// memory goes back when the last handle does.
func TestViewsOutliveParent(t *testing.T) {
	dev := testDevice(t)
	// Earlier tests' garbage is collected first: its cleanups running
	// mid-test would move the baseline.
	for range 3 {
		cleanups.Collect(5 * time.Second)
	}
	base := allocated(t, dev)
	x := must(gpuarr.FromSlice([]float64{1, 2, 3, 4, 5, 6}, gpuarr.Shape{3, 2}))
	v := must(x.Slice(1, 3))
	r := must(v.Reshape(gpuarr.Shape{4}))
	require.NoError(t, x.Release())
	require.NoError(t, v.Release())
	assert.Equal(t, []float64{3, 4, 5, 6}, values(t, r))
	require.NoError(t, r.CopyFromHost([]float64{9, 9, 9, 9}))
	assert.Equal(t, []float64{9, 9, 9, 9}, values(t, r))
	assert.Greater(t, allocated(t, dev), base, "the view still holds the memory")
	require.NoError(t, r.Release())
	assert.Equal(t, base, allocated(t, dev))
}

// Arrays nobody references are freed by their cleanups: the pool's
// allocated bytes return to where they were.
func TestCleanupWhenUnreachable(t *testing.T) {
	dev := testDevice(t)
	settle := func() {
		for range 3 {
			cleanups.Collect(5 * time.Second)
		}
	}
	settle()
	base := allocated(t, dev)
	var keep *gpuarr.Array[float32]
	func() {
		for i := range 100 {
			a := must(gpuarr.Full(gpuarr.Shape{256}, float32(i)))
			if i == 50 {
				keep = must(a.Slice(0, 1)) // a view of a dropped parent
			}
		}
	}()
	assert.Greater(t, allocated(t, dev), base)
	settle()
	assert.Equal(t, []float32{50}, values(t, keep), "the view kept its buffer")
	assert.Greater(t, allocated(t, dev), base)
	runtime.KeepAlive(keep)
	keep = nil
	settle()
	assert.Equal(t, base, allocated(t, dev), "every buffer went back to the pool")
}

// Cleanups run on other goroutines, concurrently with Release and with
// operations on views of the same buffers; nothing may crash or race.
func TestReleaseAndCleanupsConcurrently(t *testing.T) {
	dev := testDevice(t)
	ks := kernels(t, dev)
	ss := newStreams(t, dev, 4)
	base := func() uint64 { cleanups.Collect(5 * time.Second); return allocated(t, dev) }()
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			s := ss[g]
			for i := range 200 {
				x, err := gpuarr.Zeros[uint32](gpuarr.Shape{32}, gpuarr.On(s))
				if !assert.NoError(t, err) {
					return
				}
				v, err := x.Slice(0, 16)
				if !assert.NoError(t, err) {
					return
				}
				done := make(chan struct{})
				go func() { // races the launch below; either order is fine
					defer close(done)
					_ = x.Release()
				}()
				err = gpuarr.Launch(ks.Fill, linear(16), gpuarr.Out(v), uint32(i), uint64(16), gpuarr.On(ss[(g+i)%4]))
				assert.NoError(t, err, "the view keeps the buffer")
				<-done
				if i%3 == 0 {
					got, err := v.ToSlice()
					assert.NoError(t, err)
					assert.Equal(t, uint32(i), got[15])
					_ = v.Release()
				} // else: dropped, for the GC
				if i%50 == 0 {
					runtime.GC()
				}
			}
		})
	}
	wg.Wait()
	for range 3 {
		cleanups.Collect(5 * time.Second)
	}
	assert.Equal(t, base, allocated(t, dev))
	assert.Zero(t, gpuarr.ReadCounters().FreeErrors)
}

// Arrays dropped for the GC are freed by a collection gcpressure runs
// before it returns (the reclaim ladder relies on it) ...
func TestCollectionFreesDroppedArrays(t *testing.T) {
	dev := testDevice(t)
	cleanups.Collect(5 * time.Second)
	release := gpuarr.HoldDrainer() // only cleanups.Collect's own drain frees
	defer release()
	base := allocated(t, dev)
	before := gpuarr.ReadCounters()
	for range 64 {
		x := must(gpuarr.Zeros[float32](gpuarr.Shape{1024}))
		v := must(x.Slice(0, 512))
		_ = v
	}
	cleanups.Collect(5 * time.Second)
	assert.Equal(t, base, allocated(t, dev), "the memory is back when cleanups.Collect returns")
	assert.Zero(t, gpuarr.ReadCounters().Sub(before).FreeErrors)
}

// ... and by collections nobody in gpuarr asked for (the Go runtime's
// own, or plain runtime.GC calls), through the queue's drainer goroutine.
// The newest handles get their cleanups when the first collection ends
// (internal/lifetime/cleanup.go), so the second frees them.
func TestPlainGCFreesDroppedArrays(t *testing.T) {
	dev := testDevice(t)
	cleanups.Collect(5 * time.Second)
	base := allocated(t, dev)
	for range 64 {
		_ = must(gpuarr.Zeros[float32](gpuarr.Shape{1024}))
	}
	for range 2 {
		runtime.GC()
		require.True(t, cleanups.Wait(5*time.Second))
	}
	testutil.WaitFor(5*time.Second, func() bool { return allocated(t, dev) == base })
	assert.Equal(t, base, allocated(t, dev), "the drainer freed what the cleanups queued")
}

// Freed buffers are reused by the next allocations (internal/lifetime). Uses of
// a handle that race with its Release, on many goroutines and streams,
// either complete before the free or fail with ErrReleased; none of them
// may land in the array that reused the buffer, whose contents every
// round checks.
func TestStaleUsesRaceWithBufferReuse(t *testing.T) {
	dev := testDevice(t)
	ss := newStreams(t, dev, 8)
	const n, rounds = 64, 150
	stray := make([]float32, n)
	for i := range stray {
		stray[i] = -1
	}
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range rounds {
				s := ss[(g+i)%len(ss)]
				x, err := gpuarr.Full(gpuarr.Shape{n}, float32(i), gpuarr.On(s))
				if !assert.NoError(t, err) {
					return
				}
				done := make(chan struct{})
				go func() {
					defer close(done)
					assert.NoError(t, x.Release())
				}()
				// Each races the Release: before it, it works; after it,
				// ErrReleased.
				for _, use := range []func() error{
					func() error { return x.CopyFromHost(stray) },
					func() error { return gpuarr.EvalInto(x, gpuarr.Add[float32](x, x), gpuarr.On(ss[(g+i+1)%len(ss)])) },
					func() error { _, err := x.Slice(0, 1); return err },
				} {
					if err := use(); err != nil {
						assert.ErrorIs(t, err, gpuarr.ErrReleased)
					}
				}
				<-done
				want := float32(g*rounds + i)
				y, err := gpuarr.Full(gpuarr.Shape{n}, want, gpuarr.On(s))
				if !assert.NoError(t, err) {
					return
				}
				got, err := y.ToSlice()
				assert.NoError(t, err)
				for k, v := range got {
					if v != want {
						t.Errorf("goroutine %d round %d: element %d is %v, want %v: a stale use wrote to a reused buffer", g, i, k, v, want)
						break
					}
				}
				assert.NoError(t, y.Release())
			}
		})
	}
	wg.Wait()
	assert.Zero(t, gpuarr.ReadCounters().FreeErrors)
}
