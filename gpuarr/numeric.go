package gpuarr

import (
	"github.com/gpuarr/gpuarr/device/dtype"
	"github.com/gpuarr/gpuarr/device/dtype/half"
)

// The element types, grouped as NumPy groups its scalar types (generic,
// number, integer and floating, complexfloating, bool_). An Array[T]
// holds any Element; each function's constraint says which it takes, so
// that a call it cannot compute does not compile:
//
//	Element       every element type: Number and bool
//	Number        RealNumber and ComplexFloat: arithmetic (Add, Mul, Sum, …)
//	Ordered       RealNumber and bool (false < true): comparisons, Min, Max
//	RealNumber    Numeric and the 16-bit floats
//	Numeric       Go's integer and floating-point types
//	Floating      the floating-point types, Float and the 16-bit floats
//	Float         float32 and float64
//	Inexact       Floating and ComplexFloat: Matmul
//	ComplexFloat  complex64 and complex128
//
// Types defined on Go's (type Celsius float32) belong where their
// underlying type does. Go has no 16-bit floats: Float16 and BFloat16
// are structs holding the bits (package half), made with ToFloat16 and
// ToBFloat16 and read with their Float32 method; arrays of them compute
// in float32 and round each result to nearest, ties to even, as NumPy
// and PyTorch do. A bool element is one byte, 0 or 1. A complex element
// is Go's complex64 or complex128: the real part, then the imaginary part
// (C99's and NumPy's layout).
type (
	// Element is every element type an Array holds.
	Element = dtype.Element

	// Numeric is Go's fixed-size integer and floating-point types, and
	// types defined on them (dtype.Number): the element types Go's own
	// arithmetic and conversions apply to.
	Numeric = dtype.Number

	// Float is float32 and float64: what random numbers and most math
	// functions (Pow, Sigmoid, ...) take.
	Float interface{ ~float32 | ~float64 }

	// Floating is every floating-point element type: Float and the 16-bit
	// floats (NumPy's floating).
	Floating interface {
		Float | Float16 | BFloat16
	}

	// RealNumber is every real number type: Numeric and the 16-bit
	// floats.
	RealNumber interface {
		Numeric | Float16 | BFloat16
	}

	// ComplexFloat is complex64 and complex128.
	ComplexFloat interface{ ~complex64 | ~complex128 }

	// Number is every type arithmetic applies to: RealNumber and
	// ComplexFloat (every element type but bool).
	Number interface {
		RealNumber | ComplexFloat
	}

	// Ordered is every type with an order: RealNumber, and bool (false <
	// true, as NumPy orders it).
	Ordered interface {
		RealNumber | ~bool
	}

	// Inexact is the floating-point and complex types (NumPy's inexact):
	// the types Matmul multiplies.
	Inexact interface {
		Floating | ComplexFloat
	}

	// Float16 is an IEEE 754 binary16 value (NumPy's float16): 5 exponent
	// and 10 fraction bits, ±65504, about 3 significant digits.
	Float16 = half.Float16

	// BFloat16 is a bfloat16 value (PyTorch's bfloat16): float32's
	// exponent and 7 fraction bits, float32's range, about 2 digits.
	BFloat16 = half.BFloat16
)

// ToFloat16 rounds f to the nearest Float16, ties to even (±Inf beyond
// ±65504 by half an ulp or more, NaN to NaN): gpuarr.ToFloat16(1.5).
func ToFloat16[F Float](f F) Float16 { return half.ToFloat16(f) }

// ToBFloat16 rounds f to the nearest BFloat16, ties to even.
func ToBFloat16[F Float](f F) BFloat16 { return half.ToBFloat16(f) }
