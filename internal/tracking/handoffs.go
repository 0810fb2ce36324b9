package tracking

import (
	"errors"

	"github.com/gpuarr/gpuarr/device"
)

// Handoffs holds the cross-stream hand-offs an operation's ordering
// needs, so that they ride along with the operation's one kernel launch
// (device.Stream.LaunchArgsAfter) instead of each costing a driver call of
// its own. UseLockedInto puts a hand-off here in place of its record and
// wait when the waiting stream is of the recording stream's device and
// neither captures, and there is room (two); any other hand-off is issued
// at once, as UseLocked does. The records do not exist until the launch
// (or Flush) issues them, so the buffers' locks must be held until then:
// the owner calls LaunchArgs, Launch or Flush before unlocking. A
// hand-off borrows its event from the record that owns it, which keeps it
// while the lock is held; a record that gives the event up meanwhile (its
// ordering in the same operation drops it) hands its reference to the
// hand-off instead (adopt), so the event is not reused elsewhere before it
// is recorded here. The zero Handoffs holds none; it lives on its owner's
// stack.
type Handoffs struct {
	n    int
	from [2]*device.Stream
	ev   [2]*event
	own  [2]bool // the hand-off holds a reference to ev (adopt)
	to   *device.Stream
}

// Len is the number of hand-offs held.
func (j *Handoffs) Len() int { return j.n }

// add holds a hand-off of ev, recorded on from, for waiter; it reports
// false when the hand-off cannot ride along (the caller issues it).
func (j *Handoffs) add(from *device.Stream, ev *event, waiter *device.Stream) bool {
	if j == nil || j.n == len(j.ev) || waiter == nil || (j.to != nil && j.to != waiter) ||
		waiter.IsCapturing() || from.Device() != waiter.Device() {
		return false
	}
	j.from[j.n], j.ev[j.n], j.own[j.n], j.to = from, ev, false, waiter
	j.n++
	return true
}

// adopt takes over the caller's reference to ev when a held hand-off
// borrowed ev, and reports whether it did; the caller, which was about to
// give ev back, then lets it be. j may be nil.
func (j *Handoffs) adopt(ev *event) bool {
	if j == nil {
		return false
	}
	for i := range j.n {
		if j.ev[i] == ev && !j.own[i] {
			j.own[i] = true
			return true
		}
	}
	return false
}

// let gives hand-off i's event back if the hand-off holds a reference.
func (j *Handoffs) let(i int) {
	if j.own[i] {
		j.ev[i].drop()
	}
}

// device returns the held hand-offs as the launch takes them.
func (j *Handoffs) device() (h0, h1 device.Handoff) {
	if j.n > 0 {
		h0 = device.Handoff{From: j.from[0], Event: j.ev[0].use()}
	}
	if j.n > 1 {
		h1 = device.Handoff{From: j.from[1], Event: j.ev[1].use()}
	}
	return h0, h1
}

// LaunchArgs launches k on s (the stream every held hand-off waits for;
// for another stream they are issued first, on their own) after the held
// hand-offs, in one driver call where the backend offers it, and empties
// j. A hand-off from a closed stream is dropped (Close
// waited for the stream's work: nothing is left to wait for), also when
// the stream closes during the call. The launch's error is returned as
// is; when a hand-off was not issued (the driver failed before it), the
// host waits for its recording stream instead, so that the tracking that
// counted on it stays true, and that wait's error, if any, is joined to
// the launch's.
func (j *Handoffs) LaunchArgs(s *device.Stream, k *device.Kernel, cfg device.LaunchConfig, a *device.Args) error {
	if j.n > 0 && j.to != s {
		if err := j.Flush(); err != nil {
			return err
		}
	}
	for {
		j.dropClosed()
		if j.n == 0 {
			return s.LaunchArgs(k, cfg, a)
		}
		h0, h1 := j.device()
		done, err := s.LaunchArgsAfter(h0, h1, k, cfg, a)
		if !j.retry(done, err) {
			return j.finish(done, err)
		}
	}
}

// Launch is LaunchArgs with arguments as device.Stream.Launch takes them.
func (j *Handoffs) Launch(s *device.Stream, k *device.Kernel, cfg device.LaunchConfig, args ...any) error {
	if j.n > 0 && j.to != s {
		if err := j.Flush(); err != nil {
			return err
		}
	}
	for {
		j.dropClosed()
		if j.n == 0 {
			return s.Launch(k, cfg, args...)
		}
		h0, h1 := j.device()
		done, err := s.LaunchAfter(h0, h1, k, cfg, args...)
		if !j.retry(done, err) {
			return j.finish(done, err)
		}
	}
}

// Flush issues the held hand-offs on their own (a record and a wait each,
// one driver call where the backend offers it) and empties j: for an
// operation that does not end in a launch after all, or that issues other
// work on the stream first. Errors are handled as LaunchArgs handles
// them.
func (j *Handoffs) Flush() error {
	if j.n == 0 {
		return nil
	}
	j.dropClosed()
	done := 0
	var err error
	for ; done < j.n; done++ {
		if err = j.from[done].RecordWait(j.ev[done].use(), j.to); err != nil {
			if closed(err) && j.from[done].Closed() {
				err = nil
				continue
			}
			break
		}
	}
	return j.finish(done, err)
}

// retry reports whether a launch after j's hand-offs that issued the first
// done of them and failed with err failed because the next one's stream
// was closed meanwhile; the issued ones are then counted and let go, and
// the launch can go again without them.
func (j *Handoffs) retry(done int, err error) bool {
	if err == nil || done < 0 || done >= j.n || !closed(err) || !j.from[done].Closed() {
		return false
	}
	countHandoffs(uint64(done))
	for range done {
		j.remove(0)
	}
	return true
}

// dropClosed lets go of the hand-offs from closed streams.
func (j *Handoffs) dropClosed() {
	for i := 0; i < j.n; {
		if j.from[i].Closed() {
			j.remove(i)
			continue
		}
		i++
	}
}

// remove lets go of hand-off i.
func (j *Handoffs) remove(i int) {
	j.let(i)
	copy(j.from[i:j.n], j.from[i+1:j.n])
	copy(j.ev[i:j.n], j.ev[i+1:j.n])
	copy(j.own[i:j.n], j.own[i+1:j.n])
	j.n--
	j.from[j.n], j.ev[j.n], j.own[j.n] = nil, nil, false
	if j.n == 0 {
		j.to = nil
	}
}

// finish counts the first done hand-offs as issued, has the host wait for
// the recording streams of the rest, gives back the events it holds and
// empties j.
func (j *Handoffs) finish(done int, err error) error {
	done = min(max(done, 0), j.n)
	countHandoffs(uint64(done))
	for i := done; i < j.n; i++ {
		// The record and the wait may not exist: the work on from that
		// the tracking now takes as ordered before j.to must be done.
		if e := j.from[i].Synchronize(); e != nil && !closed(e) {
			err = errors.Join(err, e)
		}
		counters.hostSyncs.Add(1)
	}
	for i := range j.n {
		j.let(i)
		j.from[i], j.ev[i], j.own[i] = nil, nil, false
	}
	j.n, j.to = 0, nil
	return err
}
