//go:build cgo

package cuda

/*
#include "shim.h"
*/
import "C"

import (
	"math"
	"sync/atomic"

	"github.com/gpuarr/gpuarr/device/driver"
)

// CUevent_flags (cuda.h): ordering-only events skip the timestamp.
const eventDisableTiming = 2

type event struct {
	dev    *device
	h      C.gp_h
	timing bool
	closed atomic.Bool
}

func (d *device) NewEvent(timing bool) (driver.Event, error) {
	if err := d.check("cuEventCreate"); err != nil {
		return nil, err
	}
	flags := C.uint(eventDisableTiming)
	if timing {
		flags = 0
	}
	r := C.gp_event_create(d.ctx, flags)
	if r.rc != 0 {
		return nil, d.fail(int64(r.rc), "%s", d)
	}
	return &event{dev: d, h: C.gp_h(r.v), timing: timing}, nil
}

func (e *event) check(call string) error {
	if e.closed.Load() {
		return closedError(call, "the event")
	}
	return e.dev.check(call)
}

func asEvent(call string, ev driver.Event) (*event, error) {
	e, ok := ev.(*event)
	if !ok || e == nil {
		return nil, driver.Errorf(call, driver.InvalidValue, "%T is not a CUDA event", ev)
	}
	return e, e.check(call)
}

// recordable checks that ev can be recorded on s and returns it.
func (s *stream) recordable(ev driver.Event) (*event, error) {
	if err := s.check("cuEventRecord"); err != nil {
		return nil, err
	}
	e, err := asEvent("cuEventRecord", ev)
	if err != nil {
		return nil, err
	}
	if e.dev != s.dev {
		return nil, driver.Errorf("cuEventRecord", driver.InvalidValue, "event of %s recorded on a stream of %s", e.dev, s.dev)
	}
	return e, nil
}

func (s *stream) Record(ev driver.Event) error {
	e, err := s.recordable(ev)
	if err != nil {
		return err
	}
	if rc := C.gp_event_record(s.dev.ctx, e.h, s.h); rc != 0 {
		return s.dev.fail(int64(rc), "")
	}
	return nil
}

// RecordWait records ev on s and makes waiter wait for that record: one
// cgo call when both streams are of s's device (the usual cross-stream
// hand-off), else Record then Wait.
func (s *stream) RecordWait(ev driver.Event, waiter driver.Stream) error {
	w, ok := waiter.(*stream)
	if !ok || w == nil || w.dev != s.dev {
		if err := s.Record(ev); err != nil {
			return err
		}
		return waiter.Wait(ev)
	}
	if err := w.check("cuStreamWaitEvent"); err != nil {
		return err
	}
	e, err := s.recordable(ev)
	if err != nil {
		return err
	}
	if rc := C.gp_event_record_wait(s.dev.ctx, e.h, s.h, w.h); rc != 0 {
		return s.dev.fail(int64(rc), "")
	}
	return nil
}

var _ driver.RecordWaiter = (*stream)(nil)

// Wait makes the stream wait, on the device, for the event's last record;
// the event may belong to another device.
func (s *stream) Wait(ev driver.Event) error {
	if err := s.check("cuStreamWaitEvent"); err != nil {
		return err
	}
	e, err := asEvent("cuStreamWaitEvent", ev)
	if err != nil {
		return err
	}
	if rc := C.gp_stream_wait_event(s.dev.ctx, s.h, e.h); rc != 0 {
		return s.dev.fail(int64(rc), "")
	}
	return nil
}

func (e *event) Synchronize() error {
	if err := e.check("cuEventSynchronize"); err != nil {
		return err
	}
	if rc := C.gp_event_synchronize(e.dev.ctx, e.h); rc != 0 {
		return e.dev.fail(int64(rc), "")
	}
	return nil
}

func (e *event) Query() (bool, error) {
	if err := e.check("cuEventQuery"); err != nil {
		return false, err
	}
	rc := C.gp_event_query(e.dev.ctx, e.h)
	if rc == 0 {
		return true, nil
	}
	if code, _ := decode(int64(rc)); code == driver.NotReady {
		return false, nil
	}
	return false, e.dev.fail(int64(rc), "")
}

func (e *event) ElapsedSince(start driver.Event) (float32, error) {
	if err := e.check("cuEventElapsedTime"); err != nil {
		return 0, err
	}
	s, err := asEvent("cuEventElapsedTime", start)
	if err != nil {
		return 0, err
	}
	if !e.timing || !s.timing {
		return 0, driver.Errorf("cuEventElapsedTime", driver.InvalidValue, "both events must be timing events")
	}
	r := C.gp_event_elapsed(e.dev.ctx, s.h, e.h)
	if r.rc != 0 {
		return 0, e.dev.fail(int64(r.rc), "")
	}
	return math.Float32frombits(uint32(r.v)), nil
}

func (e *event) Close() error {
	if !e.closed.CompareAndSwap(false, true) {
		return closedError("cuEventDestroy_v2", "the event")
	}
	if err := e.dev.check("cuEventDestroy_v2"); err != nil {
		return err
	}
	if rc := C.gp_event_destroy(e.dev.ctx, e.h); rc != 0 {
		return e.dev.fail(int64(rc), "")
	}
	return nil
}
