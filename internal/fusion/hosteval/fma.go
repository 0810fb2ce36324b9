package hosteval

import "math"

// fma32 is a·b + c with one rounding to float32, as fma.rn.f32.
//
// The product of two float32 values is exact in float64 (48 significant
// bits, exponents well inside float64's range), so s = p + c in float64 is
// the exact sum rounded once, and TwoSum recovers its error e exactly
// (s + e = a·b + c). Rounding s to float32 is a second rounding, which
// only goes wrong when s lies exactly halfway between two float32 values
// while the exact sum does not (a tie created by the first rounding): away
// from a midpoint, s and the exact sum round alike, because every float32
// midpoint is itself a float64 and s is the float64 nearest the sum. At a
// midpoint, e's sign says which neighbour the exact sum is nearer. So the
// result equals a fused float32 FMA in every case, overflow and subnormal
// results included; math.FMA on the widened values alone would not (for
// example 1+2⁻²⁴ plus 2⁻⁸⁰ would tie and round down).
func fma32(a, b, c float32) float32 {
	p := float64(a) * float64(b)
	cc := float64(c)
	s := float64(p + cc)
	r := float32(s)
	if math.IsInf(s, 0) || s != s {
		return r // an Inf or NaN operand: no rounding question
	}
	// TwoSum (Knuth): e is exactly p + cc - s.
	bv := float64(s - p)
	e := float64(float64(p-float64(s-bv)) + float64(cc-bv))
	if e == 0 {
		return r
	}
	if math.IsInf(float64(r), 0) {
		// s rounded past MaxFloat32: it was at least the midpoint
		// 2¹²⁸-2¹⁰³ (which ties to Inf); only an exact midpoint with the
		// true sum below it belongs to MaxFloat32.
		const mid = 1<<128 - 1<<103
		if math.Abs(s) == mid && (e < 0) == (s > 0) {
			return float32(math.Copysign(math.MaxFloat32, s))
		}
		return r
	}
	d := float64(s - float64(r)) // exact (Sterbenz): r is s's nearest float32
	if d == 0 {
		return r // s is a float32; e is too small to move it
	}
	toward := float32(math.Inf(1))
	if d < 0 {
		toward = float32(math.Inf(-1))
	}
	r2 := math.Nextafter32(r, toward)
	if float64(float64(r2)-s) != d {
		return r // not a midpoint
	}
	if (e > 0) == (d > 0) {
		return r2 // the exact sum lies beyond the midpoint, nearer r2
	}
	return r
}
