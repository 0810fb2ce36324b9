package tracking

import (
	"sync"
	"sync/atomic"

	"github.com/gpuarr/gpuarr/device"
	"github.com/gpuarr/gpuarr/internal/cowmap"
	"github.com/gpuarr/gpuarr/internal/debugenv"
)

// event is a pooled device event. Tracking records one only when another
// stream (or the host) must wait for a point in a stream, and gives it
// back when no wait can name that point any more. refs counts its holders:
// the tracking entry that owns it, plus a host read synchronizing on it
// outside the buffer's lock, so it is not re-recorded elsewhere meanwhile.
type event struct {
	ev   *device.Event
	pool *eventPool
	refs atomic.Int32
}

// use returns the device event for a record, wait or synchronization by a
// holder. An event with no holder was given back and may be another
// holder's by now: using it would move that holder's waits (or, with
// GPUARR_DEBUG=events, touch a destroyed event), so that is a panic.
func (e *event) use() *device.Event {
	if e.refs.Load() <= 0 {
		panic("gpuarr: internal error: a tracking event was used after it was given back")
	}
	return e.ev
}

// hold adds a holder.
func (e *event) hold() { e.refs.Add(1) }

// drop removes a holder; the last one returns the event to its pool.
// Waits already issued keep the record they were issued for, so reusing
// the event cannot move them.
func (e *event) drop() {
	switch r := e.refs.Add(-1); {
	case r == 0:
		e.pool.put(e)
	case r < 0:
		panic("gpuarr: internal error: a tracking event was given back twice")
	}
}

// eventPool keeps one device's idle events: creating and destroying
// events costs driver calls that tracking should not pay per operation.
type eventPool struct {
	dev *device.Device
	// spare holds a few idle events taken and given back with one atomic
	// operation each: a hand-off between two streams takes an event and
	// gives another back, and the mutex below would cost it more than the
	// swap. idle holds the rest.
	spare [4]atomic.Pointer[event]
	mu    sync.Mutex
	idle  []*event
}

// pools holds each device's event pool.
var pools cowmap.PerKey[*device.Device, *eventPool]

func poolOf(dev *device.Device) *eventPool { return pools.Get(dev, newEventPool) }

func newEventPool(dev *device.Device) *eventPool { return &eventPool{dev: dev} }

// noReuse is GPUARR_DEBUG=events: every get creates an event and put
// destroys it (debugenv.NoEventReuse, NoTrackingEventReuse).
var noReuse = debugenv.Has(debugenv.NoEventReuse) || debugenv.Has(debugenv.NoTrackingEventReuse)

// get returns an event with one holder.
func (p *eventPool) get() (*event, error) {
	for i := range p.spare {
		if e := p.spare[i].Swap(nil); e != nil {
			e.own()
			return e, nil
		}
	}
	p.mu.Lock()
	if n := len(p.idle); n > 0 {
		e := p.idle[n-1]
		p.idle = p.idle[:n-1]
		p.mu.Unlock()
		e.own()
		return e, nil
	}
	p.mu.Unlock()
	ev, err := p.dev.NewEvent()
	if err != nil {
		return nil, err
	}
	e := &event{ev: ev, pool: p}
	e.refs.Store(1)
	return e, nil
}

// own gives an idle event its first holder. An idle event has none: one
// that still has a holder was given back while in use, and two owners
// recording it would move each other's waits, so that is a panic.
func (e *event) own() {
	if !e.refs.CompareAndSwap(0, 1) {
		panic("gpuarr: internal error: a tracking event was reused while still held")
	}
}

func (p *eventPool) put(e *event) {
	if noReuse {
		// A record still queued completes before the driver frees the
		// event; waits issued on it keep theirs.
		_ = e.ev.Close()
		return
	}
	for i := range p.spare {
		if p.spare[i].CompareAndSwap(nil, e) {
			return
		}
	}
	p.mu.Lock()
	p.idle = append(p.idle, e)
	p.mu.Unlock()
}
