package lifetime

import (
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gpuarr/gpuarr/device"
	"github.com/gpuarr/gpuarr/memory"
)

func allocatedOn(t *testing.T, dev *device.Device) uint64 {
	t.Helper()
	res, err := memory.Default(dev)
	require.NoError(t, err)
	return res.Stats().AllocatedBytes.Current
}

// Buffers pushed from many goroutines while drains run are each freed
// exactly once, and a drain leaves nothing queued behind it. The queue
// here has no drainer goroutine, so only the test's drains free.
func TestFreeQueueFreesEachBufferOnce(t *testing.T) {
	dev := mmDevice(t)
	s := dev.DefaultStream()
	var mu sync.Mutex
	handled := map[*Buffer]int{}
	q := freeQueue{newBatchStack(func(b *Buffer) **Buffer { return &b.nextFree }, func(b *Buffer) {
		mu.Lock()
		handled[b]++
		mu.Unlock()
		freeQueued(b)
	})}
	q.start.Do(func() {}) // no drainer: the test drains

	const pushers, each = 8, 100
	bufs := make([][]*Buffer, pushers)
	for g := range bufs {
		for range each {
			b, err := alloc("test", s, 4096)
			require.NoError(t, err)
			b.refs.Store(0) // as dropBuffer leaves it
			bufs[g] = append(bufs[g], b)
		}
	}
	base := allocatedOn(t, dev) - pushers*each*4096

	var wg sync.WaitGroup
	stop := make(chan struct{})
	drained := make(chan struct{})
	go func() { // drains concurrently with the pushes
		defer close(drained)
		for {
			select {
			case <-stop:
				return
			default:
				q.drain()
			}
		}
	}()
	for g := range pushers {
		wg.Go(func() {
			for _, b := range bufs[g] {
				q.push(b)
			}
		})
	}
	wg.Wait()
	close(stop)
	<-drained
	q.drain()

	assert.Nil(t, q.head.Load(), "nothing left queued")
	assert.Len(t, handled, pushers*each, "every buffer freed")
	for b, n := range handled {
		require.Equal(t, 1, n, "buffer %p freed %d times", b, n)
	}
	assert.Equal(t, base, allocatedOn(t, dev), "all the memory is back in the pool")
	for _, l := range bufs {
		for _, b := range l {
			require.Nil(t, b.nextFree, "links cleared")
		}
	}
}
