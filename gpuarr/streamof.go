package gpuarr

import (
	"fmt"

	"github.com/gpuarr/gpuarr/device"
)

// StreamOf resolves opts the way gpuarr's own operations do, for packages
// that take gpuarr's options and issue work themselves (with Track): the
// stream of the last On or OnDevice, else fallback's default stream, else
// device.Default()'s. Any other option, or a nil one, is an error
// matching ErrArgument that names it; errors do not name the caller's
// operation (the caller does).
func StreamOf(opts []Option, fallback *device.Device) (*device.Stream, error) {
	var s *device.Stream
	for _, o := range opts {
		switch o := o.(type) {
		case *onStream:
			if o == nil {
				return nil, fmt.Errorf("gpuarr.On(nil): %w", ErrArgument)
			}
			s = (*device.Stream)(o)
		case *onDevice:
			if o == nil {
				return nil, fmt.Errorf("gpuarr.OnDevice(nil): %w", ErrArgument)
			}
			s = (*device.Device)(o).DefaultStream()
		case nil:
			return nil, fmt.Errorf("nil Option: %w", ErrArgument)
		default:
			return nil, fmt.Errorf("the option %s is not taken here (only gpuarr.On and gpuarr.OnDevice are): %w", optionName(o), ErrArgument)
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
		return nil, err
	}
	return dev.DefaultStream(), nil
}
