package gpuarr

import (
	"cmp"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"sync"

	"github.com/gpuarr/gpuarr/device"
	"github.com/gpuarr/gpuarr/internal/lifetime"
	"github.com/gpuarr/gpuarr/internal/tracking"
	"github.com/gpuarr/gpuarr/memory"
)

// Array-level capture: Capture records a function's array operations on a
// stream into a graph whose memory comes from a pool private to it (or to
// the graphs sharing a GraphPool), and Replay runs it with tracking intact.
//
// What a capture learns, as the lifetime.Recorder of its stream: every
// buffer an operation on the capturing stream touches, with the union of
// its modes, and every buffer allocated on the stream while it captures
// (from the private pool, which the allocation door takes for it). The
// graph keeps a reference on all of them, so neither Release nor the GC
// can hand memory the graph reads or writes to other work while the graph
// lives.

// ErrGraphClosed: a Graph used after Close.
var ErrGraphClosed = errors.New("graph used after Close")

// GraphPool is device memory private to captured graphs: every allocation
// made while capturing comes from it, and none of it is handed to work
// outside its graphs while one of them lives. Several graphs may share one
// pool (WithPool) when the caller guarantees they never run concurrently
// (PyTorch's pool= argument); replays of a pool's graphs on different
// streams are ordered after one another anyway, so sharing is never a data
// race, only a serialization. When the last graph of a pool is closed, its
// memory goes back to the driver.
type GraphPool struct {
	dev *device.Device
	res *memory.CachingPool

	mu        sync.Mutex
	graphs    int            // live graphs
	capturing bool           // a capture is allocating from the pool
	stream    *device.Stream // the stream the pool's graphs are captured on
	last      *device.Stream // stream of the latest replay; nil before any
	// launch is the stream the pool's graphs are launched on, which no
	// other work uses (see replay); made at the first replay, closed when
	// the pool drains.
	launch *device.Stream
}

// NewGraphPool makes an empty private pool for graphs of dev.
func NewGraphPool(dev *device.Device) (*GraphPool, error) {
	if dev == nil {
		return nil, fmt.Errorf("gpuarr.NewGraphPool: nil device: %w", ErrArgument)
	}
	// Segments come from an expandable reservation (granules mapped as the
	// pool grows, so its segments extend one range of addresses) or, on a
	// device without virtual memory management, straight from cuMemAlloc.
	// Neither is a stream operation, so both are legal while a relaxed-mode
	// capture goes on; the segments stay until the pool has no graph left.
	// No reclaimer: the general pool's reclaim ladder collects garbage and
	// synchronizes, neither of which a capture allows.
	up, err := memory.Expandable(dev, memory.ExpandableOptions{})
	if err != nil {
		up = memory.Direct(dev)
	}
	res := memory.Caching(up, memory.CachingOptions{
		Reclaimer: memory.ReclaimFunc(func(*device.Device, uint64, int) bool { return false }),
	})
	return &GraphPool{dev: dev, res: res}, nil
}

// Device is the device the pool's memory is on.
func (p *GraphPool) Device() *device.Device { return p.dev }

// Upstream reports what the pool's segments come from: KindExpandable, or
// KindDirect on a device without virtual memory management.
func (p *GraphPool) Upstream() memory.Stats { return p.res.Upstream().Stats() }

// Stats reports the pool's statistics (ReservedBytes is what its graphs
// keep reserved).
func (p *GraphPool) Stats() memory.Stats { return p.res.Stats() }

// free returns a block of a buffer allocated during a capture. Once no
// graph and no capture uses the pool, its cached memory goes back to the
// driver, so an output the user kept past the last graph's Close is
// returned when it is released.
func (p *GraphPool) free(b *memory.Block) error {
	err := p.res.Free(b)
	p.mu.Lock()
	idle := p.graphs == 0 && !p.capturing
	p.mu.Unlock()
	if idle {
		err = errors.Join(err, p.res.EmptyCache())
	}
	return err
}

// drain waits for the pool's last replay, closes its launch stream and
// returns its unused memory.
func (p *GraphPool) drainLocked() error {
	var err error
	if p.last != nil {
		if e := p.last.Synchronize(); e != nil && !closed(e) {
			err = e
		}
		p.last = nil
	}
	if p.launch != nil {
		if e := p.launch.Close(); e != nil && !closed(e) {
			err = errors.Join(err, e)
		}
		p.launch = nil
	}
	return errors.Join(err, p.res.EmptyCache())
}

// launchStreamLocked returns the pool's launch stream, making it first.
func (p *GraphPool) launchStreamLocked() (*device.Stream, error) {
	if p.launch == nil {
		ls, err := p.dev.NewStream()
		if err != nil {
			return nil, err
		}
		p.launch = ls
	}
	return p.launch, nil
}

// poolResource is the memory.Resource that buffers allocated during a
// capture free into: the pool's caching pool, with Free going through the
// pool so that its memory is returned once nothing uses it.
type poolResource struct {
	memory.Resource
	p *GraphPool
}

func (r poolResource) Free(b *memory.Block) error { return r.p.free(b) }

// CaptureOption configures Capture.
type CaptureOption interface{ isCaptureOption() }

type withPool struct{ p *GraphPool }

func (withPool) isCaptureOption() {}

// WithPool makes the capture allocate from p, shared with the other graphs
// captured into it. The caller promises that the pool's graphs are never
// replayed concurrently; gpuarr orders replays on different streams after
// one another.
func WithPool(p *GraphPool) CaptureOption { return withPool{p} }

// A capture is its stream's lifetime.Recorder, and a Batcher (which
// Batched captures use).
var _ lifetime.Batcher = (*capture)(nil)

// capture is one Capture call in progress.
type capture struct {
	s    *device.Stream
	pool *GraphPool

	mu    sync.Mutex
	used  map[*lifetime.Buffer]tracking.Mode // buffers operations touched, union of modes
	held  map[*lifetime.Buffer]struct{}      // of those, buffers from outside the pool: referenced at first use
	alloc []*lifetime.Buffer                 // buffers allocated from the pool during the capture

	// A Batched capture (batched.go): the largest batch, every operation
	// in order with how it resizes, and a failure to name a node.
	max int
	ops []batchOp
	err error
}

// Resource is the capture's private pool, where allocations on its stream
// come from (lifetime.Recorder).
func (c *capture) Resource() memory.Resource { return poolResource{Resource: c.pool.res, p: c.pool} }

// Used records that an operation on the capturing stream touches b in
// mode m, with b locked. A buffer from outside the pool gets a reference
// at once, so that releasing it during the capture cannot hand memory the
// graph uses to other work; a pool buffer is referenced at the end of the
// capture if still alive (one freed during the capture is reused by later
// operations of the capture).
func (c *capture) Used(b *lifetime.Buffer, m tracking.Mode) {
	c.mu.Lock()
	defer c.mu.Unlock()
	old, seen := c.used[b]
	c.used[b] = old | m
	if !seen && !fromPool(b, c.pool) {
		if b.Pin() {
			c.held[b] = struct{}{}
		}
	}
}

// fromPool reports whether b's memory came from p.
func fromPool(b *lifetime.Buffer, p *GraphPool) bool {
	r, ok := b.Resource().(poolResource)
	return ok && r.p == p
}

// Allocated records a buffer allocated from the capture's pool.
func (c *capture) Allocated(b *lifetime.Buffer) {
	c.mu.Lock()
	c.alloc = append(c.alloc, b)
	c.mu.Unlock()
}

// Graph is a captured function, ready to replay. Replay runs it on any
// stream of its device as one operation: it waits on the device for the
// writers of the arrays the graph reads and the readers of those it
// writes, and marks the arrays it writes as written on its stream, so host
// reads and other streams order themselves against replays as against any
// operation. Its memory (private pool and every array it touches) stays
// reserved until Close, or until the GC finds the Graph unreachable (as
// with arrays, Close says when). A Graph is safe for concurrent use; its
// replays run one after another.
type Graph struct{ *graph }

// graph is a Graph's state, apart from the handle so that a cleanup can
// close it once the handle is unreachable.
type graph struct {
	dev  *device.Device
	g    *device.Graph
	pool *GraphPool

	mu     sync.Mutex
	closed bool
	bufs   []*lifetime.Buffer // address order, each referenced
	modes  []tracking.Mode

	// One graph for many batch sizes (batched.go): the largest batch (0
	// when not captured with Batched), how each resizable node follows
	// the batch size, and the size the nodes are set for now.
	max int
	rs  []lifetime.Resize
	cur int
}

// Capture records the array operations fn issues on s (a stream made with
// device.NewStream, not capturing yet) into a graph; none of them runs.
// Allocations on s during fn come from a private pool (opts: WithPool to
// share one, PyTorch's pool= argument), frees during fn make memory
// reusable later in the capture (replays run in capture order). After
// Capture, arrays fn wrote hold their value from before the capture until
// the graph is replayed. The graph keeps a reference on every array it
// touches, so dropping every handle, Release and the GC leave its memory
// alone until Graph.Close.
//
// Inside fn, what cannot replay correctly fails with
// device.ErrStreamCapture naming the operation, and Capture returns that
// error: work on another stream that waits on the capture, a host read of
// an array written in the capture, an upload from a Go slice (CopyFromHost,
// FromSlice: upload before the capture), a cuBLAS call (Matmul). Compile
// expressions before capturing (run fn once), as with PyTorch's warm-up.
//
// Operations on a stream between device.Stream.BeginCapture and
// EndCapture, without Capture, are recorded too, without private memory
// or replay tracking: an array written there is captured, and its host
// reads fail with device.ErrStreamCapture while the capture goes on and
// synchronize the whole device after it (its data exists once the graph
// is launched, on a stream tracking cannot know), until a write outside
// any capture. Another stream that must wait for a use made in the capture
// fails with device.ErrStreamCapture (CUDA would join it into the
// capture); the capturing stream waits on the CPU for work outside the
// capture it must follow. Allocate and release arrays outside a raw
// capture: allocations on a capturing stream come from the general pool.
func Capture(s *device.Stream, fn func() error, opts ...CaptureOption) (g *Graph, err error) {
	const call = "gpuarr.Capture"
	switch {
	case s == nil:
		return nil, fmt.Errorf("%s: nil stream: %w", call, ErrArgument)
	case fn == nil:
		return nil, fmt.Errorf("%s: nil function: %w", call, ErrArgument)
	case s.IsDefault():
		return nil, fmt.Errorf("%s: the default stream of %s cannot capture (it serves everything that names no stream); "+
			"use a stream from NewStream: %w", call, s.Device(), ErrArgument)
	case s.IsCapturing():
		return nil, fmt.Errorf("%s: the stream of %s is already capturing: %w", call, s.Device(), device.ErrStreamCapture)
	}
	var pool *GraphPool
	maxBatch := 0
	for _, o := range opts {
		switch o := o.(type) {
		case withPool:
			if o.p == nil {
				return nil, fmt.Errorf("%s: WithPool(nil): %w", call, ErrArgument)
			}
			pool = o.p
		case batchedOpt:
			if o.max < 1 {
				return nil, fmt.Errorf("%s: Batched(%d): the largest batch size must be at least 1: %w", call, o.max, ErrArgument)
			}
			maxBatch = o.max
		}
	}
	if pool == nil {
		if pool, err = NewGraphPool(s.Device()); err != nil {
			return nil, err
		}
	} else if pool.dev != s.Device() {
		return nil, fmt.Errorf("%s: pool of %s used to capture on a stream of %s: %w", call, pool.dev, s.Device(), ErrArgument)
	}
	pool.mu.Lock()
	if pool.capturing {
		pool.mu.Unlock()
		return nil, fmt.Errorf("%s: the pool is already used by another capture; capture one graph of a pool at a time: %w", call, ErrArgument)
	}
	if pool.stream != nil && pool.stream != s && pool.graphs > 0 {
		pool.mu.Unlock()
		return nil, fmt.Errorf("%s: the pool's graphs were captured on another stream; capture every graph of a pool on one stream "+
			"(the pool's memory is in that stream's order; replays may use any stream): %w", call, ErrArgument)
	}
	pool.capturing, pool.stream = true, s
	pool.mu.Unlock()

	c := &capture{s: s, pool: pool, used: map[*lifetime.Buffer]tracking.Mode{}, held: map[*lifetime.Buffer]struct{}{}, max: maxBatch}
	if !lifetime.StartRecording(s, c) {
		pool.endCapture()
		return nil, fmt.Errorf("%s: the stream of %s is already capturing: %w", call, s.Device(), device.ErrStreamCapture)
	}
	if err := s.BeginCapture(); err != nil {
		lifetime.StopRecording(s)
		pool.endCapture()
		return nil, fmt.Errorf("%s: %w", call, err)
	}

	fnErr := runCaptured(fn)
	dg, endErr := s.EndCapture()
	lifetime.StopRecording(s)
	c.settle()

	g = &Graph{&graph{dev: s.Device(), g: dg, pool: pool, max: maxBatch, cur: maxBatch}}
	// Every buffer the graph touches, referenced: outside ones since first
	// use, pool ones from now if still alive.
	for b := range c.used {
		if _, ok := c.held[b]; ok {
			g.bufs = append(g.bufs, b)
			continue
		}
		if b.Pin() {
			g.bufs = append(g.bufs, b)
		}
	}
	for _, b := range c.alloc {
		if _, seen := c.used[b]; !seen && b.Pin() {
			c.used[b] = 0
			g.bufs = append(g.bufs, b)
		}
	}
	slices.SortFunc(g.bufs, func(x, y *lifetime.Buffer) int { return cmp.Compare(lifetime.Addr(x), lifetime.Addr(y)) })
	g.modes = make([]tracking.Mode, len(g.bufs))
	for i, b := range g.bufs {
		g.modes[i] = c.used[b]
	}

	pool.mu.Lock()
	pool.graphs++
	pool.mu.Unlock()
	pool.endCapture()

	var rsErr error
	if maxBatch > 0 && fnErr == nil && endErr == nil {
		g.rs, rsErr = c.resizers()
	}
	if err := errors.Join(fnErr, endErr, rsErr); err != nil {
		_ = g.Close()
		return nil, fmt.Errorf("%s: %w", call, err)
	}
	runtime.AddCleanup(g, func(st *graph) { _ = st.close() }, g.graph)
	return g, nil
}

// runCaptured runs fn; a panic is turned into an error so that the capture
// still ends (and the stream stays usable).
func runCaptured(fn func() error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("panic during capture: %v", r)
		}
	}()
	return fn()
}

func (p *GraphPool) endCapture() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.capturing = false
	if p.graphs == 0 {
		_ = p.drainLocked()
	}
}

// settle turns the tracking of the buffers the capture wrote back into
// ordinary tracking: the captured writes did not run, so the last real
// writer is the capture stream's work before the capture (or work another
// stream finished: the capture waited for it on the host). A host read
// then waits for the stream, and a replay moves the writer to its stream.
//
// A buffer freed meanwhile (a pool buffer released during the capture)
// has no tracking left to settle: only a holder of a reference may lock a
// buffer, so settle pins each first.
func (c *capture) settle() {
	for b := range c.used {
		if !b.Pin() {
			continue
		}
		b.SettleCapture(c.s)
		_ = b.Unref() // the last reference, if its arrays went meanwhile: freed here
	}
}

// Device is the device the graph runs on.
func (g *Graph) Device() *device.Device { return g.dev }

// Pool is the private pool the graph's allocations came from.
func (g *Graph) Pool() *GraphPool { return g.pool }

// Replay runs the captured work once, in the order of the stream opts name
// (a stream of the graph's device; its default stream without one). It
// waits, on the device, for the writers of the arrays the graph reads and
// the readers of those it writes, and marks the arrays it writes as
// written on that stream, as any operation does. The graph itself is
// launched on a stream of its pool's, which waits for that stream's work
// so far and which that stream waits for before its later work: two event
// records and two stream waits beside the launch, in one cgo call on CUDA.
//
// A graph captured with Batched replays for its largest batch.
func (g *Graph) Replay(opts ...Option) error {
	const call = "Graph.Replay"
	if g == nil || g.graph == nil {
		return fmt.Errorf("gpuarr.%s: nil graph: %w", call, ErrArgument)
	}
	return g.replay(call, g.max, opts)
}

// replay runs the graph, for batch size n when it was captured Batched.
func (g *Graph) replay(call string, n int, opts []Option) error {
	s, err := streamFor(call, opts, g.dev)
	if err != nil {
		return err
	}
	if s.Device() != g.dev {
		return fmt.Errorf("gpuarr.%s: graph of %s replayed on a stream of %s: %w", call, g.dev, s.Device(), ErrArgument)
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.closed {
		return fmt.Errorf("gpuarr.%s: %w", call, ErrGraphClosed)
	}
	// Nodes first, so that a failed update leaves tracking as it was.
	// (Launches already issued keep the sizes they were issued with.)
	if g.max > 0 {
		if err := g.resizeLocked(n); err != nil {
			return fmt.Errorf("gpuarr.%s: setting the graph's nodes for batch size %d: %w", call, n, err)
		}
	}
	// The pool's lock is held until the launch is issued, so that replays
	// of the pool's graphs from several goroutines are ordered one after
	// another on the device too, since the graphs share memory.
	//
	// The graph is launched on the pool's own stream, joined to s by events
	// both ways (s's work so far, then the graph, then s's later work), not
	// on s itself: on CUDA, a graph launched on a stream that other threads
	// issue to at the same time can leave their work on that stream
	// unordered after their own waits (a GPU-only race the stress program
	// found; replays on a stream of their own never showed it). A replay
	// on a capturing stream (a graph inside a capture) is launched on it
	// directly, as the capture's isolation requires.
	p := g.pool
	p.mu.Lock()
	defer p.mu.Unlock()
	on := s
	if !s.IsCapturing() {
		var err error
		if on, err = p.launchStreamLocked(); err != nil {
			return fmt.Errorf("gpuarr.%s: making the graph pool's launch stream: %w", call, err)
		}
	} else if err := tracking.Follow(s, p.last); err != nil {
		return fmt.Errorf("gpuarr.%s: ordering after the pool's last replay: %w", call, err)
	}
	for _, b := range g.bufs {
		b.Lock()
	}
	defer func() {
		for i := len(g.bufs) - 1; i >= 0; i-- {
			g.bufs[i].Unlock()
		}
	}()
	for i, b := range g.bufs {
		if m := g.modes[i]; m != 0 {
			if err := b.UseLocked(s, m); err != nil {
				return fmt.Errorf("gpuarr.%s: ordering on a stream of %s: %w", call, s.Device(), err)
			}
		}
	}
	if on != s {
		err = tracking.LaunchJoined(g.g, on, s)
	} else {
		err = g.g.Launch(on)
	}
	p.last = on
	if err != nil {
		return fmt.Errorf("gpuarr.%s: %w", call, err)
	}
	return nil
}

// Close destroys the graph and drops its references on the arrays it
// touched; replays already issued still run. When it was the last graph of
// its pool, the pool's memory goes back to the driver (after those
// replays). Closing twice fails with ErrGraphClosed.
func (g *Graph) Close() error {
	if g == nil || g.graph == nil {
		return fmt.Errorf("gpuarr.Graph.Close: nil graph: %w", ErrArgument)
	}
	return g.graph.close()
}

func (g *graph) close() error {
	g.mu.Lock()
	if g.closed {
		g.mu.Unlock()
		return fmt.Errorf("gpuarr.Graph.Close: %w", ErrGraphClosed)
	}
	g.closed = true
	bufs := g.bufs
	g.bufs, g.modes = nil, nil
	g.mu.Unlock()

	var err error
	if g.g != nil {
		if e := g.g.Close(); e != nil {
			err = e
		}
	}
	p := g.pool
	p.mu.Lock()
	p.graphs--
	last := p.graphs == 0 && !p.capturing
	if p.last != nil {
		// Buffers about to be freed may still be used by a replay: wait
		// for it, so that their memory is free at once, with nothing for
		// a later capture of the pool to wait on (a capture may not wait
		// on work outside it).
		if e := p.last.Synchronize(); e != nil && !closed(e) {
			err = errors.Join(err, e)
		}
	}
	if last {
		p.last = nil
	}
	p.mu.Unlock()
	for _, b := range bufs {
		err = errors.Join(err, b.Unref())
	}
	if last {
		p.mu.Lock()
		if p.graphs == 0 && !p.capturing {
			err = errors.Join(err, p.drainLocked())
		}
		p.mu.Unlock()
	}
	if err != nil {
		return fmt.Errorf("gpuarr.Graph.Close: %w", err)
	}
	return nil
}

// closed reports whether err says the stream was closed: Close waits for
// the stream's work, so there is nothing left to wait for.
func closed(err error) bool { return errors.Is(err, device.ErrClosed) }

// Why operations that cannot be recorded into a graph are refused.
const (
	whyLibrary = "a library call (cuBLAS) is not recorded into graphs here: it would allocate its " +
		"workspace during the capture; run it outside the capture"
	whyHostSlice = "a replay would copy from the Go slice's memory, which the GC may move or free " +
		"after the capture; upload before the capture into an array the graph reads"
)

// refuseInCapture fails an operation on a capturing stream that cannot be
// recorded correctly, naming it, so that a capture is never silently wrong.
func refuseInCapture(call string, s *device.Stream, why string) error {
	if !s.IsCapturing() {
		return nil
	}
	return fmt.Errorf("gpuarr.%s on a stream of %s that is capturing: %s: %w", call, s.Device(), why, device.ErrStreamCapture)
}
