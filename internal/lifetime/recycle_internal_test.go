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

// skipWithoutReuse skips a test that needs a freed buffer object to come
// back: with unified memory as the default on a checking host device the
// arrays' managed memory is uncached (memory.DefaultManaged), each array a
// block of its own, so no buffer object is reused (recycle.go).
func skipWithoutReuse(t *testing.T, dev *device.Device) {
	t.Helper()
	if _, checking := dev.Checking(); checking && Memory(stateOf(dev).mem.mem.Load()) == UnifiedMemory {
		t.Skip("no buffer object is reused with uncached unified memory (a checking host device)")
	}
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
	skipWithoutReuse(t, dev)
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
			// Another block came (the pool's front cache gave the freed
			// one to someone else); the pin failed on the freed buffer.
			require.NoError(t, x.Release())
			continue
		}
		assert.Equal(t, int64(1), x.buf.refs.Load(), "the refused pin was dropped")
		require.NoError(t, x.Release())
		return
	}
	t.Fatal("no freed buffer was reused in 100 tries")
}

// A buffer object goes with its block: an array of the device's resource
// given by MakeFrom (a foreign resource, as far as the door knows), then
// one of the default path, get the same buffer, and the second frees into
// the default resource without the first's resource sticking to it.
func TestBufferGoesWithItsBlock(t *testing.T) {
	dev := mmDevice(t)
	skipWithoutReuse(t, dev)
	st := stateOf(dev)
	res, err := st.resource()
	require.NoError(t, err)
	var own memory.Resource // what Make's buffers keep: managed memory, or nil
	if Memory(st.mem.mem.Load()) != DeviceMemory {
		res, err = st.arrayResource()
		require.NoError(t, err)
		own = res
	}
	before := res.Stats().Allocations.Current
	for range 100 {
		a := newHandle(t, dev, res, 4)
		b := a.buf
		require.Same(t, res, b.res)
		require.NoError(t, a.Release())
		assert.Nil(t, b.block, "a freed buffer holds no block")
		x := newHandle(t, dev, nil, 4)
		if x.buf != b {
			require.NoError(t, x.Release())
			continue
		}
		assert.Equal(t, own, x.buf.res, "the first array's resource did not stick to the buffer")
		require.NoError(t, x.Release())
		assert.Equal(t, before, res.Stats().Allocations.Current, "both blocks went back")
		return
	}
	t.Fatal("no block came back with its buffer in 100 tries")
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
