package ptxgen

import "github.com/gpuarr/gpuarr/internal/fusion/mathcoef"

// expm1(x) = e^x − 1.
//
// float64: k = rint(x·log₂e), r = x − k·ln2 as a double-double (rh, rl)
// (ln2 split so that k·ln2Hi is exact, the rest's products recovered with
// fma), e^r − 1 = r + r²·F(r) + rl·(1 + r) as a double-double (em, eml),
// then 2^k·(1 + em + eml) − 1 summed exactly but for the last rounding
// (TwoSum). Beyond x = 40 the −1 is below half an ulp: the result is
// 2^k·(1 + em) scaled in two steps (ldexp), +Inf past the overflow
// threshold; below −45 it is −1. ±0 and NaN come back as they are.
//
// float32: one path for every x. x is clamped to [−30, 88.8] (the result
// is −1 below, +Inf above, as it is at the ends), k = rint(x·log₂e) by
// shifter32, r = x − k·ln2 (k·ln2's high part exact), e^r − 1 = r +
// r²·F(r) (minimax) as a double-float (uh, ul), and with s = 2^(k−1)
//
//	expm1 x = 2·((s − ½) + s·uh + s·ul),
//
// s·uh exact, added to s − ½ by Fast2Sum (|s − ½| ≥ |s·uh|, or s − ½ =
// 0), the small terms joined and the sum rounded once; the doubling is
// exact, or overflows where the result does. Where k = 0 this is uh + ul
// itself. Its error is below 1.25 ulp, one step from the correctly
// rounded result at most (CUDA's bound for expm1f): F's rounding near k =
// ±1, and from k = 25 on s − ½'s own (at most half the result's ulp).
// NaN and |x| < 2^-24 return x.

func expm1F64Func() funcDef {
	const t = "f64"
	f := newFn("expm1_f64")
	x := f.newReg(t)
	f.load(x, 0)
	xa := f.v(t, "max.f64", x, litF64(-45))
	xa = f.v(t, "min.f64", xa, litF64(710))
	k := f.v(t, "cvt.rni.f64.f64", f.mul(t, xa, litF64(log2E)))
	r, rl := f.reduceLn2(t, xa, k, ln2Hi, ln2Lo)
	em, eml := f.expTail(t, r, rl)
	ki := f.v("b32", "cvt.rni.s32.f64", k)
	// Moderate x (k ≤ 56): 2^k − 1 + 2^k·em + 2^k·eml.
	s := f.pow2(t, f.v("b32", "min.s32", ki, "56"))
	c, ce := f.twoSum(t, s, litF64(-1))
	d, de := f.twoSum(t, c, f.mul(t, s, em))
	small := f.add(t, d, f.add(t, f.add(t, de, ce), f.mul(t, s, eml)))
	// Large x: 2^k·(1 + em).
	ph, pe := f.fastTwoSum(t, litF64(1), em)
	large := f.ldexp(t, f.add(t, ph, f.add(t, pe, eml)), ki)
	y := f.sel(t, large, small, f.v("pred", "setp.gt.s32", ki, "56"))
	// ±0 and NaN.
	keep := f.v("pred", "setp.equ.f64", x, litF64(0))
	return f.done(f.sel(t, x, y, keep))
}

func expm1F32Func() funcDef {
	const t = "f32"
	f := newFn("expm1_f32")
	x := f.newReg(t)
	f.load(x, 0)
	xa := f.v(t, "max.f32", x, litF32(-30))
	xa = f.v(t, "min.f32", xa, litF32(88.8))
	k, ki := f.rint32(xa, lit(t, log2E))
	r := f.fma(t, k, litF32(-ln2HiF32), xa) // exact: |k| < 2⁸
	r = f.fma(t, k, litF32(-ln2LoF32), r)
	// e^r − 1 = r + r²·F(r) as a double-float (uh, ul): Fast2Sum, |r| ≥
	// |r²·F(r)|.
	p := f.mul(t, f.mul(t, r, r), f.poly32(r, mathcoef.Expm1FF32))
	uh, ul := f.fastTwoSum(t, r, p)
	// s = 2^(k−1) from its bits, (k + 126)·2^23; c = s − ½.
	s := f.v(t, "mov.b32", f.v("b32", "shl.b32", f.v("b32", "add.s32", ki, "126"), "23"))
	c := f.sub(t, s, litF32(0.5))
	d, de := f.fastTwoSum(t, c, f.mul(t, s, uh))
	y := f.mul(t, f.add(t, d, f.fma(t, s, ul, de)), litF32(2))
	// NaN and |x| < 2^-24 (±0 and the subnormals, which s·uh would halve
	// below their last bit, included) come back as they are.
	return f.done(f.sel(t, x, y, f.setp("ltu", t, f.abs(t, x), litF32(0x1p-24))))
}

// expTail returns e^(r+rl) − 1 as a double-double (em, eml) for |r| ≤
// 0.347 and |rl| ≤ 2^-50·|r|: r + r²/2 + r³·G(r) + rl·(1 + r), with r²/2
// exact (twoProd), so that only the small terms are rounded.
func (f *fnBuilder) expTail(t, r, rl string) (em, eml string) {
	r2h, r2l := f.twoProd(t, r, r)
	half := lit(t, 0.5)
	h := f.mul(t, r2h, half)
	var g string
	if t == "f32" {
		g = f.poly32(r, mathcoef.ExpGF32)
	} else {
		g = f.poly64(r, mathcoef.ExpGF64)
	}
	rest := f.mul(t, f.mul(t, r2h, r), g)
	rest = f.fma(t, rl, f.add(t, r, lit(t, 1)), rest)
	rest = f.fma(t, r2l, half, rest)
	a, ae := f.fastTwoSum(t, r, h)
	return f.fastTwoSum(t, a, f.add(t, ae, rest))
}
