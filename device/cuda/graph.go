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

// LaunchJoined launches the graph on on in the order of caller, in one
// cgo call (see driver.JoinedLauncher).
func (g *graph) LaunchJoined(onSt, callerSt driver.Stream, before, after driver.Event) error {
	const call = "cuGraphLaunch"
	if g.closed.Load() {
		return closedError(call, "the graph")
	}
	on, err := asStream(call, onSt)
	if err != nil {
		return err
	}
	caller, err := asStream(call, callerSt)
	if err != nil {
		return err
	}
	if on.dev != g.dev || caller.dev != g.dev {
		return driver.Errorf(call, driver.InvalidValue, "graph of %s launched in the order of streams of %s and %s", g.dev, on.dev, caller.dev)
	}
	if err := on.check(call); err != nil {
		return err
	}
	if err := caller.check(call); err != nil {
		return err
	}
	b, err := caller.recordable(before)
	if err != nil {
		return err
	}
	a, err := on.recordable(after)
	if err != nil {
		return err
	}
	if rc := C.gp_graph_launch_joined(g.dev.ctx, g.exec, on.h, caller.h, b.h, a.h); rc != 0 {
		return g.dev.fail(int64(rc), "on %s", g.dev)
	}
	return nil
}

var _ driver.JoinedLauncher = (*graph)(nil)

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
