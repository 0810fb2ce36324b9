package memory

import (
	"encoding/json"
	"io"
	"sync"
	"time"

	"github.com/gpuarr/gpuarr/device"
)

// Trace levels: what a wrapped resource hands out.
const (
	TraceBlock   = "block"   // blocks handed to users
	TraceSegment = "segment" // segments a caching pool obtains upstream
)

// TraceEvent is one traced call.
type TraceEvent struct {
	T      int64  `json:"t_ns"`   // nanoseconds since the tracer started
	Op     string `json:"op"`     // alloc, free, oom, record_use, empty_cache, trim
	Level  string `json:"level"`  // TraceBlock or TraceSegment
	Device int    `json:"device"` // ordinal
	Ptr    uint64 `json:"ptr,omitempty"`
	Size   uint64 `json:"size,omitempty"`
	Stream uint64 `json:"stream,omitempty"` // stream handle
}

// Tracer is an opt-in bounded history of allocator events: a ring that
// keeps the latest Capacity events, for a memory timeline or a post-mortem
// of an OOM. One tracer may wrap several resources (say a caching pool and
// its upstream, to see blocks and segments on one clock). Recording takes
// a lock; tracing is for diagnosis, not for benchmarks.
type Tracer struct {
	mu    sync.Mutex
	start time.Time
	ring  []TraceEvent
	total uint64
}

// NewTracer returns a tracer keeping the latest capacity events.
func NewTracer(capacity int) *Tracer {
	return &Tracer{start: time.Now(), ring: make([]TraceEvent, max(capacity, 1))}
}

// Trace wraps r with a new tracer of capacity events at block level.
func Trace(r Resource, capacity int) (Resource, *Tracer) {
	t := NewTracer(capacity)
	return t.Wrap(r, TraceBlock), t
}

// Wrap returns r recording its calls into t under level.
func (t *Tracer) Wrap(r Resource, level string) Resource {
	return &traced{upstream: upstream{r}, t: t, level: level}
}

func (t *Tracer) add(e TraceEvent) {
	t.mu.Lock()
	e.T = int64(time.Since(t.start))
	t.ring[t.total%uint64(len(t.ring))] = e
	t.total++
	t.mu.Unlock()
}

// Events returns the events kept, oldest first.
func (t *Tracer) Events() []TraceEvent {
	t.mu.Lock()
	defer t.mu.Unlock()
	n := uint64(len(t.ring))
	if t.total <= n {
		return append([]TraceEvent(nil), t.ring[:t.total]...)
	}
	i := t.total % n
	return append(append([]TraceEvent(nil), t.ring[i:]...), t.ring[:i]...)
}

// Dropped is the number of events pushed out of the ring.
func (t *Tracer) Dropped() uint64 {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.total - min(t.total, uint64(len(t.ring)))
}

// WriteJSON writes {"capacity", "dropped", "events"}.
func (t *Tracer) WriteJSON(w io.Writer) error {
	ev := t.Events()
	enc := json.NewEncoder(w)
	enc.SetIndent("", " ")
	return enc.Encode(struct {
		Capacity int          `json:"capacity"`
		Dropped  uint64       `json:"dropped"`
		Events   []TraceEvent `json:"events"`
	}{len(t.ring), t.Dropped(), ev})
}

type traced struct {
	upstream
	t     *Tracer
	level string
}

func (r *traced) event(op string, p device.Ptr, size uint64, s *device.Stream) {
	e := TraceEvent{Op: op, Level: r.level, Device: r.Device().Ordinal(), Ptr: uint64(p), Size: size}
	if s != nil {
		e.Stream = uint64(s.Handle())
	}
	r.t.add(e)
}

func (r *traced) Alloc(s *device.Stream, n uint64) (*Block, error) {
	b, err := r.Resource.Alloc(s, n)
	if err != nil {
		if isOOM(err) {
			r.event("oom", 0, n, s)
		}
		return nil, err
	}
	r.event("alloc", b.ptr, b.size, b.stream)
	return b, nil
}

func (r *traced) Free(b *Block) error {
	p, size, s := b.ptr, b.size, b.stream
	if err := r.Resource.Free(b); err != nil {
		return err
	}
	r.event("free", p, size, s)
	return nil
}

func (r *traced) RecordUse(b *Block, s *device.Stream) error {
	if err := r.Resource.RecordUse(b, s); err != nil {
		return err
	}
	r.event("record_use", b.ptr, b.size, s)
	return nil
}

func (r *traced) EmptyCache() error {
	r.event("empty_cache", 0, 0, nil)
	return r.Resource.EmptyCache()
}

func (r *traced) Trim(keep uint64) error {
	r.event("trim", 0, keep, nil)
	return r.Resource.Trim(keep)
}
