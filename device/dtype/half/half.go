// Package half is the two 16-bit floating-point formats GPUs store, as
// Go types: Float16 (IEEE 754 binary16: 1 sign, 5 exponent and 10
// fraction bits; ±65504, about 3 decimal digits) and BFloat16 (bfloat16:
// float32's 8-bit exponent with 7 fraction bits; float32's range, about 2
// digits). Go has neither, so each is a struct holding the 16 bits: a
// value is made by rounding a float (ToFloat16, ToBFloat16) or from its
// bits (Float16FromBits), never by a numeric conversion, which for a type
// defined on uint16 would silently reinterpret 1 as the smallest
// subnormal.
//
//	h := half.ToFloat16(1.5)
//	f := h.Float32() // 1.5
//
// Conversions to a 16-bit type round to nearest, ties to even, once from
// the float given (float64 values are not rounded to float32 first);
// values beyond the largest finite value by at least half a unit in the
// last place become ±Inf, subnormals are kept, and NaN becomes the
// canonical NaN 0x7FFF. Conversions from the 16-bit types to float32 and
// float64 are exact. The zero value is +0. == compares bits: NaN equals
// the same NaN, and -0 does not equal +0 (compare Float32 values for IEEE
// equality).
//
// This package imports nothing of the project: package dtype names these
// types as the element types Float16 and BFloat16, and gpuarr arrays of
// them store the bits (2 bytes an element) and compute in float32.
package half

import (
	"math"
	"strconv"
)

// Float16 is an IEEE 754 binary16 value.
type Float16 struct{ bits uint16 }

// BFloat16 is a bfloat16 value: the upper half of a float32.
type BFloat16 struct{ bits uint16 }

// NaN16 is the canonical NaN both types convert NaN to.
const NaN16 = 0x7FFF

// Float16FromBits is the Float16 whose bits are b.
func Float16FromBits(b uint16) Float16 { return Float16{b} }

// BFloat16FromBits is the BFloat16 whose bits are b.
func BFloat16FromBits(b uint16) BFloat16 { return BFloat16{b} }

// Bits is h's bit pattern.
func (h Float16) Bits() uint16 { return h.bits }

// Bits is h's bit pattern.
func (h BFloat16) Bits() uint16 { return h.bits }

// ToFloat16 rounds f to the nearest Float16 (ties to even).
func ToFloat16[F ~float32 | ~float64](f F) Float16 {
	if x, ok := any(f).(float32); ok {
		return Float16{F32ToF16(x)}
	}
	return Float16{F64ToF16(float64(f))}
}

// ToBFloat16 rounds f to the nearest BFloat16 (ties to even).
func ToBFloat16[F ~float32 | ~float64](f F) BFloat16 {
	if x, ok := any(f).(float32); ok {
		return BFloat16{F32ToBF16(x)}
	}
	return BFloat16{F64ToBF16(float64(f))}
}

// Float32 is h's value (exact).
func (h Float16) Float32() float32 { return F16ToF32(h.bits) }

// Float64 is h's value (exact).
func (h Float16) Float64() float64 { return float64(F16ToF32(h.bits)) }

// Float32 is h's value (exact).
func (h BFloat16) Float32() float32 { return BF16ToF32(h.bits) }

// Float64 is h's value (exact).
func (h BFloat16) Float64() float64 { return float64(BF16ToF32(h.bits)) }

// IsNaN reports whether h is a NaN.
func (h Float16) IsNaN() bool { return h.bits&0x7FFF > 0x7C00 }

// IsNaN reports whether h is a NaN.
func (h BFloat16) IsNaN() bool { return h.bits&0x7FFF > 0x7F80 }

// String is the shortest decimal that rounds back to h, as NumPy prints
// float16 values ("0.1", "65500", "NaN", "+Inf").
func (h Float16) String() string {
	return shortest(h.Float64(), func(x float64) bool { return F64ToF16(x) == h.bits })
}

// String is the shortest decimal that rounds back to h.
func (h BFloat16) String() string {
	return shortest(h.Float64(), func(x float64) bool { return F64ToBF16(x) == h.bits })
}

// shortest formats v with the fewest significant digits that same
// accepts (the value parsed back rounds to the same 16 bits).
func shortest(v float64, same func(float64) bool) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return strconv.FormatFloat(v, 'g', -1, 64)
	}
	for prec := 1; prec < 17; prec++ {
		x, err := strconv.ParseFloat(strconv.FormatFloat(v, 'e', prec-1, 64), 64)
		if err == nil && same(x) {
			return strconv.FormatFloat(x, 'g', -1, 64)
		}
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}

// The conversions on bits, for the evaluators that store these types.

// F16ToF32 converts binary16 bits to a float32 (exact; a NaN stays a quiet
// NaN with its payload in the high fraction bits).
func F16ToF32(b uint16) float32 {
	sign := uint32(b&0x8000) << 16
	exp := uint32(b>>10) & 0x1F
	frac := uint32(b & 0x3FF)
	switch {
	case exp == 0x1F && frac != 0:
		return math.Float32frombits(sign | 0x7FC00000 | frac<<13)
	case exp == 0x1F:
		return math.Float32frombits(sign | 0x7F800000)
	case exp == 0: // zero or subnormal: frac · 2⁻²⁴, exact in float32
		f := float32(frac) * 0x1p-24
		return math.Float32frombits(sign | math.Float32bits(f))
	}
	return math.Float32frombits(sign | (exp+127-15)<<23 | frac<<13)
}

// BF16ToF32 converts bfloat16 bits to a float32: the upper half of its
// bits (exact).
func BF16ToF32(b uint16) float32 { return math.Float32frombits(uint32(b) << 16) }

// F32ToF16 rounds a float32 to binary16 bits, to nearest, ties to even.
func F32ToF16(f float32) uint16 {
	b := math.Float32bits(f)
	sign := uint16(b>>16) & 0x8000
	abs := b & 0x7FFFFFFF
	switch {
	case abs > 0x7F800000:
		return NaN16
	case abs >= 0x477FF000: // 65520 = 65504 + half an ulp: a tie with odd 65504, so Inf
		return sign | 0x7C00
	case abs < 0x38800000: // below 2⁻¹⁴: a multiple of 2⁻²⁴ (the carry into 0x400 is the least normal)
		q := math.RoundToEven(float64(math.Float32frombits(abs)) * 0x1p24)
		return sign | uint16(q)
	}
	r := abs - (127-15)<<23 // rebias the exponent; the fraction rounds from 23 to 10 bits
	r += 0xFFF + (r>>13)&1
	return sign | uint16(r>>13)
}

// F32ToBF16 rounds a float32 to bfloat16 bits, to nearest, ties to even:
// the upper half of its bits after adding 0x7FFF and the lowest kept bit
// (a carry out of the fraction raises the exponent, up to Inf).
func F32ToBF16(f float32) uint16 {
	b := math.Float32bits(f)
	if b&0x7FFFFFFF > 0x7F800000 {
		return NaN16
	}
	return uint16((b + 0x7FFF + (b>>16)&1) >> 16)
}

// F64ToF16 rounds a float64 to binary16 bits (once: not through float32).
func F64ToF16(x float64) uint16 {
	return narrow(x, 11, -14, 65504, func(f float32) uint16 { return F32ToF16(f) })
}

// F64ToBF16 rounds a float64 to bfloat16 bits (once: not through float32).
func F64ToBF16(x float64) uint16 {
	return narrow(x, 8, -126, 0x1.fep127, func(f float32) uint16 { return F32ToBF16(f) })
}

// narrow rounds x to a format of p significant bits whose least normal
// exponent is emin and largest finite value maxFinite: x is scaled by
// its unit in the last place in that format (exact in float64), rounded
// to an integer, ties to even, and scaled back; the result is a value of
// the format, exact in float32, which exact encodes.
func narrow(x float64, p, emin int, maxFinite float64, exact func(float32) uint16) uint16 {
	if math.IsNaN(x) {
		return NaN16
	}
	a := math.Abs(x)
	if a != 0 && !math.IsInf(a, 0) {
		_, e := math.Frexp(a) // a = f·2^e, f in [½, 1): a's binade is 2^(e-1)
		ulp := max(e-1, emin) - (p - 1)
		q := math.RoundToEven(math.Ldexp(a, -ulp))
		a = math.Ldexp(q, ulp)
		if a > maxFinite {
			a = math.Inf(1)
		}
	}
	return exact(float32(math.Copysign(a, x)))
}
