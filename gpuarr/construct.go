package gpuarr

import (
	"fmt"
	"unsafe"

	"github.com/gpuarr/gpuarr/device"
)

// Empty allocates an array of shape sh whose elements are unspecified.
// Like every constructor it runs on device.Default()'s default stream
// unless an Option says otherwise:
//
//	x, err := gpuarr.Empty[float32](gpuarr.Shape{1024, 1024}, gpuarr.On(s))
func Empty[T Numeric](sh Shape, opts ...Option) (*Array[T], error) {
	s, err := streamFor("Empty", opts, nil)
	if err != nil {
		return nil, err
	}
	return newArray[T]("Empty", sh, s)
}

// Zeros allocates an array of shape sh filled with zeros.
func Zeros[T Numeric](sh Shape, opts ...Option) (*Array[T], error) {
	return full[T]("Zeros", sh, 0, opts)
}

// Ones allocates an array of shape sh filled with ones.
func Ones[T Numeric](sh Shape, opts ...Option) (*Array[T], error) {
	return full[T]("Ones", sh, 1, opts)
}

// Full allocates an array of shape sh with every element v.
func Full[T Numeric](sh Shape, v T, opts ...Option) (*Array[T], error) {
	return full("Full", sh, v, opts)
}

func full[T Numeric](call string, sh Shape, v T, opts []Option) (*Array[T], error) {
	s, err := streamFor(call, opts, nil)
	if err != nil {
		return nil, err
	}
	a, err := newArray[T](call, sh, s)
	if err != nil {
		return nil, err
	}
	pat := unsafe.Slice((*byte)(unsafe.Pointer(&v)), unsafe.Sizeof(v))
	var unit uint64
	err = a.issue(call, s, modeWrite, true, func() (err error) {
		unit, err = memsetFill(s, a.c.ptr(), a.c.nbytes(), pat)
		if err == nil {
			noteFillResize(s, &a.c, unit)
		}
		return err
	})
	if err == nil && unit == 0 {
		// A value whose bytes do not repeat within 4 (most float64s):
		// one fused kernel writing the scalar.
		err = evalInto(call, &a.c, Scalar(v).n, s)
	}
	if err != nil {
		_ = a.Release()
		return nil, err
	}
	return a, nil
}

// FromSlice allocates an array of shape sh holding a copy of data, which
// must have exactly sh's element count (Shape{len(data)} for a vector).
// data may be reused as soon as FromSlice returns.
func FromSlice[T Numeric](data []T, sh Shape, opts ...Option) (*Array[T], error) {
	const call = "FromSlice"
	s, err := streamFor(call, opts, nil)
	if err != nil {
		return nil, err
	}
	if n, err := checkShape(call, sh, sizeOf[T]()); err != nil {
		return nil, err
	} else if n != len(data) {
		return nil, shapeError(call, "shape %s has %d elements, the slice has %d", sh.String(), n, len(data))
	}
	a, err := newArray[T](call, sh, s)
	if err != nil {
		return nil, err
	}
	if err := a.upload(call, s, data); err != nil {
		_ = a.Release()
		return nil, err
	}
	return a, nil
}

// issue runs fn, which issues work on s using a in mode m, as one op.
func (a *Array[T]) issue(call string, s *device.Stream, m mode, peers bool, fn func() error) error {
	o := op{call: call}
	o.add(&a.c, m, s)
	if err := o.begin(peers); err != nil {
		return err
	}
	err := fn()
	o.end()
	if err != nil {
		return fmt.Errorf("gpuarr.%s: %s: %w", call, a.c.describe(), err)
	}
	return nil
}
