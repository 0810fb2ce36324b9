package tracking

import (
	"fmt"

	"github.com/gpuarr/gpuarr/device"
	"github.com/gpuarr/gpuarr/gcpressure"
	"github.com/gpuarr/gpuarr/internal/indexcheck"
)

// hostWait is the one place the host blocks on GPU work for an array: a
// host read or write waiting for the work it must see, on dev (the memory's
// device). Package gcpressure's eager collection hooks in here, since the
// CPU is about to idle anyway. It counts the wait. After the wait, the
// bad indices that finished kernels of dev found are reported
// (internal/indexcheck): its error is theirs.
func hostWait(dev *device.Device, wait func() error) error {
	if err := waitQuietly(dev, wait); err != nil {
		return err
	}
	return indexcheck.Poll(dev)
}

// waitQuietly is hostWait without the index report (Peek, which has no
// error to give it to).
func waitQuietly(dev *device.Device, wait func() error) error {
	gcpressure.BeforeBlockingWait(dev)
	err := wait()
	counters.hostSyncs.Add(1)
	return err
}

// HostRead makes the host see the buffer's last GPU write (the buffer's
// memory is on dev): when the dirty bit says one may be pending, it waits
// for the writer's event (or the writer's stream, when no event was
// recorded: the same point) and clears the bit unless another write came
// meanwhile. A clean buffer costs one lock and no driver call.
func (t *State) HostRead(dev *device.Device) error { return t.hostReadMigrating(dev, nil) }

// hostReadMigrating is HostRead that, when a GPU write may be pending and
// migrate is set, first lets migrate issue work on the writer's stream,
// then waits for an event recorded after that work (which covers the write
// too, being later on the same stream).
func (t *State) hostReadMigrating(dev *device.Device, migrate func(s *device.Stream) (bool, error)) error {
	t.mu.Lock()
	if !t.dirty {
		t.mu.Unlock()
		return nil
	}
	if t.wcap {
		return t.hostReadCapturedLocked(dev)
	}
	seq := t.wseq
	var ev *event
	s := t.writer
	if migrate != nil && s != nil && !s.IsCapturing() {
		// Issued under the lock, so no other write lands between the one
		// we wait for and the migration.
		mev, err := migrateLocked(s, migrate)
		if err != nil {
			t.mu.Unlock()
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
		t.mu.Unlock()
		return fmt.Errorf("written on a stream of %s before its capture began: read it before "+
			"BeginCapture or after EndCapture: %w", s.Device(), device.ErrStreamCapture)
	}
	t.mu.Unlock()

	err := hostWait(dev, func() error {
		if ev != nil {
			err := ev.use().Synchronize()
			ev.drop()
			return err
		}
		if s != nil {
			return s.Synchronize()
		}
		return nil
	})
	if err != nil && !closed(err) {
		return err
	}
	t.mu.Lock()
	if t.wseq == seq {
		t.dirty = false
	}
	t.mu.Unlock()
	return nil
}

// hostReadCapturedLocked is HostRead for a buffer whose last write was
// captured (it unlocks the record). While the capture goes on, the data
// does not exist yet and waiting for the stream would invalidate the
// capture: an error. Once the capture ended, a graph launch produces the
// data, on a stream tracking does not know: every host read synchronizes
// the whole device, and the buffer stays dirty, since a later launch of the
// same graph writes it again. A write outside a capture ends this.
func (t *State) hostReadCapturedLocked(dev *device.Device) error {
	s := t.writer
	t.mu.Unlock()
	on := dev
	if s != nil {
		if s.IsCapturing() {
			return fmt.Errorf("written on a stream of %s that is still capturing: "+
				"end the capture and launch the graph before reading it on the host: %w", s.Device(), device.ErrStreamCapture)
		}
		on = s.Device()
	}
	return hostWait(dev, on.Synchronize)
}

// migrateLocked runs migrate on s and, when it issued work, returns a
// fresh pooled event recorded on s after it (one holder: the caller), or
// nil when it issued nothing or s was closed meanwhile.
func migrateLocked(s *device.Stream, migrate func(s *device.Stream) (bool, error)) (*event, error) {
	issued, err := migrate(s)
	if err != nil || !issued {
		return nil, err
	}
	ev, err := poolOf(s.Device()).get()
	if err != nil {
		return nil, err
	}
	if err := s.Record(ev.use()); err != nil {
		ev.drop()
		if closed(err) {
			return nil, nil
		}
		return nil, err
	}
	countRecords(1)
	return ev, nil
}

// HostAccess is HostRead for reading and writing (the buffer's memory is
// on dev): it also waits for the streams that read the buffer since its
// last write, the writer's own stream included, then forgets them. With
// wholeDevice it synchronizes dev instead. migrate is as in
// hostReadMigrating. It sets the bit TakeCPUTouched reports.
func (t *State) HostAccess(dev *device.Device, wholeDevice bool, migrate func(*device.Stream) (bool, error)) error {
	if wholeDevice {
		return t.hostDevice(dev)
	}
	t.mu.Lock()
	t.cpu = true
	if t.wread {
		// The writer's stream read the buffer after its write: the CPU,
		// which may write, waits for an event recorded after those reads.
		t.wfresh = false
		ev, err := t.recordWriterLocked()
		if err == nil && ev != nil {
			err = hostWait(dev, ev.use().Synchronize)
		}
		if err != nil && !closed(err) {
			t.mu.Unlock()
			return err
		}
		t.wread = false
	}
	if len(t.readers) == 0 {
		t.mu.Unlock()
		return t.hostReadMigrating(dev, migrate)
	}
	for i := range t.readers {
		r := &t.readers[i]
		if r.s.IsCapturing() {
			t.mu.Unlock()
			return captureError(r.s, "read")
		}
		ev, err := t.recordReaderLocked(r)
		if err == nil && ev != nil {
			err = hostWait(dev, ev.use().Synchronize)
		}
		if err != nil && !closed(err) {
			t.mu.Unlock()
			return err
		}
	}
	t.dropReaders()
	t.mu.Unlock()
	return t.hostReadMigrating(dev, migrate)
}

// hostDevice waits for every stream of dev and marks the buffer clean and
// unread.
func (t *State) hostDevice(dev *device.Device) error {
	t.mu.Lock()
	t.cpu = true
	seq := t.wseq
	t.mu.Unlock()
	if err := hostWait(dev, dev.Synchronize); err != nil && !closed(err) {
		return err
	}
	t.mu.Lock()
	if t.wseq == seq {
		t.dirty, t.wread = false, false
		t.dropReaders()
	}
	t.mu.Unlock()
	return nil
}

// Peek is HostRead for a look at the values (an array's String): it waits
// for the last writer's event when a GPU write may be pending, but gives
// up rather than block on the record's lock (its caller may hold it) or on
// a stream capture. It returns why it gave up, or "".
func (t *State) Peek(dev *device.Device) string {
	if !t.mu.TryLock() {
		return "values not shown: an operation holds the array"
	}
	if !t.dirty {
		t.mu.Unlock()
		return ""
	}
	if t.wcap || t.writer != nil && t.writer.IsCapturing() {
		t.mu.Unlock()
		return "values not shown: written in a stream capture"
	}
	seq := t.wseq
	ev, err := t.recordWriterLocked()
	if ev != nil {
		ev.hold()
	}
	t.mu.Unlock()
	if err == nil && ev != nil {
		err = waitQuietly(dev, ev.use().Synchronize)
	}
	if ev != nil {
		ev.drop()
	}
	if err != nil && !closed(err) {
		return "values not read: " + err.Error()
	}
	// Clean now, unless written since (as HostRead), so the next host read
	// waits for nothing; if the lock is busy, a later read waits for a
	// finished event instead.
	if t.mu.TryLock() {
		if t.wseq == seq {
			t.dirty = false
		}
		t.mu.Unlock()
	}
	return ""
}

// WaitStream blocks until the work issued on s so far is done, through a
// pooled event (not the whole stream's later work).
func WaitStream(s *device.Stream) error {
	ev, err := poolOf(s.Device()).get()
	if err != nil {
		return err
	}
	defer ev.drop()
	if err := s.Record(ev.use()); err != nil {
		if closed(err) {
			return nil
		}
		return err
	}
	countRecords(1)
	if err := hostWait(s.Device(), ev.use().Synchronize); err != nil && !closed(err) {
		return err
	}
	return nil
}
