package host

import (
	"sync"
	"time"

	"github.com/gpuarr/gpuarr/device/driver"
)

// An event is a pointer to its latest record. Each Record call makes a new
// record, reached when its stream executes it; Wait binds to the record
// current at the time of the call, as in CUDA, so re-recording an event
// does not move a wait that was already issued. Synchronize binds to it
// too, except in checking mode, where it follows the event as CUDA's
// cuEventSynchronize does: a host thread blocked on an event that is
// recorded again waits for the new record instead, and returns at once
// when that one is already reached (see Synchronize).

type event struct {
	dev    *device
	timing bool

	mu     sync.Mutex
	last   *record // nil until the first Record
	closed bool
	// moved, in checking mode, is closed (and replaced) by each Record, so
	// that Synchronize notices the event moving while it blocks.
	moved chan struct{}
}

type record struct {
	reached chan struct{} // closed when the stream gets there
	at      time.Time     // stamped before reached closes (timing events)
	// capture is set for a record made on a capturing stream: it is not
	// queued (it only marks a point of the capture), and the host may not
	// wait for it while the capture lasts.
	capture *capture
}

// captureError refuses a host wait on a record made during a capture that
// is still going on; a record of an ended capture counts as reached.
func (r *record) captureError(call string, d *device) (refused, ended bool, err error) {
	if r == nil || r.capture == nil {
		return false, false, nil
	}
	if r.capture.ended.Load() {
		return false, true, nil
	}
	r.capture.invalidated.Store(true)
	return true, false, errorf(call, driver.CapturedEvent, "the event was recorded in a capture on %s that is still going on", d)
}

func (r *record) isReached() bool {
	select {
	case <-r.reached:
		return true
	default:
		return false
	}
}

// NewEvent creates an event; timing events stamp the time they are reached.
func (d *device) NewEvent(timing bool) (driver.Event, error) {
	if err := d.symbol("cuEventCreate"); err != nil {
		return nil, err
	}
	return &event{dev: d, timing: timing}, nil
}

func asEvent(call string, e driver.Event) (*event, error) {
	ev, ok := e.(*event)
	if !ok {
		return nil, errorf(call, driver.InvalidHandle, "%T is not a host event", e)
	}
	return ev, nil
}

func (e *event) current() *record {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.last
}

// Record queues a marker that reaches the event when the stream gets to it.
func (s *stream) Record(e driver.Event) error {
	const call = "cuEventRecord"
	if err := s.dev.symbol(call); err != nil {
		return err
	}
	ev, err := asEvent(call, e)
	if err != nil {
		return err
	}
	if c := s.capturing(); c != nil {
		// A point of the capture, not work: nothing to queue or replay.
		ev.mu.Lock()
		defer ev.mu.Unlock()
		if ev.closed {
			return errorf(call, driver.Closed, "event of %s is closed", ev.dev)
		}
		ev.last = &record{capture: c}
		ev.movedLocked()
		return nil
	}
	r := &record{reached: make(chan struct{})}
	// Enqueue under the event's lock, so that the record order of
	// concurrent Record calls and the event's latest record agree.
	ev.mu.Lock()
	defer ev.mu.Unlock()
	if ev.closed {
		return errorf(call, driver.Closed, "event of %s is closed", ev.dev)
	}
	err = s.enqueue(call, func() error {
		if ev.timing {
			r.at = time.Now()
		}
		close(r.reached)
		return nil
	})
	if err == nil {
		ev.last = r
		ev.movedLocked()
	}
	return err
}

// movedLocked tells a checking-mode Synchronize blocked on the event that
// it was recorded again.
func (e *event) movedLocked() {
	if !e.dev.sys.cfg.check {
		return
	}
	if e.moved != nil {
		close(e.moved)
	}
	e.moved = make(chan struct{})
}

// Wait makes later work on s wait until e's current record is reached. The
// caller does not block; s's goroutine does. An event never recorded, or
// one of any device, is fine.
// RecordWait is Record then waiter.Wait: the host backend has no driver
// crossing to save, but offers the call so that package device's checks
// before it run in CI as they do on CUDA.
func (s *stream) RecordWait(e driver.Event, waiter driver.Stream) error {
	if err := s.Record(e); err != nil {
		return err
	}
	// CUDA's record and wait are two driver calls too: in checking mode
	// the gap between them is widened at random, so that code that lets
	// another goroutine re-record the event in between shows up.
	s.dev.sys.gap()
	return waiter.Wait(e)
}

var _ driver.RecordWaiter = (*stream)(nil)

func (s *stream) Wait(e driver.Event) error {
	const call = "cuStreamWaitEvent"
	if err := s.dev.symbol(call); err != nil {
		return err
	}
	ev, err := asEvent(call, e)
	if err != nil {
		return err
	}
	r := ev.current()
	c := s.capturing()
	if r != nil && r.capture != nil {
		switch {
		case r.capture == c || r.capture.ended.Load():
			return nil // in stream order within the capture, or nothing left to wait for
		case c != nil:
			c.invalidated.Store(true)
			return errorf(call, driver.StreamCaptureIsolation,
				"stream %d of %s would wait on an event recorded in another capture", s.handle, s.dev)
		default:
			// CUDA would join s into the capture; the host device does not.
			return errorf(call, driver.StreamCaptureUnsupported,
				"stream %d of %s would wait on an event recorded in a capture (joining a capture is not supported on the host device)", s.handle, s.dev)
		}
	}
	if c != nil && r != nil {
		c.invalidated.Store(true)
		return errorf(call, driver.StreamCaptureIsolation,
			"capturing stream %d of %s would wait on an event recorded outside the capture", s.handle, s.dev)
	}
	if r == nil || r.isReached() {
		return nil
	}
	return s.enqueue(call, func() error {
		<-r.reached
		return nil
	})
}

// Synchronize blocks until the current record is reached. In checking
// mode it follows the event as CUDA's cuEventSynchronize does: when the
// event is recorded again while the call blocks, it waits for the new
// record instead, and returns as soon as that one is reached, even if the
// record it started on is not (a record on an idle stream releases it at
// once). Code that lets an event it synchronizes on be recorded elsewhere
// then sees a wrong answer on the host as it would on a GPU.
func (e *event) Synchronize() error {
	const call = "cuEventSynchronize"
	if err := e.dev.symbol(call); err != nil {
		return err
	}
	for {
		e.mu.Lock()
		r, moved := e.last, e.moved
		e.mu.Unlock()
		if refused, ended, err := r.captureError(call, e.dev); refused || ended {
			return err
		}
		if r == nil {
			return nil
		}
		if !e.dev.sys.cfg.check {
			<-r.reached
			return nil
		}
		select {
		case <-r.reached:
			return nil
		case <-moved:
		}
	}
}

// Query reports whether the current record is reached; an event never
// recorded counts as reached.
func (e *event) Query() (bool, error) {
	const call = "cuEventQuery"
	if err := e.dev.symbol(call); err != nil {
		return false, err
	}
	r := e.current()
	if refused, ended, err := r.captureError(call, e.dev); refused || ended {
		return ended, err
	}
	return r == nil || r.isReached(), nil
}

// ElapsedSince is the time from start's record to e's in milliseconds.
func (e *event) ElapsedSince(start driver.Event) (float32, error) {
	const call = "cuEventElapsedTime"
	if err := e.dev.symbol(call); err != nil {
		return 0, err
	}
	s, err := asEvent(call, start)
	if err != nil {
		return 0, err
	}
	if !e.timing || !s.timing {
		return 0, errorf(call, driver.InvalidHandle, "both events must be timing events")
	}
	rs, re := s.current(), e.current()
	if rs == nil || re == nil {
		return 0, errorf(call, driver.InvalidHandle, "both events must have been recorded")
	}
	if rs.capture != nil || re.capture != nil {
		return 0, errorf(call, driver.CapturedEvent, "an event was recorded in a capture")
	}
	if !rs.isReached() || !re.isReached() {
		return 0, errorf(call, driver.NotReady, "an event has not been reached yet")
	}
	return float32(re.at.Sub(rs.at).Seconds() * 1e3), nil
}

// Close destroys the event. Records already queued still run, and waits
// bound to them still end.
func (e *event) Close() error {
	const call = "cuEventDestroy_v2"
	if err := e.dev.symbol(call); err != nil {
		return err
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.closed {
		return errorf(call, driver.Closed, "event of %s closed twice", e.dev)
	}
	e.closed = true
	return nil
}
