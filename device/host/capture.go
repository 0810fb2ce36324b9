package host

import (
	"slices"
	"sync"
	"sync/atomic"

	"github.com/gpuarr/gpuarr/device/driver"
)

// Stream capture: while a stream captures, the operations issued on it are
// appended to the capture instead of its queue; EndCapture turns them into
// a graph whose Launch queues them again, in order, on any stream of the
// device. Operations are closures over their arguments (uploads over a
// snapshot of their source, launches over a copy of their arguments), so
// running one again replays it.
//
// As in CUDA, waiting on the host for a capturing stream (Synchronize,
// Query, a download into host memory, an event recorded in the capture)
// fails with StreamCaptureUnsupported and invalidates the capture (CUDA
// invalidates every capture such a call touches), so
// EndCapture then fails with StreamCaptureInvalidated.

type capture struct {
	ops         []op
	nodes       []*node     // per op: how to resize it, or nil
	invalidated atomic.Bool // a forbidden call was made: EndCapture fails
	ended       atomic.Bool // set by EndCapture; records made during it stop refusing
}

// refuseCapture fails when the stream captures; invalidate marks the
// capture broken as CUDA does for calls that would synchronize it.
func (s *stream) refuseCapture(call string, invalidate bool) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.capture
	if c == nil {
		return nil
	}
	if invalidate {
		c.invalidated.Store(true)
	}
	return errorf(call, driver.StreamCaptureUnsupported, "stream %d of %s is capturing", s.handle, s.dev)
}

// capturing returns the stream's active capture, or nil.
func (s *stream) capturing() *capture {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.capture
}

// BeginCapture makes the stream record work instead of running it.
func (s *stream) BeginCapture() error {
	const call = "cuStreamBeginCapture_v2"
	if err := s.dev.symbol(call); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case s.closing:
		return errorf(call, driver.Closed, "stream %d of %s is closed", s.handle, s.dev)
	case s.capture != nil:
		return errorf(call, driver.StreamCaptureUnsupported, "stream %d of %s is already capturing", s.handle, s.dev)
	}
	s.capture = &capture{}
	return nil
}

// EndCapture stops capturing and returns the graph of the captured work.
func (s *stream) EndCapture() (driver.Graph, error) {
	const call = "cuStreamEndCapture"
	if err := s.dev.symbol(call); err != nil {
		return nil, err
	}
	if err := s.dev.symbol("cuGraphInstantiateWithFlags"); err != nil {
		return nil, err // as the shim: the stream keeps capturing
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.capture
	if c == nil {
		return nil, errorf(call, driver.InvalidValue, "stream %d of %s is not capturing", s.handle, s.dev)
	}
	s.capture = nil
	c.ended.Store(true)
	if c.invalidated.Load() {
		return nil, errorf(call, driver.StreamCaptureInvalidated,
			"the capture on stream %d of %s was invalidated by a call that would synchronize it", s.handle, s.dev)
	}
	return &graph{dev: s.dev, ops: c.ops, nodes: c.nodes}, nil
}

// Capturing reports whether the stream captures now.
func (s *stream) Capturing() (bool, error) {
	if err := s.dev.symbol("cuStreamIsCapturing"); err != nil {
		return false, err
	}
	return s.capturing() != nil, nil
}

// graph is the captured work of one capture.
type graph struct {
	dev   *device
	ops   []op    // replaced, never changed in place: queued launches keep theirs
	nodes []*node // parallel to ops

	mu     sync.Mutex
	closed bool
}

// Launch queues the captured operations on st; on a capturing stream they
// join that capture (a child graph, in CUDA's terms).
func (g *graph) Launch(st driver.Stream) error {
	const call = "cuGraphLaunch"
	if err := g.dev.symbol(call); err != nil {
		return err
	}
	s, err := asStream(call, st)
	if err != nil {
		return err
	}
	if s.dev != g.dev {
		return errorf(call, driver.InvalidValue, "graph of %s launched on a stream of %s", g.dev, s.dev)
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.closed {
		return errorf(call, driver.Closed, "graph of %s is closed", g.dev)
	}
	// One queue entry for the whole graph: its operations stay contiguous
	// and in order even when other goroutines issue on st meanwhile.
	ops := g.ops
	return s.enqueue(call, func() error {
		var first error
		for _, fn := range ops {
			if err := fn(); err != nil && first == nil {
				first = err
			}
		}
		return first
	})
}

// Close destroys the graph; launches already queued still run.
func (g *graph) Close() error {
	const call = "cuGraphExecDestroy"
	if err := g.dev.symbol(call); err != nil {
		return err
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.closed {
		return errorf(call, driver.Closed, "graph of %s closed twice", g.dev)
	}
	g.closed = true
	return nil
}

// node is what a graph needs to change one captured operation in place,
// as CUDA's graph-exec node updates do: a kernel launch gets a new shape
// and arguments, a copy a new length.
type node struct {
	kernel      *function                  // a launch of kernel, or nil
	copyBytes   func(n uint64) (op, error) // a copy, resized; nil when not a copy
	memsetBytes func(n uint64) (op, error) // a memset, resized; nil when not a memset
}

var (
	_ driver.CaptureNodes = (*stream)(nil)
	_ driver.GraphUpdate  = (*graph)(nil)
)

// LastCapturedNode names the latest operation of the stream's capture:
// node i+1 is the capture's operation i.
func (s *stream) LastCapturedNode() (driver.GraphNode, error) {
	const call = "cuStreamGetCaptureInfo_v3"
	if err := s.dev.symbol(call); err != nil {
		return 0, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.capture
	switch {
	case c == nil:
		return 0, errorf(call, driver.InvalidValue, "stream %d of %s is not capturing", s.handle, s.dev)
	case len(c.ops) == 0:
		return 0, errorf(call, driver.InvalidValue, "the capture on stream %d of %s has no operation yet", s.handle, s.dev)
	}
	return driver.GraphNode(len(c.ops)), nil
}

// nodeAt returns the index and record of node n, with g.mu held.
func (g *graph) nodeAtLocked(call string, n driver.GraphNode) (int, *node, error) {
	if g.closed {
		return 0, nil, errorf(call, driver.Closed, "graph of %s is closed", g.dev)
	}
	i := int(n) - 1
	if n == 0 || i >= len(g.ops) {
		return 0, nil, errorf(call, driver.InvalidValue, "node %d is not in the graph (%d nodes)", n, len(g.ops))
	}
	return i, g.nodes[i], nil
}

// replaceLocked installs fn as operation i in a new slice, so launches
// already queued keep running the old one.
func (g *graph) replaceLocked(i int, fn op) {
	ops := slices.Clone(g.ops)
	ops[i] = fn
	g.ops = ops
}

// SetKernelNode gives a captured launch a new shape and arguments.
func (g *graph) SetKernelNode(n driver.GraphNode, f driver.Function, grid, block driver.Dim3, sharedBytes uint32, args *driver.Args) error {
	const call = "cuGraphExecKernelNodeSetParams_v2"
	if err := g.dev.symbol(call); err != nil {
		return err
	}
	fn, ok := f.(*function)
	if !ok {
		return errorf(call, driver.InvalidHandle, "%T is not a host kernel", f)
	}
	grid, block = grid.Norm(), block.Norm()
	if err := checkLaunch(call, fn, grid, block, sharedBytes); err != nil {
		return err
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	i, nd, err := g.nodeAtLocked(call, n)
	if err != nil {
		return err
	}
	if nd == nil || nd.kernel == nil {
		return errorf(call, driver.InvalidValue, "node %d is not a kernel node", n)
	}
	if nd.kernel != fn {
		// CUDA: the function may not change to one of another context;
		// changing the kernel is not what a resize does, so refuse it.
		return errorf(call, driver.InvalidValue, "node %d launches %s, not %s", n, nd.kernel.name, fn.name)
	}
	var a driver.Args
	if args != nil {
		a = *args
	}
	g.replaceLocked(i, launchOp(g.dev, fn, grid, block, sharedBytes, a))
	return nil
}

// SetMemsetBytes changes the length of a captured one-dimensional memset.
func (g *graph) SetMemsetBytes(n driver.GraphNode, bytes uint64) error {
	return g.resize("cuGraphExecMemsetNodeSetParams", "memset", n, bytes, func(nd *node) func(uint64) (op, error) { return nd.memsetBytes })
}

// SetCopyBytes changes the length of a captured one-dimensional copy.
func (g *graph) SetCopyBytes(n driver.GraphNode, bytes uint64) error {
	return g.resize("cuGraphExecMemcpyNodeSetParams", "copy", n, bytes, func(nd *node) func(uint64) (op, error) { return nd.copyBytes })
}

// resize replaces node n, a node of the given kind, by its rebuild for
// bytes (rebuild picks the node's rebuild function, nil for other kinds).
func (g *graph) resize(call, kind string, n driver.GraphNode, bytes uint64, rebuild func(*node) func(uint64) (op, error)) error {
	if err := g.dev.symbol(call); err != nil {
		return err
	}
	if bytes == 0 {
		return errorf(call, driver.InvalidValue, "zero-length %s", kind)
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	i, nd, err := g.nodeAtLocked(call, n)
	if err != nil {
		return err
	}
	var build func(uint64) (op, error)
	if nd != nil {
		build = rebuild(nd)
	}
	if build == nil {
		return errorf(call, driver.InvalidValue, "node %d is not a %s node", n, kind)
	}
	fn, err := build(bytes)
	if err != nil {
		return err
	}
	g.replaceLocked(i, fn)
	return nil
}
