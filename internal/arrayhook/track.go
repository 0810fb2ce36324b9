package arrayhook

import (
	"fmt"

	"github.com/gpuarr/gpuarr/device"
	"github.com/gpuarr/gpuarr/gpuarr"
	"github.com/gpuarr/gpuarr/internal/arg"
	"github.com/gpuarr/gpuarr/internal/lifetime"
	"github.com/gpuarr/gpuarr/internal/tracking"
)

// Use is how an operation issued outside package gpuarr (a library call
// on device pointers: a collective, a solver, a vendor kernel) uses one
// array, and on which stream. Make it with Reads, Writes or ReadsWrites;
// Track runs the operation with every Use ordered and recorded.
type Use struct {
	h *lifetime.Handle
	m tracking.Mode
	s *device.Stream
}

// Reads says the operation reads a on s.
func Reads[T gpuarr.Element](a *gpuarr.Array[T], s *device.Stream) Use {
	return Use{handle(a), tracking.Read, s}
}

// Writes says the operation writes a (without reading it) on s.
func Writes[T gpuarr.Element](a *gpuarr.Array[T], s *device.Stream) Use {
	return Use{handle(a), tracking.Write, s}
}

// ReadsWrites says the operation reads and writes a on s.
func ReadsWrites[T gpuarr.Element](a *gpuarr.Array[T], s *device.Stream) Use {
	return Use{handle(a), tracking.ReadWrite, s}
}

// DevicePtr is the device address of a's first element, for issue
// functions given to Track. It is valid only inside issue (Track keeps the
// memory alive and ordered until the work issued there is done); a must be
// contiguous. It panics on a nil *Array or the zero Array, like Array's
// accessors.
func DevicePtr[T gpuarr.Element](a *gpuarr.Array[T]) device.Ptr {
	h := handle(a)
	h.MustBeArray("DevicePtr")
	return h.Ptr()
}

// Track issues work that uses arrays outside gpuarr's own operations, with
// the same ordering as theirs: before issue runs, each Use's stream waits
// (on the device) for other streams' writes of the arrays it reads and for
// other streams' use of the arrays it writes; afterwards later work
// elsewhere waits for it, and an array's memory is not freed or reused
// until the work issue queued on the Use's stream is done. Uses may be on
// different streams and devices (one collective across ranks). issue must
// only queue work on those streams, and must not call gpuarr operations
// on the same arrays (their buffers are locked meanwhile).
//
// A nil, released or non-contiguous array is an error naming call and the
// argument, and issue does not run.
func Track(call string, uses []Use, issue func() error) error {
	o := lifetime.Claim{Call: call}
	for i, u := range uses {
		if u.h == nil {
			return fmt.Errorf("gpuarr.%s: argument %d is a nil array: %w", call, i, arg.ErrArgument)
		}
		if u.h.IsZero() {
			return fmt.Errorf("gpuarr.%s: argument %d is the %w", call, i, arg.ErrZeroArray)
		}
		if u.s == nil {
			return fmt.Errorf("gpuarr.%s: argument %d has no stream: %w", call, i, arg.ErrArgument)
		}
		if !u.h.Contiguous() {
			return fmt.Errorf("gpuarr.%s: argument %d: %w", call, i, arg.Strided(call, u.h.Describe()))
		}
		o.Add(u.h, u.m, u.s)
	}
	if err := o.Begin(false); err != nil {
		return err
	}
	err := issue()
	o.End()
	return err
}
