package gpuarr

import (
	"fmt"

	"github.com/gpuarr/gpuarr/device"
)

// Option says where an operation runs. Every constructor and operation
// takes options last (Launch takes them among its arguments):
//
//	gpuarr.On(s)          on stream s (and so on s's device)
//	gpuarr.OnDevice(dev)  on dev's default stream
//
// Without one, constructors run on device.Default()'s default stream, and
// operations on existing arrays on the default stream of the device that
// owns the array they write (Copy: dst; CopyFromHost: the array; Launch:
// its first array argument), so that multi-device code never touches
// another device's memory by accident. When several options are given,
// the last one counts.
type Option interface{ isOption() }

// onStream and onDevice are pointer-shaped, so an Option holds them
// without allocating.
type (
	onStream device.Stream
	onDevice device.Device
)

func (*onStream) isOption() {}
func (*onDevice) isOption() {}

// On runs an operation on stream s. A goroutine that wants its work to
// overlap with other goroutines' takes a stream of its own; the arrays'
// tracking orders the streams wherever they share data.
func On(s *device.Stream) Option { return (*onStream)(s) }

// OnDevice runs an operation on dev's default stream.
func OnDevice(dev *device.Device) Option { return (*onDevice)(dev) }

// streamFor resolves options to a stream: the last option, else fallback's
// default stream, else device.Default()'s.
func streamFor(call string, opts []Option, fallback *device.Device) (*device.Stream, error) {
	var s *device.Stream
	for _, o := range opts {
		switch o := o.(type) {
		case *onStream:
			if o == nil {
				return nil, fmt.Errorf("gpuarr.%s: gpuarr.On(nil): %w", call, ErrArgument)
			}
			s = (*device.Stream)(o)
		case *onDevice:
			if o == nil {
				return nil, fmt.Errorf("gpuarr.%s: gpuarr.OnDevice(nil): %w", call, ErrArgument)
			}
			s = (*device.Device)(o).DefaultStream()
		case nil:
			return nil, fmt.Errorf("gpuarr.%s: nil Option: %w", call, ErrArgument)
		default:
			// An option of another kind (Axis, TF32): the operation that
			// takes it reads it; it does not choose a stream.
		}
	}
	if s != nil {
		return s, nil
	}
	if fallback != nil {
		return fallback.DefaultStream(), nil
	}
	dev, err := device.Default()
	if err != nil {
		return nil, fmt.Errorf("gpuarr.%s: %w", call, err)
	}
	return dev.DefaultStream(), nil
}
