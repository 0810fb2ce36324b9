package ptxgen

import "github.com/gpuarr/gpuarr/internal/fusion/mathcoef"

// asin, acos, atan and atan2.
//
// asin and acos: for |x| ≤ ½, asin x = x + x³·P(x²) (minimax) and acos x =
// π/2 − asin x; above, with z = (1 − |x|)/2 (exact) and s + sl = √z (sl the
// square root's rounding error, from an fma and a reciprocal),
// asin |x| = π/2 − 2·asin(s + sl), acos x = 2·asin(s + sl) for x > ½ and
// π − 2·asin(s + sl) for x < −½; asin(s + sl) = s + s·z·P(z) + sl. The
// constants are double-doubles and every difference is an exact
// FastTwoSum (the constant, π/2 or π, is the larger term: |x| ≤ 1, 2s ≤ √2)
// rounded once. float32 acos takes the second form for every x, with a P
// valid for z up to ½ (acosF32Func); float32 asin selects the polynomial's
// argument, one evaluation for both forms (asinF32Func). Outside [−1, 1],
// NaN (√ of a negative).
//
// atan: a = |x| is mapped to u with |u| ≤ tan(π/8) and a constant C:
// u = a (C = 0) for a ≤ tan(π/8), u = (a − 1)/(a + 1) (C = π/4) up to
// tan(3π/8), u = −1/a (C = π/2) beyond; atan a = C + u + u³·P(u²). In
// float64 the quotient's rounding error (and a + 1's) is recovered as
// ul and added as ul·(1 − u²). float32 atan instead takes one path for
// every x with a wider odd polynomial: t = min(a, 1/a) ≤ 1, atan t = t +
// t³·P(t²), and atan a = π/2 − atan t for a > 1 (atanF32Func).
//
// atan2(y, x): t = min(|y|, |x|)/max(|y|, |x|) (0 for two zeros, 1 for
// two infinities) has atan(t) as above; by whether |y| > |x| and x's sign
// the result is K ± atan t, K one of 0, π/4, π/2, 3π/4, π combined with
// atan's C, with y's sign. float32 atan2 takes atan_f32's wide polynomial
// on t ≤ 1 instead, one division in all (atan2F32Func). This gives C99's special values (atan2(±0, −0)
// = ±π, atan2(±Inf, −Inf) = ±3π/4, …); NaN in, NaN out.

// acosF32Func is acos_f32 by one path for every x: with a = |x| and z =
// (1 − a)/2 (exact), acos a = 2·asin √z (in [0, π/2]: nothing cancels,
// whatever a) and acos(−a) = π − 2·asin √z, with 2·asin(s + sl) = 2s +
// (2s·z·P(z) + 2sl) (mathcoef.AsinWideF32, for z up to ½). The root is
// s + sl from r = rsqrt.approx(z): s is sqrt32's arithmetic (z·r
// corrected by its residual: the correctly rounded √z, so that the result
// does not depend on r's last bits), and 2sl = (z − s²)·r from the exact
// residual. r is taken of z + 2^−60 (z itself for every nonzero z, which
// is at least 2^−25) so that z = 0 gives s = sl = 0 without a select.
func acosF32Func() funcDef {
	const t = "f32"
	c := mathcoef.Consts()
	f := newFn("acos_f32")
	x := f.newReg(t)
	f.load(x, 0)
	z := f.mul(t, f.sub(t, litF32(1), f.abs(t, x)), litF32(0.5))
	r := f.v(t, "rsqrt.approx.ftz.f32", f.add(t, z, litF32(0x1p-60))) // NaN for z < 0 (|x| > 1) or NaN
	s := f.mul(t, z, r)
	s = f.fma(t, f.fma(t, f.neg(t, s), s, z), f.mul(t, r, litF32(0.5)), s)
	twoS := f.add(t, s, s)
	twoSl := f.mul(t, f.fma(t, f.neg(t, s), s, z), r)
	tail := f.fma(t, f.mul(t, twoS, z), f.poly32(z, mathcoef.AsinWideF32), twoSl) // 2·(asin(s + sl) − s)
	ypos := f.add(t, twoS, tail)
	B, Be := f.fastTwoSum(t, litF32(c.PiHi32), f.neg(t, twoS))
	yneg := f.add(t, B, f.sub(t, f.add(t, Be, litF32(c.PiLo32)), tail))
	return f.done(f.sel(t, yneg, ypos, f.setp("lt", t, x, litF32(0))))
}

// asinF32Func is asin_f32 by one path for every x: with a = |x|, the
// polynomial's argument w is a itself for a ≤ ½ and s = √((1 − a)/2)
// rounded above (the same P serves both: its argument squared is at most
// ¼), then asin a = w + w·z·P(z) or π/2 − 2·(s + s·z·P(z)) by a select,
// x's sign put on. s's rounding error (at most 2^−26) moves a result of
// at least π/6 by at most half an ulp (sqrt32 errs by a little more than
// half an ulp of s only where s lies near the midpoint of two floats).
func asinF32Func() funcDef {
	const t = "f32"
	c := mathcoef.Consts()
	f := newFn("asin_f32")
	x := f.newReg(t)
	f.load(x, 0)
	a := f.abs(t, x)
	small := f.setp("le", t, a, litF32(0.5))
	zl := f.mul(t, f.sub(t, litF32(1), a), litF32(0.5))
	s := f.sqrt32(zl) // zl in [0, ½], or below 0 (NaN) where a > 1
	twoS := f.mul(t, s, litF32(2))
	w := f.sel(t, a, s, small)
	z := f.sel(t, f.mul(t, a, a), zl, small)
	tail := f.mul(t, f.mul(t, w, z), f.poly32(z, mathcoef.AsinPF32))
	ys := f.add(t, a, tail)
	A, Ae := f.fastTwoSum(t, litF32(c.Pio2Hi32), f.neg(t, twoS))
	yl := f.add(t, A, f.fma(t, litF32(-2), tail, f.add(t, Ae, litF32(c.Pio2Lo32))))
	return f.done(f.v(t, "copysign.f32", x, f.sel(t, ys, yl, small)))
}

// asinAcosFunc is asin and acos (float32: asinF32Func, acosF32Func).
func asinAcosFunc(name, t string) funcDef {
	if t == "f32" {
		if name == "acos" {
			return acosF32Func()
		}
		return asinF32Func()
	}
	c := mathcoef.Consts()
	f := newFn(name + "_" + t)
	x := f.newReg(t)
	f.load(x, 0)
	a := f.abs(t, x)
	poly := func(z string) string { return f.poly64(z, mathcoef.AsinPF64) }
	dd := func(hi, lo float64) (string, string) { return lit(t, hi), lit(t, lo) }
	p2h, p2l := dd(c.Pio2Hi, c.Pio2Lo)
	pih, pil := dd(c.PiHi, c.PiLo)
	two := lit(t, 2)

	// |x| ≤ ½: x·z·P(z), z = x².
	zs := f.mul(t, a, a)
	us := f.mul(t, f.mul(t, x, zs), poly(zs)) // signed: asin x − x
	// |x| > ½: z = (1 − |x|)/2, √z = s + sl, tail = asin(s + sl) − s.
	z := f.mul(t, f.sub(t, lit(t, 1), a), lit(t, 0.5))
	s := f.v(t, "sqrt.rn."+t, z)
	two_s := f.mul(t, s, two)
	sl := f.div(t, f.fma(t, f.neg(t, s), s, z), two_s)
	sl = f.sel(t, litF64(0), sl, f.setp("eq", t, s, litF64(0)))
	tail := f.fma(t, f.mul(t, s, z), poly(z), sl)
	small := f.setp("le", t, a, lit(t, 0.5))

	var y string
	if name == "asin" {
		ys := f.add(t, x, us)
		A, Ae := f.fastTwoSum(t, p2h, f.neg(t, two_s))
		yl := f.add(t, A, f.fma(t, f.neg(t, two), tail, f.add(t, Ae, p2l)))
		yl = f.v(t, "copysign."+t, x, yl)
		y = f.sel(t, ys, yl, small)
	} else {
		A, Ae := f.fastTwoSum(t, p2h, f.neg(t, x))
		ys := f.add(t, A, f.sub(t, f.add(t, Ae, p2l), us))
		ypos := f.fma(t, two, tail, two_s)
		B, Be := f.fastTwoSum(t, pih, f.neg(t, two_s))
		yneg := f.add(t, B, f.fma(t, f.neg(t, two), tail, f.add(t, Be, pil)))
		yl := f.sel(t, yneg, ypos, f.setp("lt", t, x, lit(t, 0)))
		y = f.sel(t, ys, yl, small)
	}
	return f.done(y)
}

// atanCore returns atan(a + al) for a ≥ 0 (a ≤ 1 with two set: atan2's
// t, where the third case cannot occur) as its pieces: atan = C + u +
// tail, C = 0 where c1, π/2 where c3 (atan only), π/4 otherwise.
func (f *fnBuilder) atanCore(t, a, al string, two bool) (u, tail, c1, c3 string) {
	one := lit(t, 1)
	c1 = f.setp("le", t, a, lit(t, 0.4142135623730950))
	am1 := f.sub(t, a, one) // exact where used
	ap1, dl := f.twoSum(t, a, one)
	num, den := am1, ap1
	if !two {
		c3 = f.setp("gt", t, a, lit(t, 2.414213562373095))
		num = f.sel(t, lit(t, -1), am1, c3)
		den = f.sel(t, a, ap1, c3)
	}
	num = f.sel(t, a, num, c1)
	den = f.sel(t, one, den, c1)
	u = f.div(t, num, den)
	var ul string
	if t == "f64" {
		// (num + al) − u·(den + dl + al'), al' = al unless c1 (den = 1);
		// c3 (atan only) has al = 0 and an exact denominator.
		dlc := f.sel(t, litF64(0), dl, c1)
		if !two {
			dlc = f.sel(t, litF64(0), dlc, c3)
		}
		aln := al
		ald := f.sel(t, litF64(0), al, c1)
		res := f.fma(t, f.neg(t, u), den, num)
		res = f.add(t, res, f.fma(t, f.neg(t, u), f.add(t, dlc, ald), aln))
		ul = f.div(t, res, den)
		ul = f.sel(t, litF64(0), ul, f.isNaN(t, ul)) // a = ±Inf
	}
	z := f.mul(t, u, u)
	var P string
	if t == "f32" {
		P = f.poly32(z, mathcoef.AtanPF32)
	} else {
		P = f.poly64(z, mathcoef.AtanPF64)
	}
	tail = f.mul(t, f.mul(t, u, z), P)
	if ul != "" {
		tail = f.fma(t, ul, f.sub(t, one, z), tail)
	}
	return u, tail, c1, c3
}

func atanFunc(t string) funcDef {
	if t == "f32" {
		return atanF32Func()
	}
	f := newFn("atan_" + t)
	x := f.newReg(t)
	f.load(x, 0)
	return f.done(f.atanReduced(t, x))
}

// atanF32Func is atan_f32 by one path for every x: with a = |x| and t =
// min(a, 1/a) (rcp.rn; t ≤ 1, and t = a for a ≤ 1, 0, NaN and subnormal a
// included), r = atan t = t + t³·P(t²) (mathcoef.AtanWideF32), atan a =
// r for a ≤ 1 and π/2 − r beyond (π/2 as two float32 parts, so that π/2 −
// r is rounded once), with x's sign. atan(±Inf) = ±π/2 (1/Inf = 0), ±0
// and NaN pass through.
func atanF32Func() funcDef {
	const t = "f32"
	c := mathcoef.Consts()
	f := newFn("atan_f32")
	x := f.newReg(t)
	f.load(x, 0)
	a := f.abs(t, x)
	u := f.v(t, "min.f32", a, f.v(t, "rcp.rn.f32", a))
	z := f.mul(t, u, u)
	r := f.fma(t, f.mul(t, u, z), f.poly32(z, mathcoef.AtanWideF32), u)
	w := f.add(t, litF32(c.Pio2Hi32), f.sub(t, litF32(c.Pio2Lo32), r))
	y := f.sel(t, w, r, f.setp("gt", t, a, litF32(1)))
	return f.done(f.v(t, "copysign.f32", x, y))
}

// atan2F32Func is atan2_f32 by one path: t = min/max of |y| and |x| (in
// [0, 1], 0 for two zeros), atan t = t + t³·P(t²) (mathcoef.AtanWideF32,
// as atan_f32), then K ± atan t with K = 0, π/2 or π by whether |y| > |x|
// and x's sign (K as hi + lo, so that nothing is lost in the sum:
// K − atan t ≥ π/4), y's sign put on; two infinities give ±π/4 or ±3π/4
// by a select, NaN in gives NaN.
func atan2F32Func() funcDef {
	const t = "f32"
	c := mathcoef.Consts()
	f := newFn("atan2_f32")
	y, x := f.newReg(t), f.newReg(t)
	f.load(y, 0)
	f.load(x, 1)
	ay, ax := f.abs(t, y), f.abs(t, x)
	swap := f.setp("gt", t, ay, ax)
	mn := f.sel(t, ax, ay, swap)
	mx := f.sel(t, ay, ax, swap)
	q := f.sel(t, litF32(0), f.div(t, mn, mx), f.setp("eq", t, mx, litF32(0)))
	z := f.mul(t, q, q)
	at := f.fma(t, f.mul(t, q, z), f.poly32(z, mathcoef.AtanWideF32), q)
	xneg := f.v("pred", "setp.lt.s32", f.v("b32", "mov.b32", x), "0")
	kh := f.sel(t, litF32(c.Pio2Hi32), f.sel(t, litF32(c.PiHi32), litF32(0), xneg), swap)
	kl := f.sel(t, litF32(c.Pio2Lo32), f.sel(t, litF32(c.PiLo32), litF32(0), xneg), swap)
	sat := f.sel(t, f.neg(t, at), at, f.v("pred", "xor.pred", swap, xneg))
	r := f.add(t, kh, f.add(t, sat, kl))
	// Two infinities: π/4, or 3π/4 for x = −Inf.
	r = f.sel(t, f.sel(t, litF32(c.Pi3o4Hi32), litF32(c.Pio4Hi32), xneg), r, f.setp("eq", t, mn, "0f7F800000"))
	r = f.v(t, "copysign.f32", y, r)
	return f.done(f.sel(t, "0f7FC00000", r, f.setp("nan", t, y, x)))
}

// atanReduced is atan x through atanCore's reduction, for every x.
func (f *fnBuilder) atanReduced(t, x string) string {
	c := mathcoef.Consts()
	a := f.abs(t, x)
	u, tail, c1, c3 := f.atanCore(t, a, lit(t, 0), false)
	p4h, p4l, p2h, p2l := litF64(c.Pio4Hi), litF64(c.Pio4Lo), litF64(c.Pio2Hi), litF64(c.Pio2Lo)
	if t == "f32" {
		p4h, p4l, p2h, p2l = litF32(c.Pio4Hi32), litF32(c.Pio4Lo32), litF32(c.Pio2Hi32), litF32(c.Pio2Lo32)
	}
	ch := f.sel(t, lit(t, 0), f.sel(t, p2h, p4h, c3), c1)
	cl := f.sel(t, lit(t, 0), f.sel(t, p2l, p4l, c3), c1)
	s, e := f.fastTwoSum(t, ch, u)
	y := f.add(t, s, f.add(t, f.add(t, e, cl), tail))
	return f.v(t, "copysign."+t, x, y)
}

func atan2Func(t string) funcDef {
	if t == "f32" {
		return atan2F32Func()
	}
	c := mathcoef.Consts()
	f := newFn("atan2_" + t)
	y, x := f.newReg(t), f.newReg(t)
	f.load(y, 0)
	f.load(x, 1)
	ay, ax := f.abs(t, y), f.abs(t, x)
	swap := f.setp("gt", t, ay, ax)
	mn := f.sel(t, ax, ay, swap)
	mx := f.sel(t, ay, ax, swap)
	inf := "0d7FF0000000000000"
	if t == "f32" {
		inf = "0f7F800000"
	}
	q := f.div(t, mn, mx)
	bothZero := f.setp("eq", t, mx, lit(t, 0))
	bothInf := f.v("pred", "and.pred", f.setp("eq", t, mn, inf), f.setp("eq", t, mx, inf))
	q = f.sel(t, lit(t, 0), q, bothZero)
	q = f.sel(t, lit(t, 1), q, bothInf)
	ql := lit(t, 0)
	if t == "f64" {
		l := f.div(t, f.fma(t, f.neg(t, q), mx, mn), mx)
		ok := f.v("pred", "and.pred", f.setp("gt", t, mx, litF64(0)), f.setp("lt", t, mx, inf))
		ok = f.v("pred", "and.pred", ok, f.setp("lt", t, mn, inf))
		ql = f.sel(t, l, litF64(0), ok)
	}
	u, tail, c1, _ := f.atanCore(t, q, ql, true)
	// K ± C by (swap, x < 0, c1): 0, π/4, π/2, 3π/4 or π.
	var xneg string
	if t == "f32" {
		xneg = f.v("pred", "setp.lt.s32", f.v("b32", "mov.b32", x), "0")
	} else {
		xneg = f.v("pred", "setp.lt.s64", f.v("b64", "mov.b64", x), "0")
	}
	pick := func(v [5][2]float64, idx [8]int) (string, string) {
		// idx by swap·4 + xneg·2 + c1.
		choose := func(part int) string {
			val := func(k int) string { return lit(t, v[idx[k]][part]) }
			l0 := f.sel(t, val(1), val(0), c1)
			l1 := f.sel(t, val(3), val(2), c1)
			l2 := f.sel(t, val(5), val(4), c1)
			l3 := f.sel(t, val(7), val(6), c1)
			m0 := f.sel(t, l1, l0, xneg)
			m1 := f.sel(t, l3, l2, xneg)
			return f.sel(t, m1, m0, swap)
		}
		return choose(0), choose(1)
	}
	consts := [5][2]float64{{0, 0}, {c.Pio4Hi, c.Pio4Lo}, {c.Pio2Hi, c.Pio2Lo}, {c.Pi3o4Hi, c.Pi3o4Lo}, {c.PiHi, c.PiLo}}
	if t == "f32" {
		consts = [5][2]float64{{0, 0}, {float64(c.Pio4Hi32), float64(c.Pio4Lo32)}, {float64(c.Pio2Hi32), float64(c.Pio2Lo32)},
			{float64(c.Pi3o4Hi32), float64(c.Pi3o4Lo32)}, {float64(c.PiHi32), float64(c.PiLo32)}}
	}
	// index: (swap, xneg, c1) → 0:(0,0,0) π/4, 1:(0,0,1) 0, 2:(0,1,0) 3π/4,
	// 3:(0,1,1) π, 4:(1,0,0) π/4, 5:(1,0,1) π/2, 6:(1,1,0) 3π/4, 7:(1,1,1) π/2.
	kh, kl := pick(consts, [8]int{1, 0, 3, 4, 1, 2, 3, 2})
	neg := f.v("pred", "xor.pred", swap, xneg)
	su := f.sel(t, f.neg(t, u), u, neg)
	st := f.sel(t, f.neg(t, tail), tail, neg)
	s, e := f.fastTwoSum(t, kh, su)
	r := f.add(t, s, f.add(t, f.add(t, e, kl), st))
	r = f.v(t, "copysign."+t, y, r)
	return f.done(f.sel(t, nanLit(t), r, f.setp("nan", t, x, y)))
}
