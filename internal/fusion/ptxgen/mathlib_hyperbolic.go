package ptxgen

import "github.com/gpuarr/gpuarr/internal/fusion/mathcoef"

// sinh and cosh, for a = |x|:
//
// float32: hyperbolic32, one branch-free path for every a.
//
// float64, a < 1: sinh a = a + a³·S(a²) and cosh a = 1 + a²/2 + a⁴·C(a²)
// (minimax), with a² split exactly (TwoProd) for cosh.
//
// float64, a ≥ 1: k = rint(a·log₂e), r = a − k·ln2 as a double-double, e^±r =
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
	if t == "f32" {
		y := f.hyperbolic32(a, isSinh)
		if isSinh {
			y = f.v(t, "copysign."+t, x, y)
		}
		return f.done(f.sel(t, x, y, f.isNaN(t, x)))
	}

	// a < 1.
	var small string
	if isSinh {
		z := f.mul(t, a, a)
		small = f.fma(t, f.mul(t, a, z), f.poly64(z, mathcoef.SinhSF64), a)
	} else {
		zh, zl := f.twoProd(t, a, a)
		c := f.poly64(zh, mathcoef.CoshCF64)
		half := lit(t, 0.5)
		s, se := f.fastTwoSum(t, one, f.mul(t, zh, half))
		rest := f.fma(t, f.mul(t, zh, zh), c, f.fma(t, zl, half, se))
		small = f.add(t, s, rest)
	}

	// a ≥ 1.
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
// r⁸/8! and r⁷/7!, which leaves a truncation below 2^-30 for |r| ≤ 0.35.
var (
	expEvenCoefF32 = toF32(taylorSeries(4, 2, 2, false)) // 1/2!, 1/4!, …, 1/8!
	expOddCoefF32  = toF32(taylorSeries(3, 3, 2, false)) // 1/3!, 1/5!, 1/7!
)

// hyperbolic32 is cosh a (or sinh a) for a ≥ 0 (+Inf included; NaN gives
// garbage) in plain float32: k = rint(a·log₂e) (by shifter32), r + rl =
// a − k·ln2 (r rounded once, rl its error), e^±r = 1 + E ± O from the even
// and odd parts of e^r's series, shared by both signs, and with w = 2^−2k
// (0 from k = 64)
//
//	cosh a = 2^(k−1)·((1 + w) + (rl + E·(1 + w) + O·(1 − w))),
//	sinh a = 2^(k−1)·((1 − w) + (rl + E·(1 − w) + O·(1 + w))),
//
// 1 ± w's rounding error (none below k = 12) joining the small part, which
// is summed first so that the bracket is rounded once (rl·w, below 2^-28
// relative, is dropped). sinh leaves out rl and that rounding error too:
// its bound (3 ulp) has room for them, cosh's (2 ulp) does not. The bracket lies in [¼, 4), so
// 2^(k−1) is added to its exponent field, and a field past 254 (the
// result overflows) becomes +Inf by an unsigned minimum; a is clamped to
// 90 first, past that point. Where k = 0 (a < ln2/2) r = a exactly and
// sinh a is O itself, selected (the bracket would cancel); cosh's bracket
// is then 2 + 2E, rounded once at the result's own ulp.
func (f *fnBuilder) hyperbolic32(a string, isSinh bool) string {
	const t = "f32"
	ac := f.v(t, "min.f32", a, lit(t, 90))
	k, ki := f.rint32(ac, lit(t, log2E))
	nk := f.neg(t, k)
	r1 := f.fma(t, nk, litF32(ln2HiF32), ac) // exact: k < 2⁸
	r := f.fma(t, nk, litF32(ln2LoF32), r1)
	z := f.mul(t, r, r)
	even := f.mul(t, z, f.fma(t, z, f.poly32(z, expEvenCoefF32[1:]), litF32(expEvenCoefF32[0])))
	odd := f.fma(t, f.mul(t, r, z), f.poly32(z, expOddCoefF32), r)
	// w = 2^−2k from its bits: (127 − 2k)·2^23.
	w := f.v(t, "mov.b32", f.v("b32", "sub.s32", "0x3F800000", f.v("b32", "shl.b32", f.v("b32", "min.s32", ki, "63"), "24")))
	if isSinh {
		w = f.neg(t, w)
	}
	// base = 1 ± w and the small part E·(1 ± w) + O·(1 ∓ w), added to
	// base once; for cosh also rl and base's rounding error be
	// (Fast2Sum: exact). sinh's 3-ulp bound leaves room for both.
	one := lit(t, 1)
	base, other := f.add(t, one, w), f.sub(t, one, w)
	var small string
	if isSinh {
		small = f.fma(t, even, base, f.mul(t, odd, other))
	} else {
		rl := f.fma(t, nk, litF32(ln2LoF32), f.sub(t, r1, r))
		be := f.sub(t, w, f.sub(t, base, one))
		small = f.fma(t, even, base, f.fma(t, odd, other, f.add(t, rl, be)))
	}
	bits := f.v("b32", "mov.b32", f.add(t, base, small))
	bits = f.v("b32", "add.s32", bits, f.v("b32", "shl.b32", f.v("b32", "sub.s32", ki, "1"), "23"))
	y := f.v(t, "mov.b32", f.v("b32", "min.u32", bits, "0x7F800000"))
	if isSinh {
		y = f.sel(t, odd, y, f.setp("eq", "s32", ki, "0"))
	}
	return y
}
