package device

import (
	"sync/atomic"
	"time"

	"github.com/gpuarr/gpuarr/device/driver"
)

// Event marks a point in a stream; see Stream.Record and Stream.Wait.
type Event struct {
	dev    *Device
	drv    driver.Event
	timing bool
	closed atomic.Bool
}

// Device is the device the event belongs to.
func (e *Event) Device() *Device { return e.dev }

// Driver exposes the backend event to sibling packages.
func (e *Event) Driver() driver.Event { return e.drv }

func (e *Event) check(call string) error {
	if e.closed.Load() {
		return closedError(call + " on a closed event")
	}
	return nil
}

// Synchronize blocks until the event's last record is reached.
func (e *Event) Synchronize() error {
	if err := e.check("Event.Synchronize"); err != nil {
		return err
	}
	return e.drv.Synchronize()
}

// Query reports whether the event's last record is reached; an event never
// recorded counts as reached.
func (e *Event) Query() (bool, error) {
	if err := e.check("Event.Query"); err != nil {
		return false, err
	}
	return e.drv.Query()
}

// Close destroys the event. Closing twice is an error matching ErrClosed.
func (e *Event) Close() error {
	if !e.closed.CompareAndSwap(false, true) {
		return closedError("Event.Close twice")
	}
	return e.drv.Close()
}

// Elapsed is the device time between two completed timing events.
func Elapsed(start, end *Event) (time.Duration, error) {
	if err := start.check("Elapsed"); err != nil {
		return 0, err
	}
	if err := end.check("Elapsed"); err != nil {
		return 0, err
	}
	if !start.timing || !end.timing {
		return 0, invalid("Elapsed", "both events must come from NewTimingEvent")
	}
	ms, err := end.drv.ElapsedSince(start.drv)
	if err != nil {
		return 0, err
	}
	return time.Duration(float64(ms) * float64(time.Millisecond)), nil
}
