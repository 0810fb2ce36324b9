package indexcheck

import (
	"errors"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/gpuarr/gpuarr/device"
)

// MaxPending is how many checks a stream queues before issuing another
// polls it (and, when its oldest is still running, waits for that one).
const MaxPending = 4096

// Check is one operation's pending check.
type Check struct {
	st   *devState
	slot slotRef
	site Site
	ev   *device.Event
}

// Ptr is the device address of the check's slot, for the kernel.
func (c *Check) Ptr() device.Ptr { return c.slot.ptr }

// devState is a device's slots, events and queues.
type devState struct {
	dev     *device.Device
	mu      sync.Mutex
	store   *slotStore
	events  []*device.Event // idle
	queues  map[*device.Stream][]*Check
	pending atomic.Int64
	// carried are errors found while bounding a queue (Issued), kept for
	// the next Poll.
	carried    []error
	carriedLen atomic.Int64
}

var states sync.Map // *device.Device → *devState

func stateOf(dev *device.Device) *devState {
	if v, ok := states.Load(dev); ok {
		return v.(*devState)
	}
	v, _ := states.LoadOrStore(dev, &devState{dev: dev, queues: map[*device.Stream][]*Check{}})
	return v.(*devState)
}

// Reserve takes a slot on s's device for an operation about to check
// indices on s.
func Reserve(s *device.Stream, site Site) (*Check, error) {
	st := stateOf(s.Device())
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.store == nil {
		st.store = newSlotStore(st.dev)
	}
	ref, err := st.store.take()
	if err != nil {
		return nil, fmt.Errorf("gpuarr.%s: the index check's slot: %w", site.Call, err)
	}
	return &Check{st: st, slot: ref, site: site}, nil
}

// Cancel gives the slot back when the operation queued no kernel that
// writes it.
func (c *Check) Cancel() {
	c.st.mu.Lock()
	c.st.store.give(c.slot)
	c.st.mu.Unlock()
}

// Issued queues the check on s, behind the kernels the operation just
// queued there: an event recorded now marks when its slot is final.
func (c *Check) Issued(s *device.Stream) error {
	st := c.st
	st.mu.Lock()
	var ev *device.Event
	if n := len(st.events); n > 0 {
		ev, st.events = st.events[n-1], st.events[:n-1]
	}
	st.mu.Unlock()
	if ev == nil {
		var err error
		if ev, err = st.dev.NewEvent(); err != nil {
			c.Cancel()
			return fmt.Errorf("gpuarr.%s: the index check's event: %w", c.site.Call, err)
		}
	}
	if err := s.Record(ev); err != nil {
		st.mu.Lock()
		st.events = append(st.events, ev)
		st.store.give(c.slot)
		st.mu.Unlock()
		return fmt.Errorf("gpuarr.%s: the index check's event: %w", c.site.Call, err)
	}
	c.ev = ev
	st.mu.Lock()
	q := append(st.queues[s], c)
	st.queues[s] = q
	st.pending.Add(1)
	if len(q) > MaxPending {
		// What bounding the queue finds is reported by the next Poll,
		// like any other check's.
		st.carried = append(st.carried, st.pollLocked(s, true)...)
		st.carriedLen.Store(int64(len(st.carried)))
	}
	st.mu.Unlock()
	return nil
}

// Poll reports what the completed checks of dev's streams found: nil, or
// the *Error values (joined) of the operations whose indices were bad.
// Each check is reported once; checks still running stay queued.
func Poll(dev *device.Device) error {
	v, ok := states.Load(dev)
	if !ok {
		return nil
	}
	st := v.(*devState)
	if st.pending.Load() == 0 && st.carriedLen.Load() == 0 {
		return nil
	}
	st.mu.Lock()
	errs := st.carried
	st.carried = nil
	st.carriedLen.Store(0)
	for s := range st.queues {
		errs = append(errs, st.pollLocked(s, false)...)
	}
	st.mu.Unlock()
	return errors.Join(errs...)
}

// pollLocked reads the completed checks at the head of s's queue. With
// bound, it waits for the oldest while the queue is longer than
// MaxPending.
func (st *devState) pollLocked(s *device.Stream, bound bool) []error {
	q := st.queues[s]
	var errs []error
	i := 0
	for ; i < len(q); i++ {
		c := q[i]
		done, err := c.ev.Query()
		if err == nil && !done && bound && len(q)-i > MaxPending {
			err = c.ev.Synchronize()
			done = true
		}
		if err == nil && !done {
			break
		}
		if err == nil {
			if e := st.store.read(c.slot, c.site); e != nil {
				errs = append(errs, e)
			}
		}
		st.store.give(c.slot)
		st.events = append(st.events, c.ev)
		q[i] = nil
	}
	st.pending.Add(-int64(i))
	if i == len(q) {
		delete(st.queues, s)
	} else {
		st.queues[s] = append(q[:0], q[i:]...)
	}
	return errs
}
