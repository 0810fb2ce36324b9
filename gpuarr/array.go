package gpuarr

import (
	"fmt"
	"runtime"
	"sync/atomic"
	"unsafe"

	"github.com/gpuarr/gpuarr/device"
	"github.com/gpuarr/gpuarr/device/dtype"
)

// Array is an n-dimensional, row-major array of T in device memory. It
// knows the device that owns it and, through its buffer, which streams
// touched it, so operations on different streams order themselves.
//
// An Array is a handle: views (Reshape, Slice) share its buffer, which is
// freed when the last handle is released or becomes unreachable. Its
// methods are safe for concurrent use; the data is ordered only by the
// streams and the host reads that use it.
//
// Arrays come from constructors (Empty, Zeros, FromSlice, Eval, ...) and
// views; a nil *Array and the zero Array are not arrays. Given one,
// every function and method that returns an error returns one matching
// ErrArgument that says which; Release of a nil *Array does nothing, so
// that defer x.Release() may come before checking the constructor's
// error; String, Describe and Err never panic; the accessors without an
// error result (Shape, Rank, Len, Bytes, Strides, Device, Released) panic
// with a message naming the method and the problem.
type Array[T Numeric] struct {
	c core
}

// core is the untyped part of an array, so that tracking, launches and
// copies need no type parameter. It is the first field of Array, so a
// pointer to it keeps the Array alive.
type core struct {
	buf *buffer
	off uint64 // bytes from the start of buf to the first element
	// p is buf.ptr + off, fixed for the handle's life: the buffer object
	// is reused once freed (recycle.go), so code that has not acquired
	// the buffer must not read its fields, and addresses are wanted
	// before that (the plan's arguments).
	p     device.Ptr
	n     int         // elements
	typ   *dtype.Elem // element type: size and name
	shape Shape       // dims[:len] when the rank fits, else its own slice
	dims  [4]int
	// layout holds the element steps along each axis of a strided view
	// (Transpose, Permute, Step); nil for the usual contiguous row-major
	// layout. off is then the first element's offset and n counts the
	// view's elements, not the memory they span. A pointer rather than a
	// slice, like typ below: every array allocates a handle, and its size
	// class is part of what Empty costs.
	layout *[]int
	// leaf is the array's expression node, made on first use: every
	// expression reads the array through the same immutable node, so
	// using an array as an operand allocates nothing.
	leaf atomic.Pointer[node]
	// released is the handle's state (cleanupreg.go): its Load reports
	// whether Release was called. cleanup is valid once it is tracked;
	// pendingNext links it into the registrar's list until then.
	released     handleState
	pendingDepth uint32    // its depth in the registrar's list (batchStack.push)
	lease        HostLease // direct CPU access (hostlease.go)
	cleanup      runtime.Cleanup
	pendingNext  *core
}

// bind points the handle at off bytes into b, whose reference it owns.
func (c *core) bind(b *buffer, off uint64) { c.buf, c.off, c.p = b, off, b.ptr.Add(off) }

// setShape stores a copy of sh.
func (c *core) setShape(sh Shape) {
	if len(sh) <= len(c.dims) {
		c.shape = c.dims[:len(sh):len(sh)]
	} else {
		c.shape = make(Shape, len(sh))
	}
	copy(c.shape, sh)
}

// contiguous reports whether the elements are packed row-major from ptr().
func (c *core) contiguous() bool { return c.layout == nil }

// strides are the element steps of a strided view; nil when contiguous.
func (c *core) strides() []int {
	if c.layout == nil {
		return nil
	}
	return *c.layout
}

func (c *core) dev() *device.Device { return c.buf.st.dev }
func (c *core) ptr() device.Ptr     { return c.p }
func (c *core) nbytes() uint64      { return uint64(c.n) * uint64(uintptr(c.typ.Size())) }

// describe names the array in messages: "float32[3 4] array on host:0".
func (c *core) describe() string {
	if c.buf == nil {
		return zeroArray
	}
	return fmt.Sprintf("%s%v array on %s", c.typ.Name, c.shape, c.dev())
}

func (c *core) releasedError(call string) error {
	if c.buf == nil {
		return fmt.Errorf("gpuarr.%s: %w", call, errZeroArray)
	}
	return fmt.Errorf("gpuarr.%s: %s: %w", call, c.describe(), ErrReleased)
}

// isArray marks arrays passed to Launch without In, Out or InOut.
func (*Array[T]) isArray() {}

// check is the error operation call gives for a when a is not a usable
// array: nil, the zero Array, or released.
func (a *Array[T]) check(call string) error {
	switch {
	case a == nil:
		return fmt.Errorf("gpuarr.%s: %w", call, errNilArrayArg)
	case a.c.buf == nil:
		return fmt.Errorf("gpuarr.%s: %w", call, errZeroArray)
	case a.c.released.Load():
		return a.c.releasedError(call)
	}
	return nil
}

// mustBeArray panics, naming fn, when a is nil or the zero Array: the
// accessors that return no error (Array.Shape, Array.Len, ...).
func (a *Array[T]) mustBeArray(fn string) {
	if a == nil {
		panic("gpuarr: " + fn + " called on a nil *Array (was the error of the call that made it ignored?)")
	}
	if a.c.buf == nil {
		panic("gpuarr: " + fn + " called on the " + zeroArray)
	}
}

// Err reports whether a can be used: nil for an array made by a
// constructor or a view and not released; an error matching ErrArgument
// for a nil *Array or the zero Array; one matching ErrReleased after
// Release. It never panics.
func (a *Array[T]) Err() error {
	switch {
	case a == nil:
		return errNilArrayArg
	case a.c.buf == nil:
		return errZeroArray
	case a.c.released.Load():
		return fmt.Errorf("%s: %w", a.c.describe(), ErrReleased)
	}
	return nil
}

// The accessors below (Shape, Rank, Len, Bytes, Strides, Device,
// Released) return no error: on a nil *Array or the zero Array they panic
// with a message that says so. They work on released arrays.

// Shape returns a copy of the array's shape.
func (a *Array[T]) Shape() Shape {
	a.mustBeArray("Array.Shape")
	return append(Shape(nil), a.c.shape...)
}

// Rank is the number of axes.
func (a *Array[T]) Rank() int {
	a.mustBeArray("Array.Rank")
	return len(a.c.shape)
}

// Len is the number of elements.
func (a *Array[T]) Len() int {
	a.mustBeArray("Array.Len")
	return a.c.n
}

// Bytes is the size of the elements in bytes.
func (a *Array[T]) Bytes() uint64 {
	a.mustBeArray("Array.Bytes")
	return a.c.nbytes()
}

// Strides are the steps between neighbours along each axis, in elements:
// row-major (the last axis contiguous) except for strided views.
func (a *Array[T]) Strides() []int {
	a.mustBeArray("Array.Strides")
	if a.c.strides() != nil {
		return append([]int(nil), a.c.strides()...)
	}
	return rowMajorStrides(a.c.shape)
}

// Device is the device whose memory holds the array.
func (a *Array[T]) Device() *device.Device {
	a.mustBeArray("Array.Device")
	return a.c.dev()
}

// Released reports whether Release was called on this handle.
func (a *Array[T]) Released() bool {
	a.mustBeArray("Array.Released")
	return a.c.released.Load()
}

// Describe names the array without reading it: "float32[3 4] array on
// host:0", with " (released)" after Release. Unlike String it never
// waits or copies, so it suits messages. It never panics.
func (a *Array[T]) Describe() string {
	switch {
	case a == nil:
		return "nil *Array"
	case a.c.released.Load():
		return a.c.describe() + " (released)"
	}
	return a.c.describe()
}

func sizeOf[T Numeric]() uintptr {
	var zero T
	return unsafe.Sizeof(zero)
}
