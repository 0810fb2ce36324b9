package expr

import "github.com/gpuarr/gpuarr/device/dtype"

// Computes reports whether programs hold values of type t: every element
// type. Bool, the integers, Float32 and Float64 are computed with; the
// 16-bit floats and the complex types are storage types, which only a
// few ops take (see Storage): package fusion computes halves in float32
// and complex numbers as pairs of reals.
func Computes(t dtype.DType) bool { return t.Valid() }

// Stores reports whether an array (a Memory input, a kernel's output) may
// hold elements of type t: every element type, Bool as one byte, 0 or 1.
func Stores(t dtype.DType) bool { return t.Valid() }

// Storage reports whether t is a storage type: Float16, BFloat16 or a
// complex type. Instructions of a storage type are only OpInput, OpCast
// (to a half from Float32 or Float64) and OpComplex; instructions reading
// one are only OpCast (from a half to Float32), OpReal and OpImag, and
// the reductions Sum, Prod and Mean of complex values. Scalars are never
// of a storage type.
func Storage(t dtype.DType) bool { return IsHalf(t) || t.IsComplex() }

// IsHalf reports whether t is Float16 or BFloat16.
func IsHalf(t dtype.DType) bool { return t == dtype.Float16 || t == dtype.BFloat16 }

// PartType is the type of a complex type's parts (Float32 or Float64),
// Invalid for another type.
func PartType(t dtype.DType) dtype.DType {
	switch t {
	case dtype.Complex64:
		return dtype.Float32
	case dtype.Complex128:
		return dtype.Float64
	}
	return dtype.Invalid
}

// ComplexOf is the complex type whose parts have type t (Float32 or
// Float64), Invalid for another type.
func ComplexOf(t dtype.DType) dtype.DType {
	switch t {
	case dtype.Float32:
		return dtype.Complex64
	case dtype.Float64:
		return dtype.Complex128
	}
	return dtype.Invalid
}

// Castable reports whether OpCast converts from to to: between Bool, the
// integers, Float32 and Float64 in any direction; Float32 and Float64 to
// a half (rounding); a half to Float32 (exact); between the complex types
// (each part). Other conversions are compositions of these (and of
// OpReal, OpImag, OpComplex) that package fusion writes out.
//
// The conversions, the same on both back ends: int→int truncates (wraps)
// or extends by the source's signedness; int→float and float→float round
// to nearest; float→int truncates toward zero and saturates to the target
// range, NaN → 0; Bool→number is 0 or 1; number→Bool is x != 0. To a half
// (Float16, BFloat16) from Float32 or Float64 rounds once to nearest, ties
// to even (a float64 is not rounded to float32 first), overflows to ±Inf,
// keeps subnormals and turns NaN into the canonical NaN 0x7FFF: package
// half defines these conversions, and both back ends agree with it bit for
// bit. Between the complex types, each part converts as floats do.
func Castable(from, to dtype.DType) bool {
	switch {
	case !from.Valid() || !to.Valid():
		return false
	case from == to:
		return true
	case from.IsComplex() || to.IsComplex():
		return from.IsComplex() && to.IsComplex()
	case IsHalf(to):
		return from == dtype.Float32 || from == dtype.Float64
	case IsHalf(from):
		return to == dtype.Float32
	}
	return true
}

// ParamType is how a scalar of type t travels as a kernel parameter:
// floats as themselves, 8-, 16- and 32-bit integers (and Bool, as 0 or 1)
// as 32-bit integers of the same signedness, 64-bit integers as
// themselves. The kernel converts to t (truncating).
func ParamType(t dtype.DType) dtype.DType {
	switch t {
	case dtype.Bool, dtype.Uint8, dtype.Uint16, dtype.Uint32:
		return dtype.Uint32
	case dtype.Int8, dtype.Int16, dtype.Int32:
		return dtype.Int32
	}
	return t
}
