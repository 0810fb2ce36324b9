package tracking

import (
	"errors"
	"fmt"
	"sync"

	"github.com/gpuarr/gpuarr/device"
)

// State is one buffer's record of the streams that touched it, and the
// lock that guards the record. Its zero value records nothing; Start
// records the allocation.
//
// Events are recorded lazily: a write on stream W only notes "W, not
// recorded"; the event is recorded on W the first time another stream (or
// the host) must wait for it, and then covers everything W issued until
// that moment, the write included. So work that stays on one stream makes
// no driver call at all, and a hand-off costs one record and one wait.
type State struct {
	mu sync.Mutex // held across an operation's enqueue (see UseLocked)

	writer *device.Stream // last writer; nil once it is known done
	wev    *event         // event of writer's device; nil when none yet
	wseq   uint64         // counts writes, so a host wait knows it is still current

	// readers are the streams other than writer that read since the last
	// write; the first slot past them may keep an event for the next
	// reader (dropReaders).
	readers []reader

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
	// know (see HostRead).
	wcap bool
	// cpu: the CPU was lent the memory (HostAccess) since the last GPU
	// use that took the bit (TakeCPUTouched), or the memory is fresh
	// managed memory that no GPU use placed yet (StartHostVisible): managed
	// pages may be away from the device.
	cpu bool
}

// reader is a stream that read the buffer since the last write; having
// read, it already waited for that write. ev, when fresh, marks its last read.
type reader struct {
	s     *device.Stream
	ev    *event
	fresh bool
}

// Mode is how an operation uses a buffer.
type Mode uint8

// The modes.
const (
	Read Mode = 1 << iota
	Write
	ReadWrite = Read | Write
)

// Lock locks the record. Operations hold it from their ordering (UseLocked)
// until their work is issued; several buffers are locked in address order.
func (t *State) Lock() { t.mu.Lock() }

// Unlock unlocks the record.
func (t *State) Unlock() { t.mu.Unlock() }

// Start records an allocation made in s's order: it counts as a write on
// s, so another stream that uses the memory first waits for s like it
// waits for any writer, and the host has nothing to wait for. The record
// must be new or Released.
func (t *State) Start(s *device.Stream) {
	t.writer, t.wfresh, t.dirty, t.wcap, t.cpu = s, false, false, false, false
}

// StartHostVisible is Start for memory the CPU addresses (managed memory):
// the host waits for s's work issued before the allocation before it
// touches the memory (dirty), since a pool that reuses memory in s's order
// may hand out memory that work still uses. unplaced says no page of the
// memory is placed yet (memory.Block.Fresh): the first GPU use then takes
// the bit TakeCPUTouched reports, as after a CPU access, and moves the
// pages to its device in bulk.
func (t *State) StartHostVisible(s *device.Stream, unplaced bool) {
	t.Start(s)
	t.dirty, t.cpu = true, unplaced
}

// TakeCPUTouched reports whether the CPU was lent the memory (HostAccess)
// since the last call that reported it, or the memory started unplaced and
// no call reported it yet, and clears the bit: the first GPU use after a
// CPU access (or of fresh managed memory) may move the memory to the
// device. It must
// be called with the record locked; it makes no driver call.
func (t *State) TakeCPUTouched() bool {
	if !t.cpu {
		return false
	}
	t.cpu = false
	return true
}

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
func (t *State) recordWriterLocked() (*event, error) {
	ev, _, err := t.recordWriterFor(nil, nil)
	return ev, err
}

// recordWriterFor is recordWriterLocked for a waiting stream s (nil: the
// host, or no one yet). When it records and s may wait on the device, s
// waits in the same driver call, and waited says so: the usual hand-off
// is one crossing from Go, not two; with j, the hand-off may instead ride
// along with the operation's launch (Handoffs), which also counts as
// waited.
func (t *State) recordWriterFor(s *device.Stream, j *Handoffs) (ev *event, waited bool, err error) {
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
		ev, err := poolOf(t.writer.Device()).get()
		if err != nil {
			return nil, false, err
		}
		t.wev = ev
	}
	waited, err = record(t.writer, t.wev, s, j)
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
func (t *State) recordReaderLocked(r *reader) (*event, error) {
	ev, _, err := t.recordReaderFor(r, nil, nil)
	return ev, err
}

// recordReaderFor is recordWriterFor for a reader's last read.
func (t *State) recordReaderFor(r *reader, s *device.Stream, j *Handoffs) (ev *event, waited bool, err error) {
	if r.s.IsCapturing() {
		return nil, false, captureError(r.s, "read")
	}
	if r.ev != nil && r.fresh {
		return r.ev, false, nil
	}
	if r.ev != nil && (r.ev.refs.Load() != 1 || r.ev.pool.dev != r.s.Device()) {
		// A kept event (dropReaders) that another holder still has, or
		// of another device: it cannot mark this read.
		r.ev.drop()
		r.ev = nil
	}
	if r.ev == nil {
		ev, err := poolOf(r.s.Device()).get()
		if err != nil {
			return nil, false, err
		}
		r.ev = ev
	}
	waited, err = record(r.s, r.ev, s, j)
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
// waitOn has the CPU wait instead), or leaves both to the launch that j
// holds hand-offs for when it takes this one. It reports whether waiter
// waited (or will, with the launch).
func record(on *device.Stream, ev *event, waiter *device.Stream, j *Handoffs) (waited bool, err error) {
	if j.add(on, ev, waiter) {
		return true, nil
	}
	if waiter == nil || waiter.IsCapturing() {
		if err := on.Record(ev.use()); err != nil {
			return false, err
		}
		countRecords(1)
		return false, nil
	}
	if err := on.RecordWait(ev.use(), waiter); err != nil {
		return false, err
	}
	countHandoffs(1)
	return true, nil
}

func (t *State) readerIndex(s *device.Stream) int {
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
// done before anything captured after this point can run. That CPU wait
// does not go through hostWait: a collection there could queue frees
// into the capture.
func waitOn(s *device.Stream, ev *event) error {
	if ev == nil {
		return nil
	}
	if s.IsCapturing() {
		if err := ev.use().Synchronize(); err != nil && !closed(err) {
			return err
		}
		counters.hostSyncs.Add(1)
		return nil
	}
	if err := s.Wait(ev.use()); err != nil {
		return err
	}
	countWaits(1)
	return nil
}

func (t *State) waitWriterLocked(s *device.Stream, j *Handoffs) error {
	ev, waited, err := t.recordWriterFor(s, j)
	if err != nil || waited {
		return err
	}
	return waitOn(s, ev)
}

func (t *State) waitReaderLocked(s *device.Stream, r *reader, j *Handoffs) error {
	ev, waited, err := t.recordReaderFor(r, s, j)
	if err != nil || waited {
		return err
	}
	return waitOn(s, ev)
}

// UseLocked orders work about to be issued on s after the work it
// conflicts with, and records that s uses the buffer. A read waits for the
// last write when another stream made it; a write also waits for the
// reads other streams made since. Use by one stream only makes no driver
// call. It must be called with the record locked, and the lock held until
// the work is issued, so that no other stream records a wait in between.
func (t *State) UseLocked(s *device.Stream, m Mode) error { return t.UseLockedInto(s, m, nil) }

// UseLockedInto is UseLocked for an operation that ends in one kernel
// launch on s: the hand-offs it needs may go into j, to be issued with that
// launch (Handoffs), which must then come before the record is unlocked.
func (t *State) UseLockedInto(s *device.Stream, m Mode, j *Handoffs) error {
	if m&Write == 0 {
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
		if err := t.waitWriterLocked(s, j); err != nil {
			return err
		}
		t.addReader(s)
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
			if err := t.waitWriterLocked(s, j); err != nil {
				return err
			}
		}
		for i := range t.readers {
			if r := &t.readers[i]; r.s != s {
				if err := t.waitReaderLocked(s, r, j); err != nil {
					return err
				}
			}
		}
		// Every earlier use is now ordered before s: forget them.
		t.dropReadersFor(j)
		if t.writer != s && t.wev != nil {
			// A new writer gets a new event: a host read may still be
			// waiting on this one for the old write.
			if !j.adopt(t.wev) {
				t.wev.drop()
			}
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

// addReader records s as a reader. A slot past the readers' end keeps
// the event of an earlier reader (dropReaders), which s's read re-records
// when another stream must wait for it (recordReaderFor).
func (t *State) addReader(s *device.Stream) {
	if n := len(t.readers); n < cap(t.readers) {
		t.readers = t.readers[:n+1]
		t.readers[n].s, t.readers[n].fresh = s, false
		return
	}
	t.readers = append(t.readers, reader{s: s})
}

// dropReaders forgets the readers. One of their events stays in the first
// slot for the next reader (addReader): a buffer handed back and forth
// between two streams then takes no event from the pool and gives none
// back. kept reports it; reset gives it back. Every other slot past the
// readers' end holds no event.
func (t *State) dropReaders() { t.dropReadersFor(nil) }

// dropReadersFor is dropReaders in an ordering that holds hand-offs in j:
// an event given up that a hand-off borrowed goes to the hand-off.
func (t *State) dropReadersFor(j *Handoffs) {
	var keep *event
	for i := range t.readers {
		if ev := t.readers[i].ev; ev != nil {
			if keep == nil && !noReuse {
				keep = ev
			} else if !j.adopt(ev) {
				ev.drop()
			}
		}
	}
	clear(t.readers)
	t.readers = t.readers[:0]
	if keep != nil {
		t.readers[:1][0].ev = keep
	}
}

// kept is the event dropReaders kept for the next reader, or nil.
func (t *State) kept() *event {
	if len(t.readers) > 0 || cap(t.readers) == 0 {
		return nil
	}
	return t.readers[:1][0].ev
}

// reset forgets everything.
func (t *State) reset() {
	t.dropReaders()
	if ev := t.kept(); ev != nil {
		ev.drop()
		t.readers[:1][0].ev = nil
	}
	if t.wev != nil {
		t.wev.drop()
	}
	t.writer, t.wev, t.wfresh, t.dirty, t.wcap, t.wread = nil, nil, false, false, false, false
}

// SettleCapture turns the record of a buffer a capture on s wrote back
// into an ordinary one (it locks the record): the captured writes did not
// run, so the last real writer is s's work before the capture (or work
// another stream finished: the capture waited for it on the host). A host
// read then waits for s, and a replay moves the writer to its stream.
func (t *State) SettleCapture(s *device.Stream) {
	t.mu.Lock()
	if t.wcap && t.writer == s {
		t.wcap, t.wfresh, t.dirty = false, false, true
	}
	t.mu.Unlock()
}
