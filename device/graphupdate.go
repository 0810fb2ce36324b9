package device

import (
	"github.com/gpuarr/gpuarr/device/driver"
)

// Updating a captured graph in place: a caller that remembers which node
// each of its captured operations became (Stream.LastCaptured, right after
// issuing it) can later give those nodes new sizes in the instantiated
// graph (Graph.UpdateLaunch, Graph.UpdateCopy, Graph.UpdateMemset) instead
// of capturing again.
// Both are optional capabilities of a backend; without them the calls fail
// with an error matching ErrNotSupported.

// GraphNode names one operation recorded into a graph being captured; it
// stays valid as long as the Graph the capture ends in.
type GraphNode struct{ drv driver.GraphNode }

// Valid reports whether n names a node (the zero GraphNode names none).
func (n GraphNode) Valid() bool { return n.drv != 0 }

// LastCaptured is the node the latest operation issued on s became, while
// s captures. Call it right after issuing the operation, from the goroutine
// that issued it.
func (s *Stream) LastCaptured() (GraphNode, error) {
	const call = "Stream.LastCaptured"
	if err := s.check(call); err != nil {
		return GraphNode{}, err
	}
	if !s.capturing.Load() {
		return GraphNode{}, invalid(call, "the stream of %s is not capturing", s.dev)
	}
	cn, ok := s.drv.(driver.CaptureNodes)
	if !ok {
		return GraphNode{}, driver.PlainErrorf(call, driver.NotSupported, "the %s backend cannot name captured nodes", s.dev.Backend())
	}
	n, err := cn.LastCapturedNode()
	if err != nil {
		return GraphNode{}, err
	}
	return GraphNode{n}, nil
}

func (g *Graph) updater(call string, n GraphNode) (driver.GraphUpdate, error) {
	if !n.Valid() {
		return nil, invalid(call, "no graph node (zero GraphNode)")
	}
	u, ok := g.drv.(driver.GraphUpdate)
	if !ok {
		return nil, driver.PlainErrorf(call, driver.NotSupported, "the %s backend cannot update graph nodes", g.dev.Backend())
	}
	return u, nil
}

// UpdateLaunch gives kernel node n of g (a launch of k captured into g)
// a new launch configuration and arguments for the launches of g issued
// from now on; launches already issued are not affected. a must match
// k's parameter list; the caller may reuse it once UpdateLaunch returns.
func (g *Graph) UpdateLaunch(n GraphNode, k *Kernel, cfg LaunchConfig, a *Args) error {
	const call = "Graph.UpdateLaunch"
	u, err := g.updater(call, n)
	if err != nil {
		return err
	}
	if k == nil {
		return invalid(call, "nil kernel")
	}
	if k.mod.dev != g.dev {
		return invalid(call, "kernel %s was loaded on %s, graph is on %s", k.Name(), k.mod.dev, g.dev)
	}
	if k.mod.closed.Load() {
		return closedError(call + " of " + k.Name() + " from a closed module")
	}
	return u.SetKernelNode(n.drv, k.drv, cfg.Grid.Norm(), cfg.Block.Norm(), cfg.SharedBytes, a)
}

// UpdateCopy makes copy node n of g (a one-dimensional copy captured into
// g) copy bytes bytes, from the same source to the same destination, in
// the launches of g issued from now on.
func (g *Graph) UpdateCopy(n GraphNode, bytes uint64) error {
	const call = "Graph.UpdateCopy"
	u, err := g.updater(call, n)
	if err != nil {
		return err
	}
	if bytes == 0 {
		return invalid(call, "a copy of 0 bytes (the driver does not update a copy node to zero length)")
	}
	return u.SetCopyBytes(n.drv, bytes)
}

// UpdateMemset makes memset node n of g (a Memset8 or Memset32 captured
// into g) set bytes bytes (a multiple of its element size), at the same
// destination to the same value, in the launches of g issued from now on.
func (g *Graph) UpdateMemset(n GraphNode, bytes uint64) error {
	const call = "Graph.UpdateMemset"
	u, err := g.updater(call, n)
	if err != nil {
		return err
	}
	if bytes == 0 {
		return invalid(call, "a memset of 0 bytes (the driver does not update a memset node to zero length)")
	}
	return u.SetMemsetBytes(n.drv, bytes)
}
