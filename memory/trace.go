package memory

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/metrics"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
	"weak"

	"github.com/gpuarr/gpuarr/device"
)

// Trace levels: what a wrapped resource hands out.
const (
	TraceBlock   = "block"   // blocks handed to users
	TraceSegment = "segment" // segments a caching pool obtains upstream
)

// Trace operations. Allocator calls: alloc, free, oom, record_use,
// empty_cache, trim. Marks, recorded with TraceMark into every tracer
// alive: gc (a Go garbage collection cycle ended), eager_gc (package
// gcpressure's eager collection ended; Size is what it freed, Dur its
// length), reclaim (a step of the reclaim ladder ended; Note names it).
const (
	OpAlloc      = "alloc"
	OpFree       = "free"
	OpOOM        = "oom"
	OpRecordUse  = "record_use"
	OpEmptyCache = "empty_cache"
	OpTrim       = "trim"
	OpGC         = "gc"
	OpEagerGC    = "eager_gc"
	OpReclaim    = "reclaim"
)

// TraceEvent is one traced call or mark.
type TraceEvent struct {
	T      int64  `json:"t_ns"`            // nanoseconds since the tracer started
	Op     string `json:"op"`              // an Op* constant
	Level  string `json:"level,omitempty"` // TraceBlock or TraceSegment; empty for marks
	Device int    `json:"device"`          // ordinal; -1 for process-wide marks (gc, eager_gc)
	Ptr    uint64 `json:"ptr,omitempty"`
	Size   uint64 `json:"size,omitempty"`
	Stream uint64 `json:"stream,omitempty"` // stream handle
	Stack  uint32 `json:"stack,omitempty"`  // allocating call stack: a key of TraceFile.Stacks (alloc, oom)
	Dur    int64  `json:"dur_ns,omitempty"` // how long a mark's work took
	Note   string `json:"note,omitempty"`   // a mark's details
}

// TraceFile is what Tracer.WriteJSON writes and ReadTrace reads.
type TraceFile struct {
	Capacity int    `json:"capacity"`
	Dropped  uint64 `json:"dropped"`       // events pushed out of the ring before these
	Start    int64  `json:"start_unix_ns"` // when the tracer started, Unix nanoseconds
	// Devices names the devices of the wrapped resources by ordinal.
	Devices map[int]string `json:"devices,omitempty"`
	Events  []TraceEvent   `json:"events"`
	// Stacks are the call stacks the events name, innermost frame first,
	// gpuarr's own leading frames left out.
	Stacks map[uint32][]Frame `json:"stacks,omitempty"`
}

// ReadTrace reads a trace written by Tracer.WriteJSON.
func ReadTrace(r io.Reader) (*TraceFile, error) {
	var f TraceFile
	dec := json.NewDecoder(r)
	if err := dec.Decode(&f); err != nil {
		return nil, fmt.Errorf("memory.ReadTrace: %w", err)
	}
	if f.Events == nil {
		return nil, fmt.Errorf("memory.ReadTrace: no \"events\": not a gpuarr memory trace")
	}
	return &f, nil
}

// Tracer is an opt-in bounded history of allocator events: a ring that
// keeps the latest Capacity events, for a memory timeline (package
// memory/memviz draws one) or a post-mortem of an OOM. One tracer may wrap
// several resources (say a caching pool and its upstream, to see blocks
// and segments on one clock). Each allocation records the Go call stack
// that made it (interned: an event carries a stack id).
//
// Recording an allocator call takes no lock and allocates nothing: an
// event is a reserved slot of a ring of fixed-size records
// (tracering.go), its time a read of the tracer's clock (traceclock.go:
// nanoseconds since the start, a nanosecond's resolution), and an
// allocation's stack a walk of its frame pointers and a lookup of a stack
// seen before (a new stack takes a lock once); a mark's note is kept
// under a lock. Reads (Events, Snapshot, WriteJSON, Dropped) may run
// while events are recorded: they copy each event whole, the events kept
// are the latest ones, in the order they were recorded (program order
// within a goroutine), with nondecreasing times, and Dropped counts
// exactly those before them. A reader waits for events
// reserved but not yet written (a writer is a few instructions from done),
// and the first read of a process may wait for the clock's calibration
// (traceCalibration).
//
// While a tracer is alive it also records marks: Go GC cycles, and
// package gcpressure's eager collections and reclaim-ladder steps
// (TraceMark).
type Tracer struct {
	ring  *traceRing
	clock traceClock

	mu      sync.Mutex
	devices map[int]string
}

// NewTracer returns a tracer keeping the latest capacity events (at least
// one). Its ring takes 64 bytes per event, capacity rounded up to a power
// of two.
func NewTracer(capacity int) *Tracer {
	t := &Tracer{ring: newTraceRing(capacity), clock: newTraceClock(true), devices: map[int]string{}}
	registerTracer(t)
	return t
}

// Trace wraps r with a new tracer of capacity events at block level.
func Trace(r Resource, capacity int) (Resource, *Tracer) {
	t := NewTracer(capacity)
	return t.Wrap(r, TraceBlock), t
}

// Wrap returns r recording its calls into t under level.
func (t *Tracer) Wrap(r Resource, level string) Resource {
	dev := r.Device()
	t.mu.Lock()
	t.devices[dev.Ordinal()] = dev.String()
	t.mu.Unlock()
	return &traced{upstream: upstream{r}, t: t, level: packCodes(0, traceCode(level)), dev: packDevStack(dev.Ordinal(), 0)}
}

// add records an event now.
func (t *Tracer) add(op, level uint16, dev int, ptr, size, stream uint64, stack uint32, dur int64, note string) {
	t.ring.put(t.clock.now(), ptr, size, stream, dur, packDevStack(dev, stack), packCodes(op, level), note)
}

// hasDevice reports whether t wraps a resource of the device with ordinal.
func (t *Tracer) hasDevice(ordinal int) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	_, ok := t.devices[ordinal]
	return ok
}

// Events returns the events kept, oldest first.
func (t *Tracer) Events() []TraceEvent {
	ev, _ := t.ring.read(t.clock.scale())
	return ev
}

// Dropped is the number of events pushed out of the ring.
func (t *Tracer) Dropped() uint64 { return t.ring.dropped() }

// Snapshot returns the trace as WriteJSON writes it, stacks symbolized;
// its Dropped counts the events recorded before its Events.
func (t *Tracer) Snapshot() *TraceFile {
	ev, dropped := t.ring.read(t.clock.scale())
	f := &TraceFile{
		Capacity: int(t.ring.capacity),
		Dropped:  dropped,
		Start:    t.clock.start.UnixNano(),
		Events:   ev,
	}
	t.mu.Lock()
	f.Devices = make(map[int]string, len(t.devices))
	for k, v := range t.devices {
		f.Devices[k] = v
	}
	t.mu.Unlock()
	for _, e := range f.Events {
		if e.Stack == 0 {
			continue
		}
		if f.Stacks == nil {
			f.Stacks = map[uint32][]Frame{}
		}
		if _, ok := f.Stacks[e.Stack]; !ok {
			if r := stacks.byID(e.Stack); r != nil {
				f.Stacks[e.Stack] = frames(r.pcs)
			}
		}
	}
	return f
}

// WriteJSON writes the trace as a TraceFile: {"capacity", "dropped",
// "start_unix_ns", "devices", "events", "stacks"}.
func (t *Tracer) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	return enc.Encode(t.Snapshot())
}

// WriteFile writes the trace as WriteJSON does to the named file.
func (t *Tracer) WriteFile(path string) error {
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("memory.Tracer.WriteFile: %w", err)
	}
	if err := t.WriteJSON(f); err != nil {
		f.Close()
		return fmt.Errorf("memory.Tracer.WriteFile: %s: %w", path, err)
	}
	return f.Close()
}

type traced struct {
	upstream
	t     *Tracer
	level uint64 // packCodes(0, level's code)
	dev   uint64 // packDevStack(ordinal, 0)
}

func (r *traced) event(op uint16, p device.Ptr, size uint64, s *device.Stream, stack uint32) {
	var stream uint64
	if s != nil {
		stream = uint64(s.Handle())
	}
	t := r.t
	t.ring.put(t.clock.now(), uint64(p), size, stream, 0, r.dev|packDevStack(0, stack), r.level|uint64(op), "")
}

func (r *traced) Alloc(s *device.Stream, n uint64) (*Block, error) {
	b, err := r.Resource.Alloc(s, n)
	st := captureStack(0).id
	if err != nil {
		if isOOM(err) {
			r.event(codeOOM, 0, n, s, st)
		}
		return nil, err
	}
	r.event(codeAlloc, b.ptr, b.size, b.stream, st)
	return b, nil
}

func (r *traced) Free(b *Block) error {
	p, size, s := b.ptr, b.size, b.stream
	if err := r.Resource.Free(b); err != nil {
		return err
	}
	r.event(codeFree, p, size, s, 0)
	return nil
}

func (r *traced) RecordUse(b *Block, s *device.Stream) error {
	if err := r.Resource.RecordUse(b, s); err != nil {
		return err
	}
	r.event(codeRecordUse, b.ptr, b.size, s, 0)
	return nil
}

func (r *traced) EmptyCache() error {
	r.event(codeEmptyCache, 0, 0, nil, 0)
	return r.Resource.EmptyCache()
}

func (r *traced) Trim(keep uint64) error {
	r.event(codeTrim, 0, keep, nil, 0)
	return r.Resource.Trim(keep)
}

// The tracers alive, for marks.
var tracers struct {
	mu   sync.Mutex
	ts   []weak.Pointer[Tracer]
	live atomic.Int32
	gc   bool // a GC sentinel is armed (gcWatch)
}

func registerTracer(t *Tracer) {
	tracers.mu.Lock()
	defer tracers.mu.Unlock()
	tracers.ts = slices.DeleteFunc(tracers.ts, func(w weak.Pointer[Tracer]) bool { return w.Value() == nil })
	tracers.ts = append(tracers.ts, weak.Make(t))
	tracers.live.Add(1)
	runtime.AddCleanup(t, func(struct{}) { tracers.live.Add(-1) }, struct{}{})
	if !tracers.gc {
		tracers.gc = true
		armGCWatch()
	}
}

func liveTracers() []*Tracer {
	tracers.mu.Lock()
	defer tracers.mu.Unlock()
	var out []*Tracer
	for _, w := range tracers.ts {
		if t := w.Value(); t != nil {
			out = append(out, t)
		}
	}
	return out
}

// Tracing reports whether a tracer is alive to record marks; callers
// check it before building a mark's note.
func Tracing() bool { return tracers.live.Load() > 0 }

// TraceMark records a mark — something that is no allocator call but
// belongs on a memory timeline — into every tracer alive that wraps a
// resource of dev (every tracer when dev is nil: a process-wide mark,
// recorded with device -1). size and dur are the bytes and time it
// concerns, note says what it was. Without a tracer it costs one atomic
// load.
func TraceMark(dev *device.Device, op string, size uint64, dur time.Duration, note string) {
	if !Tracing() {
		return
	}
	ord := -1
	if dev != nil {
		ord = dev.Ordinal()
	}
	code := traceCode(op)
	for _, t := range liveTracers() {
		if ord >= 0 && !t.hasDevice(ord) {
			continue
		}
		t.add(code, codeNone, ord, 0, size, 0, 0, int64(dur), note)
	}
}

// gcSentinel is an object whose cleanup marks the end of a GC cycle.
type gcSentinel struct {
	_ *int
	_ [16]byte
}

// armGCWatch allocates a sentinel whose cleanup runs after the next GC
// cycle: it records an OpGC mark and arms the next sentinel, as long as a
// tracer is alive. Called with tracers.mu held or from the cleanup.
func armGCWatch() {
	s := &gcSentinel{}
	runtime.AddCleanup(s, func(struct{}) {
		if Tracing() {
			TraceMark(nil, OpGC, 0, 0, "cycle "+strconv.FormatUint(gcCycles(), 10))
		}
		tracers.mu.Lock()
		defer tracers.mu.Unlock()
		if tracers.live.Load() > 0 {
			armGCWatch()
		} else {
			tracers.gc = false
		}
	}, struct{}{})
}

// gcCycles is the number of GC cycles completed so far.
func gcCycles() uint64 {
	s := []metrics.Sample{{Name: "/gc/cycles/total:gc-cycles"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return s[0].Value.Uint64()
}
