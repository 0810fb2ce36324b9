package gpuarr

import (
	"unsafe"

	"github.com/gpuarr/gpuarr/device"
	"github.com/gpuarr/gpuarr/internal/layout"
	"github.com/gpuarr/gpuarr/internal/lifetime"
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
type Array[T Element] struct {
	// c is the array without its element type (internal/lifetime): the
	// first and only field, so a pointer to it keeps the Array alive and
	// internal/arrayhook reaches it from an *Array.
	c lifetime.Handle
}

// h is a's handle, nil for a nil *Array.
func (a *Array[T]) h() *lifetime.Handle {
	if a == nil {
		return nil
	}
	return &a.c
}

// isArray marks arrays passed to Launch without In, Out or InOut.
func (*Array[T]) isArray() {}

// check is the error operation call gives for a when a is not a usable
// array: nil, the zero Array, or released.
func (a *Array[T]) check(call string) error { return a.h().Check(call) }

// Err reports whether a can be used: nil for an array made by a
// constructor or a view and not released; an error matching ErrArgument
// for a nil *Array or the zero Array; one matching ErrReleased after
// Release. It never panics.
func (a *Array[T]) Err() error { return a.h().Err() }

// The accessors below (Shape, Rank, Len, Bytes, Strides, Device,
// Released) return no error: on a nil *Array or the zero Array they panic
// with a message that says so. They work on released arrays.

// Shape returns a copy of the array's shape.
func (a *Array[T]) Shape() Shape {
	a.h().MustBeArray("Array.Shape")
	return append(Shape(nil), a.c.Shape()...)
}

// Rank is the number of axes.
func (a *Array[T]) Rank() int {
	a.h().MustBeArray("Array.Rank")
	return len(a.c.Shape())
}

// Len is the number of elements.
func (a *Array[T]) Len() int {
	a.h().MustBeArray("Array.Len")
	return a.c.Len()
}

// Bytes is the size of the elements in bytes.
func (a *Array[T]) Bytes() uint64 {
	a.h().MustBeArray("Array.Bytes")
	return a.c.Bytes()
}

// Strides are the steps between neighbours along each axis, in elements:
// row-major (the last axis contiguous) except for strided views.
func (a *Array[T]) Strides() []int {
	a.h().MustBeArray("Array.Strides")
	if st := a.c.Strides(); st != nil {
		return append([]int(nil), st...)
	}
	return layout.RowMajorStrides(a.c.Shape())
}

// Device is the device whose memory holds the array.
func (a *Array[T]) Device() *device.Device {
	a.h().MustBeArray("Array.Device")
	return a.c.Device()
}

// Released reports whether Release was called on this handle.
func (a *Array[T]) Released() bool {
	a.h().MustBeArray("Array.Released")
	return a.c.Released()
}

// Describe names the array without reading it: "float32[3 4] array on
// host:0", with " (released)" after Release. Unlike String it never
// waits or copies, so it suits messages. It never panics.
func (a *Array[T]) Describe() string {
	switch {
	case a == nil:
		return "nil *Array"
	case a.c.Released():
		return a.c.Describe() + " (released)"
	}
	return a.c.Describe()
}

// Release gives the array's memory back now instead of when the GC finds
// the array unreachable: tight loops call it (or defer it) so memory is
// reused at once. Views taken from the array keep the memory until they
// are released too. After Release every use of this handle fails with an
// error matching ErrReleased that names the array; Release itself may be
// called again and then does nothing and returns nil.
//
// The memory returns to the pool in stream order: work already issued on
// any stream that uses the array still sees it.
//
// Release of a nil *Array does nothing and returns nil; of the zero Array
// it returns an error matching ErrArgument.
func (a *Array[T]) Release() error {
	if a == nil {
		return nil
	}
	return a.c.Release()
}

func sizeOf[T Element]() uintptr {
	var zero T
	return unsafe.Sizeof(zero)
}
