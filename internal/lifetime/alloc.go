package lifetime

import (
	"errors"
	"fmt"

	"github.com/gpuarr/gpuarr/device"
	"github.com/gpuarr/gpuarr/device/dtype"
	"github.com/gpuarr/gpuarr/gcpressure"
	"github.com/gpuarr/gpuarr/internal/layout"
	"github.com/gpuarr/gpuarr/memory"
)

// Make allocates h's memory for an array of shape sh and element type typ
// on s, from the device's default resource (or, on a stream recording a
// capture, from the capture's private pool), and gives h its GC cleanup
// (registered late, see cleanup.go). h must be a new handle: the first
// field of an Array that is not shared yet. Errors name call: a bad shape
// (arg.ErrShape), or the allocation's error.
func (h *Handle) Make(call string, s *device.Stream, sh []int, typ *dtype.Elem) error {
	size := typ.Size()
	n, err := layout.Check(call, sh, uintptr(size))
	if err != nil {
		return err
	}
	var b *Buffer
	if s.IsCapturing() {
		b, err = allocFrom(call, s, uint64(n)*uint64(size), nil)
	} else {
		b, err = allocDefault(call, s, uint64(n)*uint64(size))
	}
	if err != nil {
		return err
	}
	h.start(b, n, typ, sh)
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
	b, err := allocFrom(call, s, uint64(n)*uint64(size), res)
	if err != nil {
		return err
	}
	h.start(b, n, typ, sh)
	registrar.add(h)
	return nil
}

// start binds a new handle to all of b, whose reference it takes, for n
// elements of typ in shape sh. The caller lists it for its cleanup.
func (h *Handle) start(b *Buffer, n int, typ *dtype.Elem, sh []int) {
	h.bind(b, b.ptr)
	h.n, h.typ = n, typ
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
	h.n = layout.Len(sh)
	h.setShape(sh)
	if st != nil && !layout.IsRowMajor(sh, st) {
		h.layout = &st
	}
	registrar.add(h) // the Acquire above is the view's reference
	return nil
}

// Temp allocates an untracked-by-GC scratch array of t of shape sh
// (contiguous; sh is copied) on s, for a multi-pass kernel or a result
// computed apart from memory it reads; the caller drops it with Done
// (stream-ordered like any free).
func Temp(call string, s *device.Stream, t dtype.DType, sh []int) (*Handle, error) {
	n := layout.Len(sh)
	buf, err := alloc(call, s, uint64(n)*uint64(t.Size()))
	if err != nil {
		return nil, err
	}
	h := new(Handle)
	h.start(buf, n, t.Elem(), sh)
	return h, nil
}

// Done drops a Temp's memory.
func (h *Handle) Done() { _ = h.buf.Unref() }

// The allocation door: every array's memory comes through alloc (the
// device's default resource, or a capture's private pool) or allocFrom (a
// foreign resource): every constructor, view-free copy, clone and scratch
// array. Package gcpressure's eager collection runs inside the default
// resources' Alloc (memory.SetPressure), so that an allocation under
// memory pressure first lets the GC run the cleanups of unreachable
// arrays; before a device's first allocation the package is installed, so
// a malformed GPUARR_GC_* variable fails it.
//
// The allocation counts as a write on s: the pool hands out memory that is
// safe to use in s's order, so another stream that uses the array first
// waits for s (the tracking's lazy event) like it waits for any writer.

// alloc allocates nbytes on s from the device's default resource, or, on
// a stream recording a capture, from the capture's private pool.
func alloc(call string, s *device.Stream, nbytes uint64) (*Buffer, error) {
	if s.IsCapturing() {
		return allocFrom(call, s, nbytes, nil)
	}
	return allocDefault(call, s, nbytes)
}

// allocDefault is alloc from the device's default resource, into a
// recycled buffer object.
func allocDefault(call string, s *device.Stream, nbytes uint64) (*Buffer, error) {
	st := stateOf(s.Device())
	def, err := st.resource()
	if err != nil {
		return nil, fmt.Errorf("gpuarr.%s: %w", call, err)
	}
	blk, err := def.Alloc(s, nbytes)
	if err != nil {
		return nil, allocError(call, nbytes, s.Device(), false, err)
	}
	b := st.newBuffer()
	b.block, b.ptr, b.size = blk, blk.Ptr(), nbytes
	b.refs.Store(1)
	b.State.Start(s)
	return b, nil
}

// allocFrom allocates from a foreign resource res, or, with a nil res, from
// the private pool of the capture recording on s (none: a raw capture,
// which allocates from the default resource). A capture's pool
// gets no eager collection (it may synchronize, which a capture forbids,
// and the general pool is not what is being filled). Such buffers are not
// recycled.
func allocFrom(call string, s *device.Stream, nbytes uint64, res memory.Resource) (*Buffer, error) {
	var rec Recorder
	if res == nil {
		if rec = recorderOf(s); rec == nil {
			return allocDefault(call, s, nbytes)
		}
		res = rec.Resource()
	} else if err := gcpressure.Install(); err != nil {
		return nil, fmt.Errorf("gpuarr.%s: %w", call, err)
	}
	blk, err := res.Alloc(s, nbytes)
	if err != nil {
		return nil, allocError(call, nbytes, s.Device(), rec != nil, err)
	}
	b := &Buffer{st: stateOf(s.Device()), res: res, block: blk, ptr: blk.Ptr(), size: nbytes}
	b.refs.Store(1)
	b.State.Start(s)
	if rec != nil {
		rec.Allocated(b)
	}
	return b, nil
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
