package tracking

import (
	"errors"

	"github.com/gpuarr/gpuarr/device"
	"github.com/gpuarr/gpuarr/memory"
)

// Release ends the record when its buffer is freed, and returns the first
// error. The buffer's memory is blk of res, on res's device, and goes back
// in the order of blk's stream. Every other stream that used the buffer
// since its last write is declared: one of the same device to res
// (RecordUse, so the memory is reused only after that stream passes this
// point), one of another device (peer access) by making blk's stream wait
// for it. Earlier users need nothing: every write waited for the uses
// before it. The usual buffer, used on blk's stream only, costs nothing
// here.
//
// It takes no lock: the caller holds the last reference to the buffer, and
// the atomic drop of each earlier reference ordered their holders'
// tracking before this.
// Callers may skip it when Shared(blk.Stream()) is false: a record with
// nothing to declare is not read again until Start makes it new.
func (t *State) Release(res memory.Resource, blk *memory.Block) error {
	if !t.Shared(blk.Stream()) {
		return nil
	}
	err := t.declareUsers(res, blk, blk.Stream())
	t.reset()
	return err
}

// Shared reports whether streams other than bs used the buffer since its
// last write, or an event of the record is still held: whether Release
// has anything to do for a block of stream bs.
func (t *State) Shared(bs *device.Stream) bool {
	return t.writer != bs && t.writer != nil || len(t.readers) > 0 || t.wev != nil || t.kept() != nil
}

// declareUsers declares to res (or, for another device's stream, to the
// block's stream bs) every stream other than bs that used the buffer since
// its last write. It returns the first error.
func (t *State) declareUsers(res memory.Resource, blk *memory.Block, bs *device.Stream) error {
	var first error
	keep := func(err error) {
		if err != nil && first == nil && !errors.Is(err, device.ErrClosed) {
			first = err
		}
	}
	users := func(s *device.Stream, rec func() (*event, error)) {
		if s == nil || s == bs {
			return
		}
		if s.Device() == res.Device() {
			keep(res.RecordUse(blk, s))
			return
		}
		ev, err := rec()
		keep(err)
		if ev == nil {
			return
		}
		if err := bs.Wait(ev.use()); err != nil {
			keep(ev.use().Synchronize()) // no stream to order by: wait here
		} else {
			countWaits(1)
		}
	}
	users(t.writer, t.recordWriterLocked)
	for i := range t.readers {
		r := &t.readers[i]
		users(r.s, func() (*event, error) { return t.recordReaderLocked(r) })
	}
	return first
}

// Follow makes s wait for the work issued on prev so far (nothing when
// prev is nil or s itself), in one driver call where the backend offers a
// record-and-wait: a graph's launch stream and the replay's stream are
// joined so. A capturing s has the CPU wait instead, as any wait across a
// capture's boundary.
func Follow(s, prev *device.Stream) error {
	if prev == nil || prev == s {
		return nil
	}
	ev, err := poolOf(prev.Device()).get()
	if err != nil {
		return err
	}
	defer ev.drop()
	waited, err := record(prev, ev, s, nil)
	if err != nil {
		if !closed(err) {
			return err
		}
		return nil
	}
	if waited {
		return nil
	}
	return waitOn(s, ev)
}

// LaunchJoined launches g on stream on in the order of stream s (neither
// capturing): on first waits for the work issued on s so far, and s's later
// work waits for the graph, through two pooled events, in one driver round
// trip where the backend offers it (device.Graph.LaunchJoined). On an error
// the host waits for on, so that nothing issued on s later can overtake a
// graph that may have been launched.
func LaunchJoined(g *device.Graph, on, s *device.Stream) error {
	p := poolOf(s.Device())
	before, err := p.get()
	if err != nil {
		return err
	}
	defer before.drop()
	after, err := p.get()
	if err != nil {
		return err
	}
	defer after.drop()
	if err := g.LaunchJoined(on, s, before.use(), after.use()); err != nil {
		if e := on.Synchronize(); e != nil && !closed(e) {
			return errors.Join(err, e)
		}
		return err
	}
	countHandoffs(2)
	return nil
}
