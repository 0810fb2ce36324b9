package lifetime

import (
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gpuarr/gpuarr/device"
	"github.com/gpuarr/gpuarr/device/dtype"
	"github.com/gpuarr/gpuarr/memory"
)

func mmDevice(t *testing.T) *device.Device {
	t.Helper()
	dev, err := device.Default()
	require.NoError(t, err)
	return dev
}

// newHandle makes a float32 array of n elements on dev's default stream,
// from res (nil: the device's default resource).
func newHandle(t *testing.T, dev *device.Device, res memory.Resource, n int) *Handle {
	t.Helper()
	h := new(Handle)
	if res == nil {
		require.NoError(t, h.Make("test", dev.DefaultStream(), []int{n}, dtype.Float32.Elem()))
	} else {
		require.NoError(t, h.MakeFrom("test", dev.DefaultStream(), res, []int{n}, dtype.Float32.Elem()))
	}
	return h
}

// When the Release, the free and the reuse all fall between Acquire's
// released check and its pin, the pin lands on the new array's buffer:
// the second check must refuse it and leave that buffer's references as
// they were.
func TestAcquireRefusesBufferReusedAfterCheck(t *testing.T) {
	dev := mmDevice(t)
	defer func() { afterReleasedCheck = nil }()
	for range 100 {
		stale := newHandle(t, dev, nil, 4)
		var x *Handle
		afterReleasedCheck = func(h *Handle) {
			if h != stale || x != nil {
				return
			}
			require.NoError(t, stale.Release())
			x = newHandle(t, dev, nil, 4)
		}
		ok := stale.Acquire()
		afterReleasedCheck = nil
		require.NotNil(t, x, "the hook ran")
		require.False(t, ok, "a released handle is refused")
		if x.buf != stale.buf {
			// The spare pool dropped the buffer (the race detector's build
			// drops some on purpose); the pin failed on the freed buffer.
			require.NoError(t, x.Release())
			continue
		}
		assert.Equal(t, int64(1), x.buf.refs.Load(), "the refused pin was dropped")
		require.NoError(t, x.Release())
		return
	}
	t.Fatal("no freed buffer was reused in 100 tries")
}

// Buffers of a resource other than the device's are never put among the
// spares.
func TestOtherResourcesBuffersAreNotReused(t *testing.T) {
	dev := mmDevice(t)
	res, err := stateOf(dev).resource()
	require.NoError(t, err)
	for range 20 {
		a := newHandle(t, dev, res, 4)
		b := a.buf
		require.NotNil(t, b.res)
		require.NoError(t, a.Release())
		x := newHandle(t, dev, nil, 4)
		assert.NotSame(t, b, x.buf)
		require.NoError(t, x.Release())
	}
}

// Arrays made and released by several goroutines while others pin them
// through handles that may be released (as operations racing a Release
// do): every pin that succeeds is on a live array, every free happens
// once, and all memory goes back. Run it under the race detector and the
// checking host device too.
func TestReleaseRacesStalePins(t *testing.T) {
	dev := mmDevice(t)
	res, err := stateOf(dev).resource()
	require.NoError(t, err)
	before := res.Stats().Allocations.Current
	free0, _ := Counts()
	const makers, pinners, rounds = 4, 4, 2000
	var shared [makers]atomic.Pointer[Handle]
	var wg sync.WaitGroup
	stop := make(chan struct{})
	for i := range pinners {
		wg.Go(func() {
			for n := 0; ; n++ {
				select {
				case <-stop:
					return
				default:
				}
				h := shared[(i+n)%makers].Load()
				if h == nil || !h.Acquire() {
					continue
				}
				assert.False(t, h.Released() && h.buf.refs.Load() < 1, "a pin on a freed buffer")
				_ = h.buf.Unref()
			}
		})
	}
	var mk sync.WaitGroup
	for i := range makers {
		mk.Go(func() {
			for range rounds {
				h := newHandle(t, dev, nil, 4)
				shared[i].Store(h)
				if rand.IntN(4) == 0 {
					v := new(Handle)
					assert.NoError(t, v.MakeView("test", h, 0, []int{2}, nil))
					assert.NoError(t, h.Release())
					assert.NoError(t, v.Release())
					continue
				}
				assert.NoError(t, h.Release())
			}
		})
	}
	mk.Wait()
	close(stop)
	wg.Wait()
	free1, _ := Counts()
	assert.Equal(t, free0, free1, "no free failed (a double free would)")
	assert.Equal(t, before, res.Stats().Allocations.Current, "every block went back once")
}
