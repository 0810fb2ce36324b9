package host

import (
	"sync"
	"time"

	"github.com/gpuarr/gpuarr/device/driver"
)

// An event is a pointer to its latest record. Each Record call makes a new
// record, reached when its stream executes it; Wait and Synchronize bind to
// the record current at the time of the call, as in CUDA, so re-recording
// an event does not move a wait that was already issued.

type event struct {
	dev    *device
	timing bool

	mu     sync.Mutex
	last   *record // nil until the first Record
	closed bool
}

type record struct {
	reached chan struct{} // closed when the stream gets there
	at      time.Time     // stamped before reached closes (timing events)
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
		return nil, driver.Errorf(call, driver.InvalidHandle, "%T is not a host event", e)
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
	r := &record{reached: make(chan struct{})}
	// Enqueue under the event's lock, so that the record order of
	// concurrent Record calls and the event's latest record agree.
	ev.mu.Lock()
	defer ev.mu.Unlock()
	if ev.closed {
		return driver.Errorf(call, driver.Closed, "event of %s is closed", ev.dev)
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
	}
	return err
}

// Wait makes later work on s wait until e's current record is reached. The
// caller does not block; s's goroutine does. An event never recorded, or
// one of any device, is fine.
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
	if r == nil || r.isReached() {
		return nil
	}
	return s.enqueue(call, func() error {
		<-r.reached
		return nil
	})
}

// Synchronize blocks until the current record is reached.
func (e *event) Synchronize() error {
	if err := e.dev.symbol("cuEventSynchronize"); err != nil {
		return err
	}
	if r := e.current(); r != nil {
		<-r.reached
	}
	return nil
}

// Query reports whether the current record is reached; an event never
// recorded counts as reached.
func (e *event) Query() (bool, error) {
	if err := e.dev.symbol("cuEventQuery"); err != nil {
		return false, err
	}
	r := e.current()
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
		return 0, driver.Errorf(call, driver.InvalidHandle, "both events must be timing events")
	}
	rs, re := s.current(), e.current()
	if rs == nil || re == nil {
		return 0, driver.Errorf(call, driver.InvalidHandle, "both events must have been recorded")
	}
	if !rs.isReached() || !re.isReached() {
		return 0, driver.Errorf(call, driver.NotReady, "an event has not been reached yet")
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
		return driver.Errorf(call, driver.Closed, "event of %s closed twice", e.dev)
	}
	e.closed = true
	return nil
}
