package gpuarr

import (
	"errors"
	"fmt"

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
	wseq   uint64         // counts writes, so a host wait knows it is still current

	readers []reader // streams other than writer that read since the last write

	// The flags last, together: a buffer then fits the allocator's
	// 128-byte size class.
	wfresh bool // wev was recorded after writer's last write
	dirty  bool // a GPU write may be pending as the host sees it
	// wread: writer read the buffer since its last write (reads on the
	// writer's own stream are not readers), and nothing waited for those
	// reads yet. A write on another stream and a CPU write must: they wait
	// for an event recorded after the reads.
	wread bool
	// wcap: the last write was issued on a capturing stream, so a graph
	// launch produces its data, at a time and on a stream tracking cannot
	// know (see syncForHost).
	wcap bool
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

// captureError refuses to record an event on a capturing stream for
// another stream or the host to wait on: CUDA would join the waiting
// stream into the capture (or fail), and the data does not exist before
// the graph is launched anyway.
func captureError(s *device.Stream, what string) error {
	return fmt.Errorf("%s on a stream of %s that is capturing: end the capture "+
		"(and launch the graph) before using the array elsewhere: %w", what, s.Device(), device.ErrStreamCapture)
}

// recordWriterLocked returns an event marking the last write, recording it
// now if needed, or nil when there is nothing to wait for.
func (t *tracking) recordWriterLocked() (*event, error) {
	ev, _, err := t.recordWriterFor(nil)
	return ev, err
}

// recordWriterFor is recordWriterLocked for a waiting stream s (nil: the
// host, or no one yet). When it records and s may wait on the device, s
// waits in the same driver call, and waited says so: the usual hand-off
// is one crossing from Go, not two.
func (t *tracking) recordWriterFor(s *device.Stream) (ev *event, waited bool, err error) {
	if t.writer == nil {
		return nil, false, nil
	}
	if t.writer.IsCapturing() {
		return nil, false, captureError(t.writer, "last written")
	}
	if t.wev != nil && t.wfresh {
		return t.wev, false, nil
	}
	if t.wev == nil {
		ev, err := stateOf(t.writer.Device()).events.get()
		if err != nil {
			return nil, false, err
		}
		t.wev = ev
	}
	waited, err = record(t.writer, t.wev, s)
	if err != nil {
		if closed(err) && t.writer.Closed() {
			t.wev.drop()
			t.writer, t.wev, t.wfresh, t.dirty = nil, nil, false, false
			return nil, false, nil
		}
		return nil, false, err
	}
	t.wfresh = true
	return t.wev, waited, nil
}

// recordReaderLocked is recordWriterLocked for a reader's last read.
func (t *tracking) recordReaderLocked(r *reader) (*event, error) {
	ev, _, err := t.recordReaderFor(r, nil)
	return ev, err
}

// recordReaderFor is recordWriterFor for a reader's last read.
func (t *tracking) recordReaderFor(r *reader, s *device.Stream) (ev *event, waited bool, err error) {
	if r.s.IsCapturing() {
		return nil, false, captureError(r.s, "read")
	}
	if r.ev != nil && r.fresh {
		return r.ev, false, nil
	}
	if r.ev == nil {
		ev, err := stateOf(r.s.Device()).events.get()
		if err != nil {
			return nil, false, err
		}
		r.ev = ev
	}
	waited, err = record(r.s, r.ev, s)
	if err != nil {
		if closed(err) && r.s.Closed() {
			return nil, false, nil
		}
		return nil, false, err
	}
	r.fresh = true
	return r.ev, waited, nil
}

// record records ev on on, and makes waiter wait for it in the same call
// when waiter is a stream that may wait on the device (not capturing:
// waitOn has the CPU wait instead). It reports whether waiter waited.
func record(on *device.Stream, ev *event, waiter *device.Stream) (waited bool, err error) {
	if waiter == nil || waiter.IsCapturing() {
		if err := on.Record(ev.ev); err != nil {
			return false, err
		}
		counters.eventRecords.Add(1)
		return false, nil
	}
	if err := on.RecordWait(ev.ev, waiter); err != nil {
		return false, err
	}
	counters.eventRecords.Add(1)
	counters.streamWaits.Add(1)
	return true, nil
}

func (t *tracking) readerIndex(s *device.Stream) int {
	for i := range t.readers {
		if t.readers[i].s == s {
			return i
		}
	}
	return -1
}

// waitOn makes s wait for ev (nil: nothing to wait for). A capturing s
// may not wait on an event recorded outside its capture (CUDA's capture
// isolation rule): the CPU waits for ev instead, so the work it marks is
// done before anything captured after this point can run.
func waitOn(s *device.Stream, ev *event) error {
	if ev == nil {
		return nil
	}
	if s.IsCapturing() {
		if err := ev.ev.Synchronize(); err != nil && !closed(err) {
			return err
		}
		counters.hostSyncs.Add(1)
		return nil
	}
	if err := s.Wait(ev.ev); err != nil {
		return err
	}
	counters.streamWaits.Add(1)
	return nil
}

func (t *tracking) waitWriterLocked(s *device.Stream) error {
	ev, waited, err := t.recordWriterFor(s)
	if err != nil || waited {
		return err
	}
	return waitOn(s, ev)
}

func (t *tracking) waitReaderLocked(s *device.Stream, r *reader) error {
	ev, waited, err := t.recordReaderFor(r, s)
	if err != nil || waited {
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
			// Ordered after the write by s itself; a later write must
			// wait for it (wread).
			t.wread = true
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
		// Refuse before changing anything when a use to wait for was
		// made in a capture still going on.
		for i := range t.readers {
			if r := &t.readers[i]; r.s != s && r.s.IsCapturing() {
				return captureError(r.s, "read")
			}
		}
		if t.writer != s && (t.readerIndex(s) < 0 || t.wread) {
			if t.wread {
				t.wfresh = false // the event must follow the writer's reads too
			}
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
	t.wfresh, t.wread = false, false
	t.dirty = true
	t.wcap = s.IsCapturing()
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
	t.writer, t.wev, t.wfresh, t.dirty, t.wcap, t.wread = nil, nil, false, false, false, false
}

// syncCapturedLocked is syncForHost for a buffer whose last write was
// captured (it unlocks b.mu). While the capture goes on, the data does not
// exist yet and waiting for the stream would invalidate the capture: an
// error. Once the capture ended, a graph launch produces the data, on a
// stream tracking does not know: every host read synchronizes the whole
// device, and the buffer stays dirty, since a later launch of the same
// graph writes it again. A write outside a capture ends this.
func (b *buffer) syncCapturedLocked() error {
	s := b.trk.writer
	b.mu.Unlock()
	dev := b.st.dev
	if s != nil {
		if s.IsCapturing() {
			return fmt.Errorf("written on a stream of %s that is still capturing: "+
				"end the capture and launch the graph before reading it on the host: %w", s.Device(), device.ErrStreamCapture)
		}
		dev = s.Device()
	}
	gcpressure.BeforeBlockingWait(b.st.dev)
	err := dev.Synchronize()
	counters.hostSyncs.Add(1)
	return err
}

// syncForHost makes the host see the buffer's last GPU write: when the
// dirty bit says one may be pending, it waits for the writer's event (or
// the writer's stream, when no event was recorded: the same point) and
// clears the bit unless another write came meanwhile. A clean buffer costs
// one lock and no driver call.
func (b *buffer) syncForHost() error { return b.syncForHostMigrating(nil) }

// syncForHostMigrating is syncForHost that, when a GPU write may be
// pending and migrate is set, first lets migrate issue work on the
// writer's stream, then waits for an event recorded after that work (which
// covers the write too, being later on the same stream).
func (b *buffer) syncForHostMigrating(migrate func(s *device.Stream) (bool, error)) error {
	b.mu.Lock()
	t := &b.trk
	if !t.dirty {
		b.mu.Unlock()
		return nil
	}
	if t.wcap {
		return b.syncCapturedLocked()
	}
	seq := t.wseq
	var ev *event
	s := t.writer
	if migrate != nil && s != nil && !s.IsCapturing() {
		// Issued under the lock, so no other write lands between the one
		// we wait for and the migration.
		mev, err := migrateLocked(s, migrate)
		if err != nil {
			b.mu.Unlock()
			return err
		}
		ev = mev
	}
	switch {
	case ev != nil:
		// The migration's event, held by us alone.
	case t.wfresh && t.wev != nil:
		ev = t.wev
		ev.hold()
	case s != nil && s.IsCapturing():
		// Written before the capture began, with no event marking it: the
		// only waits left would synchronize the capturing stream, which
		// invalidates its capture.
		b.mu.Unlock()
		return fmt.Errorf("written on a stream of %s before its capture began: read it before "+
			"BeginCapture or after EndCapture: %w", s.Device(), device.ErrStreamCapture)
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

// migrateLocked runs migrate on s and, when it issued work, returns a
// fresh pooled event recorded on s after it (one holder: the caller), or
// nil when it issued nothing or s was closed meanwhile.
func migrateLocked(s *device.Stream, migrate func(s *device.Stream) (bool, error)) (*event, error) {
	issued, err := migrate(s)
	if err != nil || !issued {
		return nil, err
	}
	ev, err := stateOf(s.Device()).events.get()
	if err != nil {
		return nil, err
	}
	if err := s.Record(ev.ev); err != nil {
		ev.drop()
		if closed(err) {
			return nil, nil
		}
		return nil, err
	}
	counters.eventRecords.Add(1)
	return ev, nil
}
