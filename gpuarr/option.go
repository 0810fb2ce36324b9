package gpuarr

import (
	"fmt"

	"github.com/gpuarr/gpuarr/device"
	"github.com/gpuarr/gpuarr/internal/arg"
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
type optionKind uint32

const (
	optStream        optionKind = 1 << iota // On, OnDevice: every call
	optAxis                                 // Axis: reductions, sorts, scans, indexing, joins
	optKeepDims                             // KeepDims: reductions
	optTF32                                 // TF32: Matmul, MatmulInto
	optIndexMode                            // Clip, Wrap: Take, TakeAlongAxis, Put
	optDeterministic                        // Deterministic: Put, IndexAdd
	optDescending                           // Descending: Sort, Argsort
	optSmallest                             // Smallest: TopK
	optRight                                // Right: SearchSorted
	optExclusive                            // Exclusive: the scans
	optMinLength                            // MinLength: Bincount
	optRange                                // Range: Histogram
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
	case indexModeOption:
		return optIndexMode
	case deterministicOption:
		return optDeterministic
	case descendingOption:
		return optDescending
	case smallestOption:
		return optSmallest
	case rightOption:
		return optRight
	case exclusiveOption:
		return optExclusive
	case minLengthOption:
		return optMinLength
	case rangeOption:
		return optRange
	}
	return 0
}

// optionName is o as the user wrote it, for messages.
func optionName(o Option) string {
	if s, ok := o.(fmt.Stringer); ok {
		return s.String()
	}
	return fmt.Sprintf("%T", o)
}

// optionUsers says which calls take options of kind k.
func optionUsers(k optionKind) string {
	switch k {
	case optAxis:
		return "the reductions (Sum, SumAs, Prod, ProdAs, Mean, MeanAs, Min, Max, ArgMin, ArgMax), the sorts, the scans, " +
			"the indexing functions (Take, TakeAlongAxis, IndexAdd, Compress) and the joins"
	case optKeepDims:
		return "the reductions (Sum, SumAs, Prod, ProdAs, Mean, MeanAs, Min, Max, ArgMin, ArgMax)"
	case optTF32:
		return "Matmul and MatmulInto"
	case optIndexMode:
		return "Take, TakeAlongAxis and Put"
	case optDeterministic:
		return "Put and IndexAdd"
	case optDescending:
		return "Sort and Argsort"
	case optSmallest:
		return "TopK"
	case optRight:
		return "SearchSorted"
	case optExclusive:
		return "the scans (Cumsum, CumsumAs, Cumprod, CumprodAs, Cummax, Cummin)"
	case optMinLength:
		return "Bincount and BincountWeights"
	case optRange:
		return "Histogram"
	}
	return "no call"
}

// optionError refuses option o, which call does not take.
func optionError(call string, o Option) error {
	return fmt.Errorf("gpuarr.%s does not take the option %s, an option of %s: %w", call, optionName(o), optionUsers(kindOf(o)), ErrArgument)
}

// onStream and onDevice are pointer-shaped, so an Option holds them
// without allocating. They are arg.Targets: the options that say where a
// call runs, for gpuarr's calls and for the packages beside it that take
// gpuarr's options (internal/arrayhook).
type (
	onStream device.Stream
	onDevice device.Device
)

func (*onStream) isOption() {}
func (*onDevice) isOption() {}

func (o *onStream) Stream() *device.Stream { return (*device.Stream)(o) }
func (o *onDevice) Stream() *device.Stream {
	if o == nil {
		return nil
	}
	return (*device.Device)(o).DefaultStream()
}
func (*onStream) String() string { return "gpuarr.On" }
func (*onDevice) String() string { return "gpuarr.OnDevice" }

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
	if len(opts) == 0 {
		if fallback != nil {
			return fallback.DefaultStream(), nil
		}
		s, err := arg.DefaultStream()
		if err != nil {
			return nil, fmt.Errorf("gpuarr.%s: %w", call, err)
		}
		return s, nil
	}
	return arg.Stream("gpuarr", call, opts, fallback, func(o Option) error {
		if kindOf(o)&also == 0 {
			return optionError(call, o)
		}
		return nil
	})
}
