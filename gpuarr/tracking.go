package gpuarr

import (
	"errors"

	"github.com/gpuarr/gpuarr/device"
	"github.com/gpuarr/gpuarr/gcpressure"
)

// tracking is a buffer's record of the streams that touched it, guarded by
// the buffer's mutex: the last writer and the streams that read since.
//
// Events are recorded lazily: a write on stream W only notes "W, not
// recorded"; the event is recorded on W the first time another stream (or
// the host) must wait for it, and then covers everything W issued until
// that moment, the write included. So work that stays on one stream makes
// no driver call at all, and a hand-off costs one record and one wait.
type tracking struct {
	writer *device.Stream // last writer; nil once it is known done
	wev    *event         // event of writer's device; nil when none yet
	wfresh bool           // wev was recorded after writer's last write
	dirty  bool           // a GPU write may be pending as the host sees it
	wseq   uint64         // counts writes, so a host wait knows it is still current

	readers []reader // streams other than writer that read since the last write
}

// reader is a stream that read the buffer since the last write; having
// read, it already waited for that write. ev, when fresh, marks its last read.
type reader struct {
	s     *device.Stream
	ev    *event
	fresh bool
}

// mode is how an operation uses an array.
type mode uint8

const (
	modeRead mode = 1 << iota
	modeWrite
	modeReadWrite = modeRead | modeWrite
)

// closed reports whether err says the stream was closed: Close waits for
// the stream's work, so there is nothing left to wait for.
func closed(err error) bool { return errors.Is(err, device.ErrClosed) }

// recordWriterLocked returns an event marking the last write, recording it
// now if needed, or nil when there is nothing to wait for.
func (t *tracking) recordWriterLocked() (*event, error) {
	if t.writer == nil {
		return nil, nil
	}
	if t.wev != nil && t.wfresh {
		return t.wev, nil
	}
	if t.wev == nil {
		ev, err := stateOf(t.writer.Device()).events.get()
		if err != nil {
			return nil, err
		}
		t.wev = ev
	}
	if err := t.writer.Record(t.wev.ev); err != nil {
		if closed(err) {
			t.wev.drop()
			t.writer, t.wev, t.wfresh, t.dirty = nil, nil, false, false
			return nil, nil
		}
		return nil, err
	}
	counters.eventRecords.Add(1)
	t.wfresh = true
	return t.wev, nil
}

// recordReaderLocked is recordWriterLocked for a reader's last read.
func (t *tracking) recordReaderLocked(r *reader) (*event, error) {
	if r.ev != nil && r.fresh {
		return r.ev, nil
	}
	if r.ev == nil {
		ev, err := stateOf(r.s.Device()).events.get()
		if err != nil {
			return nil, err
		}
		r.ev = ev
	}
	if err := r.s.Record(r.ev.ev); err != nil {
		if closed(err) {
			return nil, nil
		}
		return nil, err
	}
	counters.eventRecords.Add(1)
	r.fresh = true
	return r.ev, nil
}

func (t *tracking) readerIndex(s *device.Stream) int {
	for i := range t.readers {
		if t.readers[i].s == s {
			return i
		}
	}
	return -1
}

// waitOn makes s wait for ev (nil: nothing to wait for).
func waitOn(s *device.Stream, ev *event) error {
	if ev == nil {
		return nil
	}
	if err := s.Wait(ev.ev); err != nil {
		return err
	}
	counters.streamWaits.Add(1)
	return nil
}

func (t *tracking) waitWriterLocked(s *device.Stream) error {
	ev, err := t.recordWriterLocked()
	if err != nil {
		return err
	}
	return waitOn(s, ev)
}

func (t *tracking) waitReaderLocked(s *device.Stream, r *reader) error {
	ev, err := t.recordReaderLocked(r)
	if err != nil {
		return err
	}
	return waitOn(s, ev)
}

// useLocked orders work about to be issued on s after the work it
// conflicts with, and records that s uses the buffer. A read waits for the
// last write when another stream made it; a write also waits for the
// reads other streams made since. Use by one stream only makes no driver
// call. It must be called with the buffer locked, and the lock held until
// the work is issued, so that no other stream records a wait in between.
func (t *tracking) useLocked(s *device.Stream, m mode) error {
	if m&modeWrite == 0 {
		if t.writer == s {
			return nil
		}
		if i := t.readerIndex(s); i >= 0 {
			t.readers[i].fresh = false
			return nil
		}
		if err := t.waitWriterLocked(s); err != nil {
			return err
		}
		t.readers = append(t.readers, reader{s: s})
		return nil
	}

	if t.writer != s || len(t.readers) > 0 {
		if t.writer != s && t.readerIndex(s) < 0 {
			if err := t.waitWriterLocked(s); err != nil {
				return err
			}
		}
		for i := range t.readers {
			if r := &t.readers[i]; r.s != s {
				if err := t.waitReaderLocked(s, r); err != nil {
					return err
				}
			}
		}
		// Every earlier use is now ordered before s: forget them.
		t.dropReaders()
		if t.writer != s && t.wev != nil {
			// A new writer gets a new event: a host read may still be
			// waiting on this one for the old write.
			t.wev.drop()
			t.wev = nil
		}
		t.writer = s
	}
	t.wfresh = false
	t.dirty = true
	t.wseq++
	return nil
}

func (t *tracking) dropReaders() {
	for i := range t.readers {
		if ev := t.readers[i].ev; ev != nil {
			ev.drop()
		}
	}
	clear(t.readers)
	t.readers = t.readers[:0]
}

// reset forgets everything (the buffer is being freed).
func (t *tracking) reset() {
	t.dropReaders()
	if t.wev != nil {
		t.wev.drop()
	}
	t.writer, t.wev, t.wfresh, t.dirty = nil, nil, false, false
}

// syncForHost makes the host see the buffer's last GPU write: when the
// dirty bit says one may be pending, it waits for the writer's event (or
// the writer's stream, when no event was recorded: the same point) and
// clears the bit unless another write came meanwhile. A clean buffer costs
// one lock and no driver call.
func (b *buffer) syncForHost() error {
	b.mu.Lock()
	t := &b.trk
	if !t.dirty {
		b.mu.Unlock()
		return nil
	}
	seq := t.wseq
	var ev *event
	s := t.writer
	if t.wfresh && t.wev != nil {
		ev = t.wev
		ev.hold()
	}
	b.mu.Unlock()

	// The one place arrays block the CPU on the device: a good moment for
	// an eager collection, since we wait anyway (gcpressure's blocking rule).
	gcpressure.BeforeBlockingWait(b.st.dev)
	var err error
	if ev != nil {
		err = ev.ev.Synchronize()
		ev.drop()
	} else if s != nil {
		err = s.Synchronize()
	}
	counters.hostSyncs.Add(1)
	if err != nil && !closed(err) {
		return err
	}
	b.mu.Lock()
	if t.wseq == seq {
		t.dirty = false
	}
	b.mu.Unlock()
	return nil
}
