package gpuarr

import (
	"encoding/binary"
	"fmt"
	"unsafe"

	"github.com/gpuarr/gpuarr/device"
	"github.com/gpuarr/gpuarr/device/dtype"
	"github.com/gpuarr/gpuarr/device/dtype/half"
	"github.com/gpuarr/gpuarr/internal/arg"
	"github.com/gpuarr/gpuarr/internal/fusion"
	"github.com/gpuarr/gpuarr/internal/layout"
	"github.com/gpuarr/gpuarr/internal/lifetime"
	"github.com/gpuarr/gpuarr/internal/tracking"
)

// Empty allocates an array of shape sh whose elements are unspecified.
// Like every constructor it runs on device.Default()'s default stream
// unless an Option says otherwise:
//
//	x, err := gpuarr.Empty[float32](gpuarr.Shape{1024, 1024}, gpuarr.On(s))
func Empty[T Element](sh Shape, opts ...Option) (*Array[T], error) {
	s, err := streamFor("Empty", opts, nil)
	if err != nil {
		return nil, err
	}
	return newArray[T]("Empty", sh, s)
}

// Zeros allocates an array of shape sh filled with zeros (false for
// bool).
func Zeros[T Element](sh Shape, opts ...Option) (*Array[T], error) {
	var zero T
	return full("Zeros", sh, zero, opts)
}

// Ones allocates an array of shape sh filled with ones (true for bool).
func Ones[T Element](sh Shape, opts ...Option) (*Array[T], error) {
	return full("Ones", sh, oneOf[T](), opts)
}

// oneOf is 1 as a T: true, 1, 1.0 or 1+0i.
func oneOf[T Element]() T {
	var v T
	p := unsafe.Pointer(&v)
	switch dtype.Of[T]() {
	case dtype.Bool:
		*(*bool)(p) = true
	case dtype.Int8, dtype.Uint8:
		*(*uint8)(p) = 1
	case dtype.Int16, dtype.Uint16:
		*(*uint16)(p) = 1
	case dtype.Int32, dtype.Uint32:
		*(*uint32)(p) = 1
	case dtype.Int64, dtype.Uint64:
		*(*uint64)(p) = 1
	case dtype.Float16:
		*(*uint16)(p) = half.ToFloat16(1.0).Bits()
	case dtype.BFloat16:
		*(*uint16)(p) = half.ToBFloat16(1.0).Bits()
	case dtype.Float32, dtype.Complex64:
		*(*float32)(p) = 1
	case dtype.Float64, dtype.Complex128:
		*(*float64)(p) = 1
	}
	return v
}

// Full allocates an array of shape sh with every element v.
func Full[T Element](sh Shape, v T, opts ...Option) (*Array[T], error) {
	return full("Full", sh, v, opts)
}

func full[T Element](call string, sh Shape, v T, opts []Option) (*Array[T], error) {
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
	err = a.c.Issue(call, s, tracking.Write, true, func() (err error) {
		unit, err = memsetFill(s, a.c.Ptr(), a.c.Bytes(), pat)
		if err == nil {
			noteFillResize(s, &a.c, unit)
		}
		return err
	})
	if err == nil && unit == 0 {
		// A value whose bytes do not repeat within 4 (most float64s):
		// one fused kernel writing the scalar.
		err = fusion.EvalInto(call, &a.c, Scalar(v).n, s)
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
func FromSlice[T Element](data []T, sh Shape, opts ...Option) (*Array[T], error) {
	const call = "FromSlice"
	s, err := streamFor(call, opts, nil)
	if err != nil {
		return nil, err
	}
	if n, err := layout.Check(call, sh, sizeOf[T]()); err != nil {
		return nil, err
	} else if n != len(data) {
		return nil, arg.Shapef(call, "shape %s has %d elements, the slice has %d", sh.String(), n, len(data))
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

// newArray allocates an uninitialized array of shape sh on s.
func newArray[T Element](call string, sh Shape, s *device.Stream) (*Array[T], error) {
	a := new(Array[T])
	if err := a.c.Make(call, s, sh, dtype.ElemOf[T]()); err != nil {
		return nil, err
	}
	return a, nil
}

// noteFillResize tells a Batched capture on s how the fill of x just
// issued follows the batch size: a memset of a batched array (unit: its
// element size) sets the rows' bytes; a fill left to a kernel (unit 0)
// resizes as that elementwise kernel does.
func noteFillResize(s *device.Stream, x *lifetime.Handle, unit uint64) {
	b := lifetime.BatcherOf(s)
	if b == nil || !lifetime.Batched(b, x) {
		return
	}
	if unit == 0 || x.Bytes() == 0 {
		b.Resizes(s, lifetime.Resize{}, false)
		return
	}
	row := x.Bytes() / uint64(b.MaxBatch())
	if row%unit != 0 {
		b.Fixed(fmt.Sprintf("the fill is a %d-byte memset and a row is %d bytes, not whole memset elements", unit, row))
		return
	}
	b.Resizes(s, lifetime.Resize{RowBytes: row, Memset: true}, true)
}

// memsetFill sets nbytes at p to repetitions of pat (one element) with a
// driver memset when one can: a byte memset when all its bytes agree, a
// 32-bit memset when the element repeats every 4 bytes. It reports the
// memset's unit (1 or 4 bytes), or 0 when neither applies (Full then runs
// a fused fill kernel instead).
func memsetFill(s *device.Stream, p device.Ptr, nbytes uint64, pat []byte) (unit uint64, err error) {
	if nbytes == 0 {
		return 1, nil
	}
	same := true
	for _, b := range pat[1:] {
		same = same && b == pat[0]
	}
	if same {
		return 1, s.Memset8(p, pat[0], nbytes)
	}
	if len(pat) <= 4 && p%4 == 0 && nbytes%4 == 0 {
		var w [4]byte
		for i := range w {
			w[i] = pat[i%len(pat)]
		}
		return 4, s.Memset32(p, binary.LittleEndian.Uint32(w[:]), nbytes/4)
	}
	return 0, nil
}
