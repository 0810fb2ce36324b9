package numpytest_test

import (
	"errors"
	"fmt"
	"unsafe"

	"github.com/gpuarr/gpuarr/device/dtype"
	"github.com/gpuarr/gpuarr/gpuarr"
)

// The interpreter's values: an array or a lazy expression of one element
// type, a mask (a comparison), or the several results of one call.

type value interface {
	// dtype is the element type's name ("float32"; "bool" for a mask).
	dtype() string
	// download copies the value's elements to the host, evaluating it
	// first when it is lazy.
	download(sc *scope) ([]hostArray, error)
}

type arrayVal[T gpuarr.Element] struct{ a *gpuarr.Array[T] }

type exprVal[T gpuarr.Element] struct{ e gpuarr.Expr[T] }

type maskVal struct{ m gpuarr.Mask }

type tupleVal []value

func typeName[T gpuarr.Element]() string { return dtype.Of[T]().String() }

func (arrayVal[T]) dtype() string { return typeName[T]() }
func (exprVal[T]) dtype() string  { return typeName[T]() }
func (maskVal) dtype() string     { return "bool" }
func (v tupleVal) dtype() string {
	if len(v) == 0 {
		return "tuple"
	}
	return v[0].dtype()
}

func (v arrayVal[T]) download(*scope) ([]hostArray, error) {
	xs, err := v.a.ToSlice()
	if err != nil {
		return nil, err
	}
	return []hostArray{{t: typeName[T](), shape: v.a.Shape(), raw: asBytes(xs)}}, nil
}

func (v exprVal[T]) download(sc *scope) ([]hostArray, error) {
	a, err := gpuarr.Eval(v.e)
	if err != nil {
		return nil, err
	}
	sc.keep(a)
	return arrayVal[T]{a}.download(sc)
}

func (v maskVal) download(sc *scope) ([]hostArray, error) {
	h, err := exprVal[uint8]{gpuarr.FromMask[uint8](v.m)}.download(sc)
	if err != nil {
		return nil, err
	}
	h[0].t = "bool"
	return h, nil
}

func (v tupleVal) download(sc *scope) ([]hostArray, error) {
	var out []hostArray
	for _, x := range v {
		h, err := x.download(sc)
		if err != nil {
			return nil, err
		}
		out = append(out, h...)
	}
	return out, nil
}

// asBytes is a slice's memory as bytes (the goldens' little-endian layout
// on the little-endian machines gpuarr runs on).
func asBytes[T any](xs []T) []byte {
	if len(xs) == 0 {
		return []byte{}
	}
	var zero T
	return append([]byte(nil), unsafe.Slice((*byte)(unsafe.Pointer(&xs[0])), len(xs)*int(unsafe.Sizeof(zero)))...)
}

// fromBytes reads little-endian elements.
func fromBytes[T any](b []byte) []T {
	var zero T
	n := len(b) / int(unsafe.Sizeof(zero))
	out := make([]T, n)
	if n > 0 {
		copy(unsafe.Slice((*byte)(unsafe.Pointer(&out[0])), len(b)), b)
	}
	return out
}

// errOperand: a value of the wrong kind reached a row (a golden file or
// interpreter defect, reported as the case's failure).
var errOperand = errors.New("operand of the wrong kind")

func operand[T gpuarr.Element](v value) (gpuarr.Operand[T], error) {
	if m, ok := v.(maskVal); ok {
		if o, ok := any(m.m).(gpuarr.Operand[T]); ok {
			return o, nil // a mask is an operand of bool
		}
	}
	switch x := v.(type) {
	case arrayVal[T]:
		return x.a, nil
	case exprVal[T]:
		return x.e, nil
	}
	return nil, fmt.Errorf("%w: %T where an operand of %s is needed", errOperand, v, typeName[T]())
}

func arrayOf[T gpuarr.Element](v value) (*gpuarr.Array[T], error) {
	if x, ok := v.(arrayVal[T]); ok {
		return x.a, nil
	}
	return nil, fmt.Errorf("%w: %T where an array of %s is needed", errOperand, v, typeName[T]())
}

func maskOf(v value) (gpuarr.Mask, error) {
	if x, ok := v.(maskVal); ok {
		return x.m, nil
	}
	b, err := operand[bool](v)
	if err != nil {
		return gpuarr.Mask{}, fmt.Errorf("%w: %T where a mask is needed", errOperand, v)
	}
	return gpuarr.NotEqual(b, gpuarr.Scalar(false)), nil // a bool array or expression as a mask
}

// scope holds the arrays one case made, released when it ends.
type scope struct {
	rel []interface{ Release() error }
}

func (s *scope) keep(a interface{ Release() error }) { s.rel = append(s.rel, a) }

func (s *scope) release() error {
	var first error
	for i := len(s.rel) - 1; i >= 0; i-- {
		if err := s.rel[i].Release(); err != nil && first == nil {
			first = err
		}
	}
	s.rel = nil
	return first
}

// upload makes an array of T from little-endian bytes.
func upload[T gpuarr.Element](sc *scope, h hostArray) (value, error) {
	a, err := gpuarr.FromSlice(fromBytes[T](h.raw), gpuarr.Shape(h.shape))
	if err != nil {
		return nil, err
	}
	sc.keep(a)
	return arrayVal[T]{a}, nil
}
