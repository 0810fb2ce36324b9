//go:build cgo

package cuda

/*
#include "shim.h"
*/
import "C"

import (
	"sync/atomic"

	"github.com/gpuarr/gpuarr/device/driver"
)

// graph is a captured CUgraph and its instantiation (CUgraphExec).
type graph struct {
	dev     *device
	g, exec C.gp_h
	closed  atomic.Bool
}

func (g *graph) Launch(st driver.Stream) error {
	const call = "cuGraphLaunch"
	if g.closed.Load() {
		return closedError(call, "the graph")
	}
	s, err := asStream(call, st)
	if err != nil {
		return err
	}
	if s.dev != g.dev {
		return driver.Errorf(call, driver.InvalidValue, "graph of %s launched on a stream of %s", g.dev, s.dev)
	}
	if err := s.check(call); err != nil {
		return err
	}
	if rc := C.gp_graph_launch(g.dev.ctx, g.exec, s.h); rc != 0 {
		return g.dev.fail(int64(rc), "on %s", g.dev)
	}
	return nil
}

// Close destroys the graph; launches already issued still run.
func (g *graph) Close() error {
	const call = "cuGraphExecDestroy"
	if !g.closed.CompareAndSwap(false, true) {
		return closedError(call, "the graph")
	}
	if err := g.dev.check(call); err != nil {
		return err
	}
	if rc := C.gp_graph_destroy(g.dev.ctx, g.g, g.exec); rc != 0 {
		return g.dev.fail(int64(rc), "")
	}
	return nil
}
