package gcpressure

import (
	"sync"
	"sync/atomic"
	"time"

	"github.com/gpuarr/gpuarr/device"
)

// retryGrace is how long a device's gate stays closed after a ladder step,
// for the allocator's retry: the retry is the point of the step, so other
// goroutines wait that long before they may take the memory it freed. A
// ladder that goes on to its next step closes the gate again before then.
const retryGrace = 2 * time.Millisecond

// gates hold back new allocations on a device while its reclaim ladder
// runs. Memory that a ladder's collection frees should go to the
// allocation that ran out; other goroutines allocating meanwhile would turn
// it into new garbage before that allocation retries, and it would fail
// with most of the device's memory garbage. (PyTorch's caching allocator
// gets the same effect by holding its lock through the whole retry.)
//
// memory.Reclaimer does not say when a ladder ends (its last retry
// succeeds, or memory stops calling), so a gate closes when a step starts
// and reopens retryGrace after it ends unless another step began.
type gates struct {
	closed atomic.Int32 // devices whose gate is closed: the fast path's test
	mu     sync.Mutex
	m      map[*device.Device]*gate
}

// gate is one device's: open is closed (broadcast) when it reopens.
type gate struct {
	steps int    // steps running
	gen   uint64 // bumped by each close, to cancel a pending reopen
	open  chan struct{}
}

// close closes dev's gate for a ladder step.
func (gs *gates) close(dev *device.Device) {
	gs.mu.Lock()
	defer gs.mu.Unlock()
	if gs.m == nil {
		gs.m = make(map[*device.Device]*gate)
	}
	g := gs.m[dev]
	if g == nil {
		g = &gate{open: make(chan struct{})}
		gs.m[dev] = g
		gs.closed.Add(1)
	}
	g.steps++
	g.gen++
}

// reopen ends a step: the gate opens after grace unless a step starts.
func (gs *gates) reopen(dev *device.Device, grace time.Duration) {
	gs.mu.Lock()
	defer gs.mu.Unlock()
	g := gs.m[dev]
	if g.steps--; g.steps > 0 {
		return
	}
	gen := g.gen
	time.AfterFunc(grace, func() {
		gs.mu.Lock()
		defer gs.mu.Unlock()
		if g.steps == 0 && g.gen == gen {
			delete(gs.m, dev)
			gs.closed.Add(-1)
			close(g.open)
		}
	})
}

// wait blocks while dev's gate is closed, at most max. It costs one atomic
// load when no gate is closed.
func (gs *gates) wait(dev *device.Device, max time.Duration) {
	if gs.closed.Load() == 0 {
		return
	}
	gs.mu.Lock()
	g := gs.m[dev]
	gs.mu.Unlock()
	if g == nil {
		return
	}
	t := time.NewTimer(max)
	defer t.Stop()
	select {
	case <-g.open:
	case <-t.C:
	}
}
