package ptxgen

// hypot(x, y) = √(x² + y²) without undue overflow or underflow.
//
// float32: in float64, where the squares are exact and cannot overflow:
// √(x² + y²) with one rounding of the sum (an fma) and the square root's,
// rounded to float32 once more.
//
// float64: a = max(|x|, |y|), b = min; both scaled by 2^∓600 when a is
// beyond 2^±500 (exactly), the squares and their sum taken as a
// double-double (TwoProd, TwoSum), h = √(high part) corrected by one
// Newton step on the residual, and scaled back (the scaling is exact, or
// rounds once into a subnormal or overflows to +Inf).
//
// ±Inf in either argument gives +Inf, even with a NaN in the other; then
// NaN gives NaN.

func hypotFunc(t string) funcDef {
	f := newFn("hypot_" + t)
	x, y := f.newReg(t), f.newReg(t)
	f.load(x, 0)
	f.load(y, 1)
	var h, inf string
	if t == "f32" {
		inf = "0f7F800000"
		xd, yd := f.v("f64", "cvt.f64.f32", x), f.v("f64", "cvt.f64.f32", y)
		s := f.fma("f64", xd, xd, f.mul("f64", yd, yd))
		h = f.v("f32", "cvt.rn.f32.f64", f.v("f64", "sqrt.rn.f64", s))
	} else {
		const tt = "f64"
		inf = "0d7FF0000000000000"
		ax, ay := f.abs(tt, x), f.abs(tt, y)
		a := f.v(tt, "max.f64", ax, ay)
		b := f.v(tt, "min.f64", ax, ay)
		big := f.setp("gt", tt, a, litF64(0x1p500))
		small := f.setp("lt", tt, a, litF64(0x1p-500))
		sc := f.sel(tt, litF64(0x1p-600), f.sel(tt, litF64(0x1p600), litF64(1), small), big)
		inv := f.sel(tt, litF64(0x1p600), f.sel(tt, litF64(0x1p-600), litF64(1), small), big)
		as, bs := f.mul(tt, a, sc), f.mul(tt, b, sc)
		a2, a2l := f.twoProd(tt, as, as)
		b2, b2l := f.twoProd(tt, bs, bs)
		sh, se := f.fastTwoSum(tt, a2, b2)
		sl := f.add(tt, se, f.add(tt, a2l, b2l))
		r := f.v(tt, "sqrt.rn.f64", sh)
		res := f.add(tt, f.fma(tt, f.neg(tt, r), r, sh), sl)
		corr := f.div(tt, res, f.add(tt, r, r))
		corr = f.sel(tt, litF64(0), corr, f.setp("eq", tt, r, litF64(0)))
		h = f.mul(tt, f.add(tt, r, corr), inv)
	}
	h = f.sel(t, nanLit(t), h, f.setp("nan", t, x, y))
	isInf := f.v("pred", "or.pred", f.setp("eq", t, f.abs(t, x), inf), f.setp("eq", t, f.abs(t, y), inf))
	return f.done(f.sel(t, inf, h, isInf))
}
