//go:build cgo

package cuda

/*
#include "shim.h"
*/
import "C"

import (
	"github.com/gpuarr/gpuarr/device/driver"
)

// Updating instantiated graphs in place: a capture names the node each
// operation became (cuStreamGetCaptureInfo_v3), and the instantiation's
// kernel, copy and memset nodes take new sizes
// (cuGraphExecKernelNodeSetParams_v2, cuGraphExecMemcpyNodeSetParams,
// cuGraphExecMemsetNodeSetParams) without capturing again.
var (
	_ driver.CaptureNodes = (*stream)(nil)
	_ driver.GraphUpdate  = (*graph)(nil)
)

func (s *stream) LastCapturedNode() (driver.GraphNode, error) {
	const call = "cuStreamGetCaptureInfo_v3"
	if err := s.check(call); err != nil {
		return 0, err
	}
	r := C.gp_stream_last_node(s.dev.ctx, s.h)
	if r.rc != 0 {
		return 0, s.dev.fail(int64(r.rc), "stream %#x on %s (not capturing?)", uintptr(s.h), s.dev)
	}
	if r.w != 1 || r.v == 0 {
		return 0, driver.Errorf(call, driver.InvalidValue,
			"the capture on stream %#x of %s has %d current nodes, not one", uintptr(s.h), s.dev, uint64(r.w))
	}
	return driver.GraphNode(r.v), nil
}

func (g *graph) SetKernelNode(n driver.GraphNode, f driver.Function, grid, block driver.Dim3, sharedBytes uint32, args *driver.Args) error {
	const call = "cuGraphExecKernelNodeSetParams_v2"
	if g.closed.Load() {
		return closedError(call, "the graph")
	}
	if err := g.dev.check(call); err != nil {
		return err
	}
	if n == 0 {
		return driver.Errorf(call, driver.InvalidValue, "no node")
	}
	fn, buf, off, na, size, err := launchArgsOn(g.dev, f, args)
	if err != nil {
		return err
	}
	rc := C.gp_graph_set_kernel(g.dev.ctx, g.exec, C.gp_h(n), fn.h,
		C.uint(grid.X), C.uint(grid.Y), C.uint(grid.Z),
		C.uint(block.X), C.uint(block.Y), C.uint(block.Z),
		C.uint(sharedBytes), buf, off, na, size)
	if rc != 0 {
		return g.dev.fail(int64(rc), "kernel %s grid %v block %v on %s", fn.name, grid, block, g.dev)
	}
	return nil
}

func (g *graph) SetMemsetBytes(n driver.GraphNode, bytes uint64) error {
	return g.setBytes("cuGraphExecMemsetNodeSetParams", n, bytes, func() C.gp_rc {
		return C.gp_graph_set_memset_bytes(g.dev.ctx, g.exec, C.gp_h(n), C.size_t(bytes))
	})
}

func (g *graph) SetCopyBytes(n driver.GraphNode, bytes uint64) error {
	return g.setBytes("cuGraphExecMemcpyNodeSetParams", n, bytes, func() C.gp_rc {
		return C.gp_graph_set_copy_bytes(g.dev.ctx, g.exec, C.gp_h(n), C.size_t(bytes))
	})
}

// setBytes is the checks both size updates share around set, the shim call.
func (g *graph) setBytes(call string, n driver.GraphNode, bytes uint64, set func() C.gp_rc) error {
	if g.closed.Load() {
		return closedError(call, "the graph")
	}
	if err := g.dev.check(call); err != nil {
		return err
	}
	if n == 0 || bytes == 0 {
		return driver.Errorf(call, driver.InvalidValue, "node %#x, %d bytes: need a node and more than 0 bytes", uintptr(n), bytes)
	}
	if rc := set(); rc != 0 {
		return g.dev.fail(int64(rc), "%d bytes on %s", bytes, g.dev)
	}
	return nil
}
