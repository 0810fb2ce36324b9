package arg

import (
	"fmt"
	"sync/atomic"
	"unsafe"

	"github.com/gpuarr/gpuarr/device"
)

// Target is an option that names where work runs (gpuarr.On,
// gpuarr.OnDevice). Its methods are exported for this package's sake only:
// the option types that have them are unexported.
type Target interface {
	// Stream is the stream the option names; nil when it was made from a
	// nil stream or device.
	Stream() *device.Stream
	// String is the option's constructor as the user wrote it
	// ("gpuarr.On").
	String() string
}

// Stream resolves the options of a call to the stream it runs on: the
// stream of the last Target among opts, else fallback's default stream,
// else device.Default()'s. Every option that is not a Target goes to other,
// whose error is returned as it is (nil: the option is taken). A nil
// option or a Target made from nil is an error matching ErrArgument; that
// error and device.Default's start with "pkg.call: " (with call "", just
// "pkg: "; with pkg "" too, nothing).
func Stream[O any](pkg, call string, opts []O, fallback *device.Device, other func(O) error) (*device.Stream, error) {
	if len(opts) > 0 {
		return fromOptions(pkg, call, opts, fallback, other)
	}
	return fallbackNamed(pkg, call, fallback)
}

// Fallback is Stream without options: fallback's default stream, else
// device.Default()'s. Its error (device.Default's) names no call.
func Fallback(fallback *device.Device) (*device.Stream, error) {
	if fallback != nil {
		return fallback.DefaultStream(), nil
	}
	return DefaultStream()
}

// DefaultStream is device.Default()'s default stream. Its error names no
// call.
func DefaultStream() (*device.Stream, error) {
	if s := (*device.Stream)(atomic.LoadPointer(&defaultStream)); s != nil {
		return s, nil
	}
	return defaultStreamSlow()
}

// defaultStream is device.Default()'s default stream once known
// (*device.Stream): the default device is chosen once per process, and its
// default stream made once.
var defaultStream unsafe.Pointer

func defaultStreamSlow() (*device.Stream, error) {
	dev, err := device.Default()
	if err != nil {
		return nil, err
	}
	s := dev.DefaultStream()
	atomic.StorePointer(&defaultStream, unsafe.Pointer(s))
	return s, nil
}

// fallbackNamed is Fallback with errors prefixed as Stream's.
func fallbackNamed(pkg, call string, fallback *device.Device) (*device.Stream, error) {
	s, err := Fallback(fallback)
	if err != nil {
		return nil, prefixed(pkg, call, err)
	}
	return s, nil
}

// TargetStream is the stream t names; a Target made from nil is an error
// matching ErrArgument, prefixed as Stream's.
func TargetStream(pkg, call string, t Target) (*device.Stream, error) {
	if s := t.Stream(); s != nil {
		return s, nil
	}
	return nil, prefixed(pkg, call, fmt.Errorf("%s(nil): %w", t, ErrArgument))
}

// fromOptions is Stream for a call given options.
func fromOptions[O any](pkg, call string, opts []O, fallback *device.Device, other func(O) error) (*device.Stream, error) {
	var s *device.Stream
	for _, o := range opts {
		switch t := any(o).(type) {
		case nil:
			return nil, prefixed(pkg, call, fmt.Errorf("nil Option: %w", ErrArgument))
		case Target:
			var err error
			if s, err = TargetStream(pkg, call, t); err != nil {
				return nil, err
			}
		default:
			if err := other(o); err != nil {
				return nil, err
			}
		}
	}
	if s != nil {
		return s, nil
	}
	return fallbackNamed(pkg, call, fallback)
}

func prefixed(pkg, call string, err error) error {
	switch {
	case pkg == "":
		return err
	case call == "":
		return fmt.Errorf("%s: %w", pkg, err)
	}
	return fmt.Errorf("%s.%s: %w", pkg, call, err)
}
