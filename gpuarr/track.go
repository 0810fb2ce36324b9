package gpuarr

import (
	"fmt"

	"github.com/gpuarr/gpuarr/device"
)

// Use is how an operation issued outside this package (a library call on
// device pointers: a collective, a vendor kernel) uses one array, and on
// which stream. Make it with Reads, Writes or ReadsWrites; Track runs the
// operation with every Use ordered and recorded.
type Use struct {
	c *core
	m mode
	s *device.Stream
}

// Reads says the operation reads a on s.
func Reads[T Numeric](a *Array[T], s *device.Stream) Use { return use(a, modeRead, s) }

// Writes says the operation writes a (without reading it) on s.
func Writes[T Numeric](a *Array[T], s *device.Stream) Use { return use(a, modeWrite, s) }

// ReadsWrites says the operation reads and writes a on s.
func ReadsWrites[T Numeric](a *Array[T], s *device.Stream) Use {
	return use(a, modeReadWrite, s)
}

func use[T Numeric](a *Array[T], m mode, s *device.Stream) Use {
	if a == nil {
		return Use{m: m, s: s}
	}
	return Use{c: &a.c, m: m, s: s}
}

// DevicePtr is the device address of a's first element, for issue
// functions given to Track. It is valid only inside issue (Track keeps the
// memory alive and ordered until the work issued there is done); a must be
// contiguous. It panics on a nil *Array or the zero Array, like Array's
// accessors.
func DevicePtr[T Numeric](a *Array[T]) device.Ptr {
	a.mustBeArray("DevicePtr")
	return a.c.ptr()
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
	o := op{call: call}
	for i, u := range uses {
		if u.c == nil {
			return fmt.Errorf("gpuarr.%s: argument %d is a nil array: %w", call, i, ErrArgument)
		}
		if u.c.buf == nil {
			return fmt.Errorf("gpuarr.%s: argument %d is the %w", call, i, errZeroArray)
		}
		if u.s == nil {
			return fmt.Errorf("gpuarr.%s: argument %d has no stream: %w", call, i, ErrArgument)
		}
		if !u.c.contiguous() {
			return fmt.Errorf("gpuarr.%s: argument %d: %w", call, i, stridedError(call, u.c))
		}
		o.add(u.c, u.m, u.s)
	}
	if err := o.begin(false); err != nil {
		return err
	}
	err := issue()
	o.end()
	return err
}
