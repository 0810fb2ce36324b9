package gpuarr

import (
	"fmt"

	"github.com/gpuarr/gpuarr/device"
)

// Option configures one call. Every constructor and operation takes
// options last (Launch takes them among its arguments). Every call takes
// the options that say where it runs:
//
//	gpuarr.On(s)          on stream s (and so on s's device)
//	gpuarr.OnDevice(dev)  on dev's default stream
//
// Without one, constructors run on device.Default()'s default stream, and
// operations on existing arrays on the default stream of the device that
// owns the array they write (Copy: dst; CopyFromHost: the array; Launch:
// its first array argument), so that multi-device code never touches
// another device's memory by accident. When several are given, the last
// one counts.
//
// Other options belong to some calls only: Axis and KeepDims to the
// reductions, TF32 to Matmul and MatmulInto. A call given an option it
// does not take fails with an error matching ErrArgument that names the
// option and the call; nothing is ignored.
type Option interface{ isOption() }

// optionKind classifies options, so that each call can refuse the ones it
// does not take.
type optionKind uint8

const (
	optStream   optionKind = 1 << iota // On, OnDevice: every call
	optAxis                            // Axis: reductions
	optKeepDims                        // KeepDims: reductions
	optTF32                            // TF32: Matmul, MatmulInto
)

// kindOf is o's kind.
func kindOf(o Option) optionKind {
	switch o.(type) {
	case *onStream, *onDevice:
		return optStream
	case axisOption:
		return optAxis
	case keepDimsOption:
		return optKeepDims
	case tf32Option:
		return optTF32
	}
	return 0
}

// optionName is o as the user wrote it, for messages.
func optionName(o Option) string {
	switch o := o.(type) {
	case *onStream:
		return "gpuarr.On"
	case *onDevice:
		return "gpuarr.OnDevice"
	case axisOption:
		return fmt.Sprintf("gpuarr.Axis(%d)", int(o))
	case keepDimsOption:
		return "gpuarr.KeepDims()"
	case tf32Option:
		return "gpuarr.TF32()"
	}
	return fmt.Sprintf("%T", o)
}

// optionUsers says which calls take options of kind k.
func optionUsers(k optionKind) string {
	switch k {
	case optAxis, optKeepDims:
		return "the reductions (Sum, SumAs, Prod, ProdAs, Mean, MeanAs, Min, Max, ArgMin, ArgMax)"
	case optTF32:
		return "Matmul and MatmulInto"
	}
	return "no call"
}

// optionError refuses option o, which call does not take.
func optionError(call string, o Option) error {
	return fmt.Errorf("gpuarr.%s does not take the option %s, an option of %s: %w", call, optionName(o), optionUsers(kindOf(o)), ErrArgument)
}

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
// default stream, else device.Default()'s. Any option other than On and
// OnDevice is an error (see streamTaking).
func streamFor(call string, opts []Option, fallback *device.Device) (*device.Stream, error) {
	return streamTaking(call, opts, fallback, 0)
}

// streamTaking is streamFor for a call that also takes the options of the
// kinds in also (and reads them itself); an option of any other kind is
// an error naming it and call.
func streamTaking(call string, opts []Option, fallback *device.Device, also optionKind) (*device.Stream, error) {
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
			if kindOf(o)&also == 0 {
				return nil, optionError(call, o)
			}
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
