package hosteval

import (
	"math"
	"unsafe"

	"github.com/gpuarr/gpuarr/device/dtype"
	"github.com/gpuarr/gpuarr/device/dtype/half"
	"github.com/gpuarr/gpuarr/internal/fusion/expr"
)

// Casts follow expr's rules. Go's conversions already do
// int→int (wrap or extend by the source's signedness), int→float and
// float→float (round to nearest); float→int is implementation-defined
// out of range in Go, so it saturates explicitly, with NaN → 0.

// intRange is the saturation range of an integer type: values at or
// above hi (a power of two, exact in float64) clamp to max, values at or
// below lo to min.
type intRange struct {
	lo, hi   float64
	min      int64
	max      uint64
	isSigned bool
}

func rangeOf(t dtype.DType) intRange {
	bits := uint(8 * t.Size())
	if t.IsSigned() {
		return intRange{lo: -math.Ldexp(1, int(bits-1)), hi: math.Ldexp(1, int(bits-1)),
			min: -1 << (bits - 1), max: 1<<(bits-1) - 1, isSigned: true}
	}
	return intRange{lo: 0, hi: math.Ldexp(1, int(bits)), max: math.MaxUint64 >> (64 - bits)}
}

// satInt converts v to an integer of range r: truncated toward zero,
// saturated, NaN → 0. The result is the value's two's-complement bits.
func satInt(v float64, r *intRange) uint64 {
	switch {
	case v != v:
		return 0
	case v >= r.hi:
		return r.max
	case v <= r.lo:
		return uint64(r.min) // 0 for unsigned types
	case r.isSigned:
		return uint64(int64(v)) // in range: Go truncates toward zero
	}
	return uint64(v)
}

// castFor returns the kernel converting from to to, or nil when OpCast
// does not convert between them (expr.Castable).
func castFor(from, to dtype.DType) unaryK {
	if !expr.Castable(from, to) {
		return nil
	}
	if from == to {
		return moveFor(from.Size())
	}
	switch {
	case from.IsComplex():
		if from == dtype.Complex64 {
			return convComplexK[complex64, complex128]
		}
		return convComplexK[complex128, complex64]
	case to == dtype.Float16 && from == dtype.Float32:
		return halfK(half.F32ToF16)
	case to == dtype.Float16:
		return halfK(half.F64ToF16)
	case to == dtype.BFloat16 && from == dtype.Float32:
		return halfK(half.F32ToBF16)
	case to == dtype.BFloat16:
		return halfK(half.F64ToBF16)
	case from == dtype.Float16:
		return widenK(half.F16ToF32)
	case from == dtype.BFloat16:
		return widenK(half.BF16ToF32)
	}
	switch from {
	case dtype.Bool:
		return castFromBool(to)
	case dtype.Int8:
		return castFromInt[int8](to)
	case dtype.Int16:
		return castFromInt[int16](to)
	case dtype.Int32:
		return castFromInt[int32](to)
	case dtype.Int64:
		return castFromInt[int64](to)
	case dtype.Uint8:
		return castFromInt[uint8](to)
	case dtype.Uint16:
		return castFromInt[uint16](to)
	case dtype.Uint32:
		return castFromInt[uint32](to)
	case dtype.Uint64:
		return castFromInt[uint64](to)
	case dtype.Float32:
		return castFromFloat[float32](to)
	}
	return castFromFloat[float64](to)
}

func castFromBool(to dtype.DType) unaryK {
	switch to {
	case dtype.Bool:
		return copyK[bool]
	case dtype.Int8:
		return boolToK[int8]
	case dtype.Int16:
		return boolToK[int16]
	case dtype.Int32:
		return boolToK[int32]
	case dtype.Int64:
		return boolToK[int64]
	case dtype.Uint8:
		return boolToK[uint8]
	case dtype.Uint16:
		return boolToK[uint16]
	case dtype.Uint32:
		return boolToK[uint32]
	case dtype.Uint64:
		return boolToK[uint64]
	case dtype.Float32:
		return boolToK[float32]
	}
	return boolToK[float64]
}

func boolToK[D number](o, a unsafe.Pointer, n int) {
	os, as := col[D](o, n), col[bool](a, n)
	for i := range os {
		if as[i] {
			os[i] = 1
		} else {
			os[i] = 0
		}
	}
}

func toBoolK[S number](o, a unsafe.Pointer, n int) {
	os, as := col[bool](o, n), col[S](a, n)
	for i := range os {
		os[i] = as[i] != 0 // NaN != 0: true
	}
}

// convK is Go's conversion, which is exact or rounds to nearest for every
// pair it is used for (never float→int).
func convK[S, D number](o, a unsafe.Pointer, n int) {
	os, as := col[D](o, n), col[S](a, n)
	for i := range os {
		os[i] = D(as[i])
	}
}

func castFromInt[S integer](to dtype.DType) unaryK {
	switch to {
	case dtype.Bool:
		return toBoolK[S]
	case dtype.Int8:
		return convK[S, int8]
	case dtype.Int16:
		return convK[S, int16]
	case dtype.Int32:
		return convK[S, int32]
	case dtype.Int64:
		return convK[S, int64]
	case dtype.Uint8:
		return convK[S, uint8]
	case dtype.Uint16:
		return convK[S, uint16]
	case dtype.Uint32:
		return convK[S, uint32]
	case dtype.Uint64:
		return convK[S, uint64]
	case dtype.Float32:
		return convK[S, float32]
	}
	return convK[S, float64]
}

func castFromFloat[S float](to dtype.DType) unaryK {
	switch to {
	case dtype.Bool:
		return toBoolK[S]
	case dtype.Int8:
		return satK[S, int8](to)
	case dtype.Int16:
		return satK[S, int16](to)
	case dtype.Int32:
		return satK[S, int32](to)
	case dtype.Int64:
		return satK[S, int64](to)
	case dtype.Uint8:
		return satK[S, uint8](to)
	case dtype.Uint16:
		return satK[S, uint16](to)
	case dtype.Uint32:
		return satK[S, uint32](to)
	case dtype.Uint64:
		return satK[S, uint64](to)
	case dtype.Float32:
		return convK[S, float32]
	}
	return convK[S, float64]
}

// satK converts floats to integers with saturation (float32 widens to
// float64 exactly first).
func satK[S float, D integer](to dtype.DType) unaryK {
	r := rangeOf(to)
	return func(o, a unsafe.Pointer, n int) {
		os, as := col[D](o, n), col[S](a, n)
		for i := range os {
			os[i] = D(satInt(float64(as[i]), &r))
		}
	}
}

// halfK rounds float32 or float64 values (F) to 16-bit floats with f.
func halfK[F float32 | float64](f func(F) uint16) unaryK {
	return func(o, a unsafe.Pointer, n int) {
		os, as := col[uint16](o, n), col[F](a, n)
		for i := range os {
			os[i] = f(as[i])
		}
	}
}

// widenK converts 16-bit floats to float32 with f (exact).
func widenK(f func(uint16) float32) unaryK {
	return func(o, a unsafe.Pointer, n int) {
		os, as := col[float32](o, n), col[uint16](a, n)
		for i := range os {
			os[i] = f(as[i])
		}
	}
}

// convComplexK converts between the complex types, each part as float
// conversions do (Go's conversion rounds each part to nearest).
func convComplexK[S, D complex64 | complex128](o, a unsafe.Pointer, n int) {
	os, as := col[D](o, n), col[S](a, n)
	for i := range os {
		os[i] = D(as[i])
	}
}

// castValue converts one float64 to t by the cast rules and returns its
// bits (see bitsOf): constants and Mean results go through it.
func castValue(v float64, t dtype.DType) uint64 {
	var out uint64
	castFor(dtype.Float64, t)(unsafe.Pointer(&out), unsafe.Pointer(&v), 1)
	return out
}
