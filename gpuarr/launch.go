package gpuarr

import (
	"fmt"

	"github.com/gpuarr/gpuarr/device"
	"github.com/gpuarr/gpuarr/internal/arg"
	"github.com/gpuarr/gpuarr/internal/lifetime"
	"github.com/gpuarr/gpuarr/internal/tracking"
)

// Arg is an array argument of Launch, saying how the kernel uses it: In
// (reads), Out (writes) or InOut (both). The kernel receives the array's
// device address (its first element).
type Arg interface {
	launchArg() (*lifetime.Handle, tracking.Mode)
}

// The wrappers are pointer-shaped (a pointer to the array's handle), so
// passing one as an `any` allocates nothing.
type (
	inArg    lifetime.Handle
	outArg   lifetime.Handle
	inOutArg lifetime.Handle
	nilArg   struct{}
)

func (a *inArg) launchArg() (*lifetime.Handle, tracking.Mode) {
	return (*lifetime.Handle)(a), tracking.Read
}
func (a *outArg) launchArg() (*lifetime.Handle, tracking.Mode) {
	return (*lifetime.Handle)(a), tracking.Write
}
func (a *inOutArg) launchArg() (*lifetime.Handle, tracking.Mode) {
	return (*lifetime.Handle)(a), tracking.ReadWrite
}
func (nilArg) launchArg() (*lifetime.Handle, tracking.Mode) { return nil, 0 }

// In passes a to a kernel that only reads it.
func In[T Element](a *Array[T]) Arg {
	if a == nil {
		return nilArg{}
	}
	return (*inArg)(&a.c)
}

// Out passes a to a kernel that writes it (and does not read it).
func Out[T Element](a *Array[T]) Arg {
	if a == nil {
		return nilArg{}
	}
	return (*outArg)(&a.c)
}

// InOut passes a to a kernel that reads and writes it.
func InOut[T Element](a *Array[T]) Arg {
	if a == nil {
		return nilArg{}
	}
	return (*inOutArg)(&a.c)
}

// maxArrayArgs bounds Launch's arguments (the driver's limit).
const maxLaunchArgs = 64

// Launch runs kernel k on arrays, ordered by their tracking: the kernel
// waits (on the device) for other streams' writes to arrays it reads and
// for other streams' use of arrays it writes, and later work on other
// streams waits for it in turn. Work that stays on one stream makes no
// extra driver call.
//
// args are the kernel's parameters in order. Arrays are wrapped in In,
// Out or InOut; other values (device.Ptr, int32, uint32, int64, uint64,
// float32, float64) pass through as device.Stream.Launch takes them.
// Options (On, OnDevice; any other is an error) may appear among them
// and are not kernel parameters; put them last:
//
//	err := gpuarr.Launch(k, device.Linear(n, 256),
//		gpuarr.In(x), gpuarr.In(y), gpuarr.Out(z), uint64(n),
//		gpuarr.On(s))
//
// Without an Option the kernel runs on the default stream of its first
// array argument's device (device.Default()'s when it has none). An array
// of another device is used through peer access, which Launch enables the
// first time; when the devices cannot be peers the error names both and
// the remedies.
func Launch(k *device.Kernel, cfg device.LaunchConfig, args ...any) error {
	const call = "Launch"
	if k == nil {
		return fmt.Errorf("gpuarr.%s: nil kernel: %w", call, ErrArgument)
	}
	// One pass: kernel arguments, array accesses (their stream is known
	// only at the end) and the last option.
	o := lifetime.Claim{Call: call}
	var last Option
	var kbuf [16]any
	kargs := kbuf[:0]
	for i, x := range args {
		switch v := x.(type) {
		case Arg:
			c, m := v.launchArg()
			if c == nil {
				return fmt.Errorf("gpuarr.%s %s: argument %d is a nil array: %w", call, k.Name(), i, ErrArgument)
			}
			if c.IsZero() {
				return fmt.Errorf("gpuarr.%s %s: argument %d is the %w", call, k.Name(), i, arg.ErrZeroArray)
			}
			if !c.Contiguous() {
				return fmt.Errorf("gpuarr.%s %s: argument %d: %w", call, k.Name(), i, stridedError(call, c))
			}
			o.Add(c, m, nil)
			kargs = append(kargs, c) // a device.PtrArg: no allocation
		case Option:
			if kindOf(v) != optStream {
				return optionError(call, v)
			}
			last = v
		case interface{ isArray() }:
			return fmt.Errorf("gpuarr.%s %s: argument %d is an array: wrap it in gpuarr.In, Out or InOut to say how the kernel uses it: %w",
				call, k.Name(), i, ErrArgument)
		default:
			kargs = append(kargs, x)
		}
	}
	if len(kargs) > maxLaunchArgs {
		return fmt.Errorf("gpuarr.%s %s: %d arguments, at most %d: %w", call, k.Name(), len(kargs), maxLaunchArgs, ErrArgument)
	}
	var s *device.Stream
	var err error
	switch {
	case last != nil:
		s, err = arg.TargetStream("gpuarr", call, last.(arg.Target))
	case o.Len() > 0:
		s = o.Handle(0).Device().DefaultStream()
	default:
		s, err = streamFor(call, nil, nil)
	}
	if err != nil {
		return err
	}
	o.SetStream(s)
	if err := o.BeginLaunch(); err != nil {
		return err
	}
	err = o.Launch(s, k, cfg, kargs...)
	o.End()
	if err != nil {
		return fmt.Errorf("gpuarr.%s: %w", call, err)
	}
	return nil
}
