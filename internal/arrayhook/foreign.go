package arrayhook

import (
	"fmt"

	"github.com/gpuarr/gpuarr/device"
	"github.com/gpuarr/gpuarr/device/dtype"
	"github.com/gpuarr/gpuarr/gpuarr"
	"github.com/gpuarr/gpuarr/internal/arg"
	"github.com/gpuarr/gpuarr/memory"
)

// EmptyFrom allocates an array of shape sh whose memory comes from res
// instead of the device's default resource. It is an ordinary array in
// every way (views, expressions, copies, tracking, Release, cleanup); its
// memory goes back to res, stream-ordered, when the last handle goes. The
// stream (an On or OnDevice option, else res's device's default stream)
// must belong to res's device; any other option is an error.
func EmptyFrom[T gpuarr.Element](res memory.Resource, sh gpuarr.Shape, opts ...gpuarr.Option) (*gpuarr.Array[T], error) {
	const call = "EmptyFrom"
	if res == nil {
		return nil, fmt.Errorf("gpuarr.%s: nil resource: %w", call, arg.ErrArgument)
	}
	s, err := streamOf(call, opts, res.Device())
	if err != nil {
		return nil, err
	}
	if s.Device() != res.Device() {
		return nil, fmt.Errorf("gpuarr.%s: a stream of %s with a resource of %s: %w", call, s.Device(), res.Device(), arg.ErrArgument)
	}
	a := new(gpuarr.Array[T])
	if err := handle(a).MakeFrom(call, s, res, sh, dtype.ElemOf[T]()); err != nil {
		return nil, err
	}
	return a, nil
}

// StreamOf resolves opts the way gpuarr's own operations do, for packages
// that take gpuarr's options and issue work themselves (with Track): the
// stream of the last On or OnDevice, else fallback's default stream, else
// device.Default()'s. Any other option, or a nil one, is an error
// matching gpuarr.ErrArgument that names it; errors do not name the
// caller's operation (the caller does).
func StreamOf(opts []gpuarr.Option, fallback *device.Device) (*device.Stream, error) {
	return streamOf("", opts, fallback)
}

// streamOf is StreamOf whose errors name call (when not "").
func streamOf(call string, opts []gpuarr.Option, fallback *device.Device) (*device.Stream, error) {
	pkg := "gpuarr"
	if call == "" {
		pkg = ""
	}
	return arg.Stream(pkg, call, opts, fallback, func(o gpuarr.Option) error {
		if call == "" {
			return fmt.Errorf("the option %v is not taken here (only gpuarr.On and gpuarr.OnDevice are): %w", o, arg.ErrArgument)
		}
		return fmt.Errorf("gpuarr.%s does not take the option %v (only gpuarr.On and gpuarr.OnDevice): %w", call, o, arg.ErrArgument)
	})
}
