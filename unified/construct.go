package unified

import (
	"errors"
	"fmt"

	"github.com/gpuarr/gpuarr/device"
	"github.com/gpuarr/gpuarr/gpuarr"
	"github.com/gpuarr/gpuarr/internal/arrayhook"
)

// Option configures a constructor.
type Option func(*config)

type config struct {
	s         *device.Stream
	dev       *device.Device
	oversub   bool
	badOption string
}

// On makes the constructor allocate (and initialize) in the order of s, on
// s's device.
func On(s *device.Stream) Option {
	return func(c *config) {
		if s == nil {
			c.badOption = "unified.On(nil)"
		}
		c.s = s
	}
}

// OnDevice makes the constructor allocate on dev, in the order of its
// default stream.
func OnDevice(dev *device.Device) Option {
	return func(c *config) {
		if dev == nil {
			c.badOption = "unified.OnDevice(nil)"
		}
		c.dev = dev
	}
}

// AllowOversubscribe lets a managed allocation exceed the device's free
// memory. The driver then pages managed memory between host and device,
// which on some systems stalls the GPU for every process using it: opt in
// only when you know your system handles it. Such an array's memory is a
// managed allocation of its own, not cached when freed.
func AllowOversubscribe() Option { return func(c *config) { c.oversub = true } }

func (c *config) stream(call string) (*device.Stream, error) {
	if c.badOption != "" {
		return nil, fmt.Errorf("unified.%s: %s: %w", call, c.badOption, gpuarr.ErrArgument)
	}
	switch {
	case c.s != nil:
		return c.s, nil
	case c.dev != nil:
		return c.dev.DefaultStream(), nil
	}
	dev, err := device.Default()
	if err != nil {
		return nil, fmt.Errorf("unified.%s: %w", call, err)
	}
	return dev.DefaultStream(), nil
}

// Empty allocates a managed array of shape sh with unspecified elements.
// It is a *gpuarr.Array like any other (expressions, reductions, Matmul,
// Launch, Copy, views, Release); in addition the CPU reads and writes its
// elements in place through a View (Host), Borrow, All and Values. Its
// memory is the memory every array of the device gets under
// gpuarr.UnifiedMemory (memory.DefaultManaged): a caching pool of managed
// memory, so that a size freed before is reused without a driver call.
//
// A request that the device's free memory cannot hold, beside the managed
// memory allocated earlier and not yet on the device, is refused with an
// *OversubscribeError (matching device.ErrOutOfMemory), allocating
// nothing, unless AllowOversubscribe is given; before refusing, the reclaim
// ladder frees what unreachable arrays hold and the pools give their
// cached memory back. Managed memory also counts against the device's hard
// memory limit (GPUARR_HARD_MEMORY_LIMIT), with the same ladder before a
// refusal, and, being memory the CPU may hold, against gcpressure's
// host-memory account; eager collection sees it.
func Empty[T gpuarr.Element](sh gpuarr.Shape, opts ...Option) (*gpuarr.Array[T], error) {
	a, _, err := alloc[T]("Empty", sh, opts)
	return a, err
}

// Zeros allocates a managed array of shape sh filled with zeros (by the
// GPU, in stream order).
func Zeros[T gpuarr.Element](sh gpuarr.Shape, opts ...Option) (*gpuarr.Array[T], error) {
	a, s, err := alloc[T]("Zeros", sh, opts)
	if err != nil {
		return nil, err
	}
	var zero T
	if err := gpuarr.EvalInto(a, gpuarr.Scalar(zero), gpuarr.On(s)); err != nil {
		_ = a.Release()
		return nil, fmt.Errorf("unified.Zeros: %w", err)
	}
	return a, nil
}

// FromSlice allocates a managed array of shape sh holding a copy of data
// (written by the CPU: no transfer is queued). data must have exactly sh's
// element count.
func FromSlice[T gpuarr.Element](data []T, sh gpuarr.Shape, opts ...Option) (*gpuarr.Array[T], error) {
	n := 1
	for _, d := range sh {
		n *= d
	}
	if n != len(data) {
		return nil, fmt.Errorf("unified.FromSlice: shape %v has %d elements, the slice has %d: %w", sh, n, len(data), gpuarr.ErrShape)
	}
	a, _, err := alloc[T]("FromSlice", sh, opts)
	if err != nil {
		return nil, err
	}
	v, err := host("FromSlice", a)
	if err != nil {
		_ = a.Release()
		return nil, err
	}
	copy(v.vec, data)
	return a, nil
}

func alloc[T gpuarr.Element](call string, sh gpuarr.Shape, opts []Option) (*gpuarr.Array[T], *device.Stream, error) {
	var c config
	for _, o := range opts {
		if o == nil {
			return nil, nil, fmt.Errorf("unified.%s: nil Option: %w", call, gpuarr.ErrArgument)
		}
		o(&c)
	}
	s, err := c.stream(call)
	if err != nil {
		return nil, nil, err
	}
	dev := s.Device()
	if !dev.Info().ManagedMemory {
		return nil, nil, fmt.Errorf("unified.%s: %s has no managed memory: %w", call, dev, device.ErrNotSupported)
	}
	res, err := managedResource(dev, c.oversub)
	if err != nil {
		return nil, nil, fmt.Errorf("unified.%s: %w", call, err)
	}
	for _, d := range sh {
		if d < 0 {
			return nil, nil, fmt.Errorf("unified.%s: negative dimension in shape %v: %w", call, sh, gpuarr.ErrShape)
		}
	}
	a, err := arrayhook.EmptyFrom[T](res, sh, gpuarr.On(s))
	var oe *OversubscribeError
	switch {
	case errors.As(err, &oe):
		return nil, nil, oe // it names the request and the device
	case err != nil:
		return nil, nil, fmt.Errorf("unified.%s: %w", call, err)
	}
	return a, s, nil
}
