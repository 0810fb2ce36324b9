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
// float32: for |x| < 1, its common path, x + x²/2 + x³·R(x) (minimax)
// with x + x²/2 a double-float (within 0.9 ulp); beyond, a branch to the
// float64 scheme above without the double-doubles (float64's 29 spare
// bits hold the errors), rounded to float32 once at the end.

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
	f := newFn("expm1_f32")
	x := f.newReg("f32")
	f.load(x, 0)
	// |x| < 1 (and NaN), the common path: x + x²/2 + x³·R(x), x + x²/2 as
	// a double-float (x² = zh + zl exactly, halved exactly).
	zh, zl := f.twoProd("f32", x, x)
	s, se := f.fastTwoSum("f32", x, f.mul("f32", zh, litF32(0.5)))
	tail := f.fma("f32", f.mul("f32", x, zh), f.poly32(x, mathcoef.Expm1RF32), f.fma("f32", zl, litF32(0.5), se))
	res := f.newReg("f32")
	f.set(res, "add.rn.f32", s, tail)
	done := f.label("expm1_done")
	f.branch(f.setp("ltu", "f32", f.abs("f32", x), litF32(1)), false, done)
	f.set(res, "mov.f32", f.expm1F32Wide(x))
	f.place(done)
	return f.done(f.sel("f32", x, res, f.setp("eq", "f32", x, litF32(0)))) // ±0
}

// expm1F32Wide is expm1 of a float32 x ≠ ±0 in float64 arithmetic,
// rounded once to float32.
func (f *fnBuilder) expm1F32Wide(x string) string {
	const t = "f64"
	xd := f.v(t, "cvt.f64.f32", x)
	xa := f.v(t, "max.f64", xd, litF64(-30))
	xa = f.v(t, "min.f64", xa, litF64(90))
	k := f.v(t, "cvt.rni.f64.f64", f.mul(t, xa, litF64(log2E)))
	nk := f.neg(t, k)
	r := f.fma(t, nk, litF64(ln2Hi), xa)
	r = f.fma(t, nk, litF64(ln2Lo), r)
	em := f.fma(t, f.mul(t, r, r), f.poly64(r, mathcoef.Expm1F32in64), r)
	s := f.pow2(t, f.v("b32", "cvt.rni.s32.f64", k)) // k in [−44, 130]
	y := f.fma(t, s, em, f.sub(t, s, litF64(1)))
	return f.v("f32", "cvt.rn.f32.f64", y)
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
