// Package dtype is gpuarr's one vocabulary of element types: the DType of
// an array's elements, of a kernel's values, of a matrix product and of a
// collective. It imports nothing of the project, so every layer names
// element types the same way, from the driver contract (device/driver) up
// to the arrays (gpuarr) and the fusion compiler (internal/fusion).
//
// The zero DType is Invalid: a field of type DType that was never set
// says so. Each layer states which DTypes it takes (BLAS: the float and
// complex types; collectives: NCCL's types, driver.CollType; the fusion
// compiler: all of them, package expr's Computes). Element is every Go
// type an array holds: the Go types of each DType, and the types defined
// on them; Go has no 16-bit floats, so Float16 and BFloat16 are package
// half's types, which store the bits (Bool is Go's bool, one byte, 0 or
// 1; the complex types are Go's, the real part first, as C99 and NumPy
// lay them out).
//
//	dtype.Of[float32]()       // Float32
//	dtype.Of[Celsius]()       // Float32, for type Celsius float32
//	dtype.Of[half.Float16]()  // Float16
//	dtype.ElemOf[Celsius]()   // {Float32, "main.Celsius"}: what messages name
package dtype

import (
	"fmt"
	"reflect"
	"sync"

	"github.com/gpuarr/gpuarr/device/dtype/half"
)

// DType is an element type.
type DType uint8

// The element types. The order is part of the contract: signed integers,
// unsigned integers, floats and complex numbers are each a contiguous run,
// from narrow to wide.
const (
	Invalid DType = iota
	Bool
	Int8
	Int16
	Int32
	Int64
	Uint8
	Uint16
	Uint32
	Uint64
	Float16  // IEEE 754 binary16
	BFloat16 // bfloat16: float32's exponent, 8 bits of significand
	Float32
	Float64
	Complex64  // two Float32s
	Complex128 // two Float64s
	numTypes
)

var info = [numTypes]struct {
	name string
	size int
}{
	{"invalid", 0}, {"bool", 1},
	{"int8", 1}, {"int16", 2}, {"int32", 4}, {"int64", 8},
	{"uint8", 1}, {"uint16", 2}, {"uint32", 4}, {"uint64", 8},
	{"float16", 2}, {"bfloat16", 2}, {"float32", 4}, {"float64", 8},
	{"complex64", 8}, {"complex128", 16},
}

// Valid reports whether t is one of the element types above (not Invalid).
func (t DType) Valid() bool { return t > Invalid && t < numTypes }

// String is t's Go-style name ("float32"), or "DType(n)" for a value
// that is none of the element types.
func (t DType) String() string {
	if t < numTypes {
		return info[t].name
	}
	return fmt.Sprintf("DType(%d)", int(t))
}

// Size is an element's size in bytes (Bool: 1), 0 for Invalid or an
// unknown value.
func (t DType) Size() int {
	if t < numTypes {
		return info[t].size
	}
	return 0
}

// IsSigned reports whether t is a signed integer type.
func (t DType) IsSigned() bool { return t >= Int8 && t <= Int64 }

// IsUnsigned reports whether t is an unsigned integer type.
func (t DType) IsUnsigned() bool { return t >= Uint8 && t <= Uint64 }

// IsInt reports whether t is an integer type (not Bool).
func (t DType) IsInt() bool { return t >= Int8 && t <= Uint64 }

// IsFloat reports whether t is a real floating-point type.
func (t DType) IsFloat() bool { return t >= Float16 && t <= Float64 }

// IsComplex reports whether t is a complex type.
func (t DType) IsComplex() bool { return t == Complex64 || t == Complex128 }

// Number is Go's fixed-size integer and floating-point types and the
// types defined on them: the element types Go's arithmetic, comparisons
// and conversions apply to (in generic code too).
type Number interface {
	~int8 | ~int16 | ~int32 | ~int64 |
		~uint8 | ~uint16 | ~uint32 | ~uint64 |
		~float32 | ~float64
}

// Element is every Go type an array holds: Number, bool, the complex
// types (and the types defined on all of these), and package half's
// Float16 and BFloat16.
type Element interface {
	Number | ~bool | ~complex64 | ~complex128 | half.Float16 | half.BFloat16
}

// Of is the DType of T: of its underlying type for a defined type.
func Of[T Element]() DType { return ElemOf[T]().DType }

// Elem is an element type as an array carries it: its DType and the name
// messages give it, the defined type's own for a defined type
// ("main.Celsius"), else the DType's. There is one Elem per Go type (ElemOf)
// and per DType (DType.Elem), so a pointer to it stands for the type.
type Elem struct {
	DType DType
	Name  string
}

// Size is an element's size in bytes.
func (e *Elem) Size() int { return e.DType.Size() }

var predeclared = func() (es [numTypes]Elem) {
	for t := range es {
		es[t] = Elem{DType(t), DType(t).String()}
	}
	return es
}()

// Elem is the Elem of t's predeclared Go type (or t's name).
func (t DType) Elem() *Elem {
	if t < numTypes {
		return &predeclared[t]
	}
	return &Elem{t, t.String()}
}

// kinds are the DTypes of the underlying types of defined element types.
var kinds = map[reflect.Kind]DType{
	reflect.Int8: Int8, reflect.Int16: Int16, reflect.Int32: Int32, reflect.Int64: Int64,
	reflect.Uint8: Uint8, reflect.Uint16: Uint16, reflect.Uint32: Uint32, reflect.Uint64: Uint64,
	reflect.Float32: Float32, reflect.Float64: Float64,
	reflect.Bool: Bool, reflect.Complex64: Complex64, reflect.Complex128: Complex128,
}

// defined holds the Elems of defined element types, made on first use.
var defined sync.Map // reflect.Type → *Elem

// ElemOf is T's Elem.
func ElemOf[T Element]() *Elem {
	var zero T
	// The predeclared types by a type switch (no reflection, no lock):
	// every constructor asks, the common types first.
	switch any(zero).(type) {
	case float32:
		return &predeclared[Float32]
	case float64:
		return &predeclared[Float64]
	case int32:
		return &predeclared[Int32]
	case int64:
		return &predeclared[Int64]
	case int8:
		return &predeclared[Int8]
	case int16:
		return &predeclared[Int16]
	case uint8:
		return &predeclared[Uint8]
	case uint16:
		return &predeclared[Uint16]
	case uint32:
		return &predeclared[Uint32]
	case uint64:
		return &predeclared[Uint64]
	case bool:
		return &predeclared[Bool]
	case half.Float16:
		return &predeclared[Float16]
	case half.BFloat16:
		return &predeclared[BFloat16]
	case complex64:
		return &predeclared[Complex64]
	case complex128:
		return &predeclared[Complex128]
	}
	rt := reflect.TypeFor[T]()
	if v, ok := defined.Load(rt); ok {
		return v.(*Elem)
	}
	v, _ := defined.LoadOrStore(rt, &Elem{kinds[rt.Kind()], rt.String()})
	return v.(*Elem)
}
