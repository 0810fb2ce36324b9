package ptxgen

import "github.com/gpuarr/gpuarr/internal/fusion/mathcoef"

// sinh and cosh, for a = |x|:
//
// a < 1: sinh a = a + a³·S(a²) and cosh a = 1 + a²/2 + a⁴·C(a²) (minimax),
// with a² split exactly (TwoProd) for cosh.
//
// a ≥ 1, float32: hyperbolicLarge32, plain float32 arithmetic, behind a
// branch (a < 1 is the common path).
//
// a ≥ 1, float64: k = rint(a·log₂e), r = a − k·ln2 as a double-double, e^±r =
// 1 + em± (expTail, double-doubles), and with w = 2^−2k
//
//	cosh a = 2^(k−1)·(1 + em+ + w·(1 + em−)),
//	sinh a = 2^(k−1)·(1 + em+ − w·(1 + em−)),
//
// summed with TwoSum and rounded once, then scaled in two steps (ldexp),
// which overflows to +Inf only where the result does (a is clamped past
// that point first). sinh takes x's sign; NaN passes through.

func hyperbolicFunc(name, t string) funcDef {
	f := newFn(name + "_" + t)
	x := f.newReg(t)
	f.load(x, 0)
	a := f.abs(t, x)
	one := lit(t, 1)
	isSinh := name == "sinh"

	// a < 1.
	var small string
	if isSinh {
		z := f.mul(t, a, a)
		var s string
		if t == "f32" {
			s = f.poly32(z, mathcoef.SinhSF32)
		} else {
			s = f.poly64(z, mathcoef.SinhSF64)
		}
		small = f.fma(t, f.mul(t, a, z), s, a)
	} else {
		zh, zl := f.twoProd(t, a, a)
		var c string
		if t == "f32" {
			c = f.poly32(zh, mathcoef.CoshCF32)
		} else {
			c = f.poly64(zh, mathcoef.CoshCF64)
		}
		half := lit(t, 0.5)
		s, se := f.fastTwoSum(t, one, f.mul(t, zh, half))
		rest := f.fma(t, f.mul(t, zh, zh), c, f.fma(t, zl, half, se))
		small = f.add(t, s, rest)
	}

	// a ≥ 1.
	if t == "f32" {
		// a < 1 (and NaN) is the common path; a ≥ 1 branches.
		y := f.newReg(t)
		f.set(y, "mov.f32", small)
		done := f.label(name + "_done")
		f.branch(f.setp("ltu", t, a, one), false, done)
		f.set(y, "mov.f32", f.hyperbolicLarge32(a, isSinh))
		f.place(done)
		if isSinh {
			return f.done(f.v(t, "copysign."+t, x, y))
		}
		return f.done(y)
	}
	amax, kmax, l1, l2 := 711.0, "511", ln2Hi, ln2Lo
	ac := f.v(t, "min."+t, a, lit(t, amax))
	k := f.v(t, "cvt.rni."+t+"."+t, f.mul(t, ac, lit(t, log2E)))
	r, rl := f.reduceLn2(t, ac, k, l1, l2)
	em, eml := f.expTail(t, r, rl)
	emn, emnl := f.expTail(t, f.neg(t, r), f.neg(t, rl))
	ki := f.v("b32", "cvt.rni.s32."+t, k)
	w := f.pow2(t, f.v("b32", "neg.s32", f.v("b32", "shl.b32", f.v("b32", "min.s32", ki, kmax), "1")))
	sign := lit(t, 1)
	if isSinh {
		sign = lit(t, -1)
	}
	sw := f.mul(t, w, sign) // ±w: added with the small terms (1 ± w is not exact)
	a1, ae1 := f.fastTwoSum(t, one, em)
	rest := f.fma(t, sw, f.add(t, one, emn), ae1)
	rest = f.add(t, rest, f.fma(t, sw, emnl, eml))
	large := f.ldexp(t, f.add(t, a1, rest), f.v("b32", "sub.s32", ki, "1"))

	y := f.sel(t, small, large, f.setp("lt", t, a, one))
	if isSinh {
		y = f.v(t, "copysign."+t, x, y)
	}
	return f.done(f.sel(t, x, y, f.isNaN(t, x)))
}

// reduceLn2 returns r + rl = a − k·ln2 for an integer k (a float) with
// |k| < 2^20 and |a − k·ln2| ≤ ln2/2 (+ rounding): l1 = ln2's high part
// (k·l1 exact, and so a − k·l1), l2 the rest, whose product's rounding is
// recovered by an fma and added by TwoSum.
func (f *fnBuilder) reduceLn2(t, a, k string, l1, l2 float64) (r, rl string) {
	return f.reduceLn2Minus(t, a, "", k, l1, l2)
}

// reduceLn2Minus is reduceLn2 for a − al, a double-double argument with
// |al| ≤ ulp(a) (al may be "" for none).
func (f *fnBuilder) reduceLn2Minus(t, a, al, k string, l1, l2 float64) (r, rl string) {
	rh := f.fma(t, f.neg(t, k), lit(t, l1), a)
	th, tl := f.twoProd(t, k, lit(t, l2))
	if al != "" {
		var se string
		th, se = f.twoSum(t, th, al)
		tl = f.add(t, tl, se)
	}
	r, e1 := f.twoSum(t, rh, f.neg(t, th))
	return r, f.sub(t, e1, tl)
}

// expEvenCoefF32 and expOddCoefF32 are e^r's Taylor series split into its
// even part 1 + r²·(½ + z·E(z)) and odd part r + r·z·O(z), z = r²: to
// r⁸/8! and r⁹/9!, which leaves a truncation below 2^-36 for |r| ≤ 0.35.
var (
	expEvenCoefF32 = toF32(taylorSeries(4, 2, 2, false)) // 1/2!, 1/4!, …, 1/8!
	expOddCoefF32  = toF32(taylorSeries(4, 3, 2, false)) // 1/3!, 1/5!, …, 1/9!
)

// hyperbolicLarge32 is cosh a (or sinh a) for a ≥ 1 in plain float32:
// k = rint(a·log₂e), r + rl = a − k·ln2 (r rounded once, rl its error),
// e^±r = 1 + E ± O from the even and odd parts of e^r's series, shared by
// both signs, and with w = 2^−2k
//
//	cosh a = 2^(k−1)·(1 + (w + rl + E·(1 + w) + O·(1 − w))),
//	sinh a = 2^(k−1)·(1 + (−w + rl + E·(1 − w) + O·(1 + w))),
//
// the bracket's small part summed first so that 1 + it is rounded once
// (rl·w, below 2^-28 relative, is dropped), then scaled in two steps
// (ldexp): +Inf exactly where the result overflows (a is clamped to 90
// first, past that point).
func (f *fnBuilder) hyperbolicLarge32(a string, isSinh bool) string {
	const t = "f32"
	ac := f.v(t, "min.f32", a, lit(t, 90))
	k := f.v(t, "cvt.rni.f32.f32", f.mul(t, ac, lit(t, log2E)))
	nk := f.neg(t, k)
	r1 := f.fma(t, nk, litF32(ln2HiF32), ac) // exact: k < 2⁸
	r := f.fma(t, nk, litF32(ln2LoF32), r1)
	rl := f.fma(t, nk, litF32(ln2LoF32), f.sub(t, r1, r))
	z := f.mul(t, r, r)
	even := f.mul(t, z, f.fma(t, z, f.poly32(z, expEvenCoefF32[1:]), litF32(expEvenCoefF32[0])))
	odd := f.fma(t, f.mul(t, r, z), f.poly32(z, expOddCoefF32), r)
	ki := f.v("b32", "cvt.rni.s32.f32", k)
	w := f.pow2(t, f.v("b32", "neg.s32", f.v("b32", "shl.b32", f.v("b32", "min.s32", ki, "63"), "1")))
	if isSinh {
		w = f.neg(t, w)
	}
	// E·(1 ± w) + O·(1 ∓ w) + (±w + rl).
	tail := f.fma(t, f.neg(t, w), odd, f.add(t, w, rl))
	tail = f.fma(t, w, even, f.add(t, tail, odd))
	tail = f.add(t, tail, even)
	return f.ldexp(t, f.add(t, lit(t, 1), tail), f.v("b32", "sub.s32", ki, "1"))
}
