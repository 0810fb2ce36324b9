package memory

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// traceRing is the tracer's bounded history: a ring of fixed-size records
// that writers fill without a lock and readers copy while writers go on.
//
// A writer reads the clock, then reserves the next sequence number i with
// one atomic add; its record goes to slot i mod len(slots) (a power of two
// at least the tracer's capacity). It waits until the slot's previous
// occupant, i − len(slots), has been committed (a writer a whole lap
// behind: in practice never), writes the record's words and commits by
// storing i+1 in the slot's sequence word. A record is words only (strings
// become codes, tracenames.go; a mark's note waits in notes), so writing
// one costs no write barrier.
//
// A reader takes the count of reserved events, hi, and copies the last
// capacity of them in order. For event i it waits until the slot's
// sequence reaches i+1 (the writer is between its reservation and its
// commit, a few instructions); a larger sequence means the slot was
// rewritten. After copying the words it reads the count again: at most
// i + len(slots) means that no writer had reserved the slot's next
// occupant, so no word it copied belongs to a later event; otherwise the
// copy is discarded as rewritten. Events are dropped from the front of
// the history: when an event was rewritten under the reader, so were all
// before it (their later occupants were reserved first), and the reader
// keeps only what follows it. Its dropped count is therefore exact: hi
// minus the events kept.
//
// Order: the events' order is that of their reservations, which is
// program order within a goroutine, and the order of cause and effect
// between goroutines (an event recorded before another goroutine learns
// of it is reserved first). A reader makes the times nondecreasing in that
// order by raising each to its predecessor's where it is smaller: the
// clock is read just before the reservation, unordered with it (readTSC),
// so a writer delayed in between, or a counter read early, yields a time
// a little before its predecessor's. A raised time still lies between the
// clock's reading and the reservation.
type traceRing struct {
	next     atomic.Uint64 // events reserved
	_        [56]byte      // next alone on its cache line
	slots    []traceSlot
	mask     uint64
	capacity uint64 // events a read keeps at most

	mu        sync.Mutex
	notes     map[uint64]string // marks' notes by sequence number
	noteOrder []uint64          // notes' keys, oldest first
}

// traceSlot is one record: seq is 0 while empty, else the sequence number
// of the event committed in it plus one (read and written atomically;
// commitSlot). Words: the time in clock ticks, ptr, size, stream, dur,
// device (low half) and stack (high half), op (bits 0–15), level (16–31)
// and whether a note waits (bit 32).
type traceSlot struct {
	seq uint64
	w   [7]uint64
}

const hasNote = 1 << 32

func newTraceRing(capacity int) *traceRing {
	c := uint64(max(capacity, 1))
	n := uint64(1)
	for n < c {
		n <<= 1
	}
	return &traceRing{slots: make([]traceSlot, n), mask: n - 1, capacity: c}
}

// put records an event read at ticks: it reserves a slot, writes the
// record's words and commits. devStack and codes are the record's last
// words without the note bit (packDevStack, packCodes).
func (r *traceRing) put(ticks int64, ptr, size, stream uint64, dur int64, devStack, codes uint64, note string) {
	i := r.next.Add(1) - 1
	s := &r.slots[i&r.mask]
	if i > r.mask {
		// The slot's previous occupant, i − len(slots), must be committed.
		for spins := 0; atomic.LoadUint64(&s.seq) < i-r.mask; spins++ {
			if spins > 64 {
				runtime.Gosched()
			}
		}
	}
	if note != "" {
		r.setNote(i, note)
		codes |= hasNote
	}
	storeWord(&s.w[0], uint64(ticks))
	storeWord(&s.w[1], ptr)
	storeWord(&s.w[2], size)
	storeWord(&s.w[3], stream)
	storeWord(&s.w[4], uint64(dur))
	storeWord(&s.w[5], devStack)
	storeWord(&s.w[6], codes)
	commitSlot(&s.seq, i+1)
}

// packDevStack is a record's word of a device ordinal and a stack id.
func packDevStack(dev int, stack uint32) uint64 {
	return uint64(uint32(int32(dev))) | uint64(stack)<<32
}

// packCodes is a record's word of an op's and a level's codes.
func packCodes(op, level uint16) uint64 { return uint64(op) | uint64(level)<<16 }

// setNote keeps the note of event i, and forgets those of events a lap or
// more before it.
func (r *traceRing) setNote(i uint64, note string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.notes == nil {
		r.notes = map[uint64]string{}
	}
	n := 0
	for ; n < len(r.noteOrder) && r.noteOrder[n]+uint64(len(r.slots)) <= i; n++ {
		delete(r.notes, r.noteOrder[n])
	}
	r.noteOrder = append(r.noteOrder[:0], r.noteOrder[n:]...)
	r.notes[i] = note
	r.noteOrder = append(r.noteOrder, i)
}

func (r *traceRing) note(i uint64) string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.notes[i]
}

// dropped is the number of events pushed out of the ring so far.
func (r *traceRing) dropped() uint64 {
	n := r.next.Load()
	return n - min(n, r.capacity)
}

// read copies the events kept, oldest first, their times converted by
// scale and made nondecreasing, and returns the number of events before
// them.
func (r *traceRing) read(scale tickScale) (events []TraceEvent, dropped uint64) {
	hi := r.next.Load()
	lo := hi - min(hi, r.capacity)
	names := traceNameTable()
	events = make([]TraceEvent, hi-lo)
	n, first := 0, lo
	for i := lo; i < hi; i++ {
		e := &events[n]
		if !r.copyEvent(i, e, scale, &names) {
			n, first = 0, i+1
			continue
		}
		if n > 0 {
			e.T = max(e.T, events[n-1].T)
		}
		n++
	}
	clear(events[n:])
	return events[:n:n], first
}

// copyEvent copies event i to e; false when it was rewritten. names is
// the code table, read again when a code is past its end.
func (r *traceRing) copyEvent(i uint64, e *TraceEvent, scale tickScale, names *[]string) bool {
	s := &r.slots[i&r.mask]
	for spins := 0; ; spins++ {
		q := atomic.LoadUint64(&s.seq)
		if q > i+1 {
			return false
		}
		if q == i+1 {
			break
		}
		if spins > 64 {
			runtime.Gosched()
		}
	}
	var w [7]uint64
	for k := range w {
		w[k] = atomic.LoadUint64(&s.w[k])
	}
	var note string
	if w[6]&hasNote != 0 {
		note = r.note(i)
	}
	if r.next.Load() > i+uint64(len(r.slots)) {
		return false
	}
	op, level := w[6]&0xffff, w[6]>>16&0xffff
	if max(op, level) >= uint64(len(*names)) {
		*names = traceNameTable() // a code newer than the table read
	}
	*e = TraceEvent{
		T:      scale.ns(int64(w[0])),
		Op:     (*names)[op],
		Level:  (*names)[level],
		Device: int(int32(uint32(w[5]))),
		Ptr:    w[1],
		Size:   w[2],
		Stream: w[3],
		Stack:  uint32(w[5] >> 32),
		Dur:    int64(w[4]),
		Note:   note,
	}
	return true
}
