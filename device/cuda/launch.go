//go:build cgo

package cuda

/*
#include "shim.h"
*/
import "C"

import (
	"unsafe"

	"github.com/gpuarr/gpuarr/device/driver"
)

// launchArgs checks a launch and returns what the shim needs: the function,
// and pointers into the marshalled arguments (Go memory without Go
// pointers, which the shim copies to its stack before cuLaunchKernel).
func (s *stream) launchArgs(f driver.Function, args *driver.Args) (fn *function, buf unsafe.Pointer, off *C.ushort, n, size C.int, err error) {
	return launchArgsOn(s.dev, f, args)
}

// launchArgsOn is launchArgs for a launch on a device (a graph's kernel
// node, say) rather than on a stream.
func launchArgsOn(dev *device, f driver.Function, args *driver.Args) (fn *function, buf unsafe.Pointer, off *C.ushort, n, size C.int, err error) {
	fn, ok := f.(*function)
	if !ok || fn == nil {
		return nil, nil, nil, 0, 0, driver.Errorf("cuLaunchKernel", driver.InvalidValue, "%T is not a CUDA function", f)
	}
	if fn.mod.closed.Load() {
		return nil, nil, nil, 0, 0, closedError("cuLaunchKernel", "the module of "+fn.name)
	}
	if fn.mod.dev != dev {
		return nil, nil, nil, 0, 0, driver.Errorf("cuLaunchKernel", driver.InvalidValue, "kernel %s of %s launched on %s", fn.name, fn.mod.dev, dev)
	}
	if args != nil && args.N > 0 {
		buf, off = unsafe.Pointer(&args.Buf[0]), (*C.ushort)(unsafe.Pointer(&args.Off[0]))
		n, size = C.int(args.N), C.int(args.Size)
	}
	return fn, buf, off, n, size, nil
}

// Launch is one cgo call: context check, argument copy and cuLaunchKernel.
// It allocates nothing.
func (s *stream) Launch(f driver.Function, grid, block driver.Dim3, sharedBytes uint32, args *driver.Args) error {
	if err := s.check("cuLaunchKernel"); err != nil {
		return err
	}
	fn, buf, off, n, size, err := s.launchArgs(f, args)
	if err != nil {
		return err
	}
	rc := C.gp_launch(s.dev.ctx, fn.h,
		C.uint(grid.X), C.uint(grid.Y), C.uint(grid.Z),
		C.uint(block.X), C.uint(block.Y), C.uint(block.Z),
		C.uint(sharedBytes), s.h, buf, off, n, size)
	if rc != 0 {
		return s.dev.fail(int64(rc), "kernel %s grid %v block %v shared %d", fn.name, grid, block, sharedBytes)
	}
	return nil
}

// LaunchAfter is Launch after up to two hand-offs (driver.HandoffLauncher):
// the records, the waits and the launch are one cgo call. Hand-offs from a
// stream of another device, or that are not this backend's, fail before
// anything is issued.
func (s *stream) LaunchAfter(h0, h1 driver.Handoff, f driver.Function, grid, block driver.Dim3, sharedBytes uint32, args *driver.Args) (int, error) {
	if err := s.check("cuLaunchKernel"); err != nil {
		return 0, err
	}
	fn, buf, off, n, size, err := s.launchArgs(f, args)
	if err != nil {
		return 0, err
	}
	var ev, from [2]C.gp_h
	nh := 0
	for _, h := range [2]driver.Handoff{h0, h1} {
		if h.From == nil {
			continue
		}
		fs, ok := h.From.(*stream)
		if !ok || fs == nil || fs.dev != s.dev {
			return 0, driver.Errorf("cuEventRecord", driver.InvalidValue, "hand-off from %T, not a stream of %s", h.From, s.dev)
		}
		e, err := fs.recordable(h.Event)
		if err != nil {
			return 0, err
		}
		ev[nh], from[nh] = e.h, fs.h
		nh++
	}
	r := C.gp_launch_after(s.dev.ctx, fn.h,
		C.uint(grid.X), C.uint(grid.Y), C.uint(grid.Z),
		C.uint(block.X), C.uint(block.Y), C.uint(block.Z),
		C.uint(sharedBytes), s.h, buf, off, n, size,
		C.int(nh), ev[0], from[0], ev[1], from[1])
	if r.rc != 0 {
		return int(r.v), s.dev.fail(int64(r.rc), "kernel %s grid %v block %v shared %d after %d hand-offs", fn.name, grid, block, sharedBytes, nh)
	}
	return nh, nil
}

var _ driver.HandoffLauncher = (*stream)(nil)
