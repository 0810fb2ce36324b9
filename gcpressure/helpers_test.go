package gcpressure

import (
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gpuarr/gpuarr/device"
	"github.com/gpuarr/gpuarr/internal/testutil"
	"github.com/gpuarr/gpuarr/memory"
)

// defaultDevice is the device under test, device.Default().
var defaultDevice = testutil.Device

// recorder wraps an upstream resource and logs what the allocator above
// asks of it beyond plain allocation: segment releases and cache empties.
type recorder struct {
	memory.Resource
	log  *steps
	mute atomic.Bool // the test itself is freeing a block
}

func (r *recorder) Free(b *memory.Block) error {
	if !r.mute.Load() {
		r.log.add("release")
	}
	return r.Resource.Free(b)
}

func (r *recorder) EmptyCache() error {
	r.log.add("empty-cache")
	return r.Resource.EmptyCache()
}

// steps is an ordered, concurrency-safe log of ladder steps.
type steps struct {
	mu sync.Mutex
	s  []string
}

func (l *steps) add(s string) { l.mu.Lock(); l.s = append(l.s, s); l.mu.Unlock() }

func (l *steps) get() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.s...)
}

func (l *steps) reset() { l.mu.Lock(); l.s = nil; l.mu.Unlock() }

// poolRuntime is a runtimeState whose devices are read from one private
// pool (so tests choose the limit) rather than from memory.Default.
func poolRuntime(cfg policy, pool func() memory.Resource) *runtimeState {
	read := func(*device.Device) reading {
		st := pool().Stats()
		return reading{Live: st.AllocatedBytes.Current, Limit: st.HardLimit}
	}
	live := func(*device.Device) uint64 { return pool().Stats().AllocatedBytes.Current }
	return newRuntime(cfg, read, live, func() (systemMemory, error) { return systemMemory{Total: 1 << 40, Available: 1 << 40}, nil })
}

// arrays makes toy arrays: a Go object whose cleanup frees its block, as
// gpuarr's arrays do. Frees that fail (a double free) are counted.
type arrays struct {
	rt       *runtimeState
	pool     memory.Resource
	freeErrs atomic.Int64
	freed    atomic.Int64
	running  atomic.Int32 // cleanups running now
	maxRun   atomic.Int32 // most cleanups seen running at once
	slow     time.Duration
}

type toyArray struct {
	b    *memory.Block
	c    runtime.Cleanup
	data [8]uint64 // a little Go heap, so the GC has something to look at
}

func (a *arrays) cleanup(b *memory.Block) {
	n := a.running.Add(1)
	for m := a.maxRun.Load(); n > m && !a.maxRun.CompareAndSwap(m, n); m = a.maxRun.Load() {
	}
	if a.slow > 0 {
		time.Sleep(a.slow)
	}
	if err := a.pool.Free(b); err != nil {
		a.freeErrs.Add(1)
	} else {
		a.freed.Add(1)
	}
	a.running.Add(-1)
}

// alloc makes an array of n bytes on s, running the eager hook first.
func (a *arrays) alloc(s *device.Stream, n uint64) (*toyArray, error) {
	a.rt.beforeAlloc(s.Device(), n, false)
	b, err := a.pool.Alloc(s, n)
	if err != nil {
		return nil, err
	}
	arr := &toyArray{b: b}
	arr.c = runtime.AddCleanup(arr, a.cleanup, b)
	return arr, nil
}

// release frees an array explicitly (what Release does).
func (a *arrays) release(arr *toyArray) error {
	arr.c.Stop()
	return a.pool.Free(arr.b)
}
