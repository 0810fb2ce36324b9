package lifetime

import (
	"errors"
	"fmt"

	"github.com/gpuarr/gpuarr/device"
	"github.com/gpuarr/gpuarr/device/dtype"
	"github.com/gpuarr/gpuarr/internal/layout"
	"github.com/gpuarr/gpuarr/memory"
)

// Make allocates h's memory for an array of shape sh and element type typ
// on s, from the device's default memory (memory.go: the default resource,
// or managed memory; on a stream recording a capture, the capture's
// private pool), and gives h its GC cleanup
// (registered late, see cleanup.go). h must be a new handle: the first
// field of an Array that is not shared yet. Errors name call: a bad shape
// (arg.ErrShape), or the allocation's error.
func (h *Handle) Make(call string, s *device.Stream, sh []int, typ *dtype.Elem) error {
	return h.make(call, s, sh, typ, true)
}

// MakeScratch is Make for memory no CPU code reads (a library call's
// workspace): device memory whatever the device's default memory.
func (h *Handle) MakeScratch(call string, s *device.Stream, sh []int, typ *dtype.Elem) error {
	return h.make(call, s, sh, typ, false)
}

func (h *Handle) make(call string, s *device.Stream, sh []int, typ *dtype.Elem, array bool) error {
	size := typ.Size()
	n, err := layout.Check(call, sh, uintptr(size))
	if err != nil {
		return err
	}
	var b *Buffer
	if s.IsCapturing() {
		b, err = allocFrom(call, s, uint64(n)*uint64(size), nil, array)
	} else {
		b, err = allocDefault(call, s, uint64(n)*uint64(size), array)
	}
	if err != nil {
		return err
	}
	h.start(b, typ, sh)
	registrar.add(h)
	return nil
}

// MakeFrom is Make with memory from res, a foreign resource of s's device
// (package unified's managed memory): the array's memory goes back to res.
func (h *Handle) MakeFrom(call string, s *device.Stream, res memory.Resource, sh []int, typ *dtype.Elem) error {
	size := typ.Size()
	n, err := layout.Check(call, sh, uintptr(size))
	if err != nil {
		return err
	}
	b, err := allocFrom(call, s, uint64(n)*uint64(size), res, true)
	if err != nil {
		return err
	}
	h.start(b, typ, sh)
	registrar.add(h)
	return nil
}

// start binds a new handle to all of b, whose reference it takes, for
// elements of typ in shape sh. The caller lists it for its cleanup.
func (h *Handle) start(b *Buffer, typ *dtype.Elem, sh []int) {
	h.bind(b, b.ptr)
	h.typ = typ
	h.setShape(sh)
}

// MakeView makes h a view of of's buffer: its first element off bytes
// from of's, shape sh, strides st (nil, or row-major ones: contiguous; st
// is kept, not copied). It fails with of's released error when of was
// released.
func (h *Handle) MakeView(call string, of *Handle, off int64, sh, st []int) error {
	if !of.Acquire() {
		return of.ReleasedError(call)
	}
	h.bind(of.buf, of.p.Add(uint64(off)))
	h.typ = of.typ
	h.setShape(sh)
	if st != nil && !layout.IsRowMajor(sh, st) {
		h.setStrides(st)
	}
	registrar.add(h) // the Acquire above is the view's reference
	return nil
}

// Temp allocates an untracked-by-GC scratch array of t of shape sh
// (contiguous; sh is copied) on s, for a multi-pass kernel or a result
// computed apart from memory it reads; the caller drops it with Done
// (stream-ordered like any free). Its memory is device memory whatever
// the device's default memory: no CPU code sees it.
func Temp(call string, s *device.Stream, t dtype.DType, sh []int) (*Handle, error) {
	n := layout.Len(sh)
	buf, err := alloc(call, s, uint64(n)*uint64(t.Size()))
	if err != nil {
		return nil, err
	}
	h := new(Handle)
	h.start(buf, t.Elem(), sh)
	return h, nil
}

// Done drops a Temp's memory.
func (h *Handle) Done() { _ = h.buf.Unref() }

// The allocation door: every array's memory comes through alloc (the
// device's default memory, or a capture's private pool) or allocFrom (a
// foreign resource): every constructor, view-free copy, clone and scratch
// array. The device's default memory (memory.go) decides between the
// default resource and managed memory for arrays; scratch memory is
// always the default resource's. Package gcpressure's eager collection
// runs inside both resources' Alloc (memory.SetPressure), so that an
// allocation under memory pressure first lets the GC run the cleanups of
// unreachable arrays; before a device's first allocation the package is
// installed, so a malformed GPUARR_GC_* variable fails it.
//
// The allocation counts as a write on s: the pool hands out memory that is
// safe to use in s's order, so another stream that uses the array first
// waits for s (the tracking's lazy event) like it waits for any writer.

// alloc allocates nbytes of scratch memory on s from the device's default
// resource, or, on a stream recording a capture, from the capture's
// private pool.
func alloc(call string, s *device.Stream, nbytes uint64) (*Buffer, error) {
	if s.IsCapturing() {
		return allocFrom(call, s, nbytes, nil, false)
	}
	return allocDefault(call, s, nbytes, false)
}

// allocDefault is alloc from the device's default resource, or, for an
// array when the device's default memory is not device memory, from its
// managed memory (arrayResource), into the block's buffer object
// (recycle.go). The choice costs one atomic load.
func allocDefault(call string, s *device.Stream, nbytes uint64, array bool) (*Buffer, error) {
	st := stateOf(s.Device())
	res, err := st.resource()
	var mres memory.Resource // res when it is managed memory
	if err == nil && array && Memory(st.mem.mem.Load()) != DeviceMemory {
		res, err = st.arrayResource()
		if res != st.res {
			mres = res
		}
	}
	if err != nil {
		return nil, fmt.Errorf("gpuarr.%s: %w", call, err)
	}
	blk, err := res.Alloc(s, nbytes)
	if err != nil {
		return nil, allocError(call, nbytes, s.Device(), false, err)
	}
	b := bufferOf(blk, st)
	b.block, b.ptr, b.size = blk, blk.Ptr(), nbytes
	if mres != nil {
		b.res = mres
	}
	b.refs.Store(1)
	b.start(s, mres != nil, blk.Fresh())
	return b, nil
}

// allocFrom allocates from a foreign resource res, or, with a nil res, from
// the private pool of the capture recording on s (none: a raw capture,
// which allocates as allocDefault does, for an array or not). A capture's
// pool gets no eager collection (it may synchronize, which a capture
// forbids, and the general pool is not what is being filled), and its
// buffers are not reused (recycle.go).
func allocFrom(call string, s *device.Stream, nbytes uint64, res memory.Resource, array bool) (*Buffer, error) {
	var rec Recorder
	if res == nil {
		if rec = recorderOf(s); rec == nil {
			return allocDefault(call, s, nbytes, array)
		}
		res = rec.Resource()
	} else if err := installHooks(); err != nil {
		return nil, fmt.Errorf("gpuarr.%s: %w", call, err)
	}
	blk, err := res.Alloc(s, nbytes)
	if err != nil {
		return nil, allocError(call, nbytes, s.Device(), rec != nil, err)
	}
	var b *Buffer
	if rec == nil {
		b = bufferOf(blk, stateOf(s.Device()))
	} else {
		b = &Buffer{st: stateOf(s.Device())}
	}
	b.res, b.block, b.ptr, b.size = res, blk, blk.Ptr(), nbytes
	b.refs.Store(1)
	b.start(s, rec == nil && b.managedBuffer(), blk.Fresh())
	if rec != nil {
		rec.Allocated(b)
	}
	return b, nil
}

// start records b's allocation on s in its tracking. Memory the CPU
// addresses (managed memory, hostVisible) starts dirty: a pool reuses
// freed memory in s's order, so work s has queued may still use it, and a
// CPU access must wait for that work first (the CPU never touches device
// memory). Fresh managed memory (memory.Block.Fresh) is prefetched to the
// device of its first GPU use, unless the CPU touches it first.
func (b *Buffer) start(s *device.Stream, hostVisible, fresh bool) {
	if hostVisible {
		b.State.StartHostVisible(s, fresh)
		return
	}
	b.State.Start(s)
}

// allocError is a failed allocation of nbytes on dev (from a capture's
// private pool when captured). An out-of-memory error from package memory
// already names the device and the size.
func allocError(call string, nbytes uint64, dev *device.Device, captured bool, err error) error {
	if captured {
		return fmt.Errorf("gpuarr.%s: %d bytes on %s from the graph's private pool: %w", call, nbytes, dev, err)
	}
	if oom := (*memory.OutOfMemoryError)(nil); errors.As(err, &oom) {
		return fmt.Errorf("gpuarr.%s: %w", call, err)
	}
	return fmt.Errorf("gpuarr.%s: %d bytes on %s: %w", call, nbytes, dev, err)
}
