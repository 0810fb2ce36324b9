package ptxgen

import "github.com/gpuarr/gpuarr/internal/fusion/mathcoef"

// log2, log10 and log1p (float64), and the float32 reduction that
// asinh's wide path uses.
//
// float64: x = 2^e·m with m in [√½, √2) (subnormals scaled by 2^54 first)
// and f = m − 1 exact, as log_f64 does; log(1+f) is kept as a
// double-double (lh, ll) = f − ½f² + s·(½f² + R), s = f/(2+f), R = s²·P(s²)
// (fdlibm's arrangement, with ½f² split exactly by an fma), and the result
// is assembled in double-double arithmetic from e and the constant's
// splits (log₂e, log₁₀e, log₁₀2), rounded once at the end. log1p takes f = x
// itself for x in (√½−1, √2−1) (no rounding of 1+x), and otherwise
// reduces u = 1 + x with the rounding error c of that sum (TwoSum) added as
// c/u.
//
// float32: mathlib_log32.go. logReduceNormal32 and log1pTail32 below
// serve asinh_f32's wide path (x = 2^e·m with m in [⅔, 4/3), log(1+f) =
// f + f²·Q(f), mathcoef.LogQF32).
//
// Special values: x < 0 (log1p: x < −1) → NaN, 0 (−1) → −Inf, +Inf → +Inf,
// ±0 → ±0 for log1p, NaN → NaN.

// logReduce64 returns e (as a float64) and f with x = 2^e·(1+f), 1+f in
// [√½, √2), for finite x > 0.
func (f *fnBuilder) logReduce64(x string) (e, fr string) {
	const t = "f64"
	psub := f.setp("lt", t, x, litF64(0x1p-1022))
	xs := f.sel(t, f.mul(t, x, litF64(0x1p54)), x, psub)
	eadj := f.v("b32", "selp.s32", "-54", "0", psub)
	bits := f.v("b64", "mov.b64", xs)
	u := f.v("b64", "shr.u64", bits, "52")
	u = f.v("b64", "and.b64", u, "2047")
	ei := f.v("b32", "cvt.u32.u64", u)
	m := f.v("b64", "and.b64", bits, "4503599627370495")      // 2⁵²−1
	pbig := f.v("pred", "setp.gt.u64", m, "1865452045155277") // √2's mantissa field
	mb := f.v("b64", "or.b64", m, "0x3FF0000000000000")
	mh := f.v("b64", "or.b64", m, "0x3FE0000000000000")
	mb = f.v("b64", "selp.b64", mh, mb, pbig)
	eb := f.v("b32", "selp.s32", "-1022", "-1023", pbig)
	ei = f.v("b32", "add.s32", ei, eb)
	ei = f.v("b32", "add.s32", ei, eadj)
	fr = f.sub(t, f.v(t, "mov.b64", mb), litF64(1))
	return f.v(t, "cvt.rn.f64.s32", ei), fr
}

// log1pCore64 returns log(1+fr) as a double-double for fr in [√½−1, √2−1].
func (f *fnBuilder) log1pCore64(fr string) (lh, ll string) {
	const t = "f64"
	s := f.div(t, fr, f.add(t, fr, litF64(2)))
	z := f.mul(t, s, s)
	r := f.mul(t, z, f.poly64(z, logF64Coef))
	sq, sql := f.twoProd(t, fr, fr)
	h := f.mul(t, sq, litF64(0.5))
	hl := f.mul(t, sql, litF64(0.5))
	corr := f.mul(t, s, f.add(t, h, r))
	lh, ll = f.fastTwoSum(t, fr, f.neg(t, h))
	return lh, f.add(t, ll, f.sub(t, corr, hl))
}

// logSpecial64 applies log's special values (x < 0, 0, +Inf, NaN) to y.
func (f *fnBuilder) logSpecials(t, x, y string) string {
	nan, inf, ninf := "0d7FF8000000000000", "0d7FF0000000000000", "0dFFF0000000000000"
	if t == "f32" {
		nan, inf, ninf = "0f7FC00000", "0f7F800000", "0fFF800000"
	}
	y = f.sel(t, nan, y, f.setp("lt", t, x, lit(t, 0)))
	y = f.sel(t, ninf, y, f.setp("eq", t, x, lit(t, 0)))
	y = f.sel(t, x, y, f.setp("eq", t, x, inf))
	return f.sel(t, x, y, f.isNaN(t, x))
}

func log2F64Func() funcDef {
	const t = "f64"
	c := mathcoef.Consts()
	f := newFn("log2_f64")
	x := f.newReg(t)
	f.load(x, 0)
	e, fr := f.logReduce64(x)
	lh, ll := f.log1pCore64(fr)
	p, pe := f.twoProd(t, lh, litF64(c.Log2eHi))
	q := f.fma(t, ll, litF64(c.Log2eHi), f.fma(t, lh, litF64(c.Log2eLo), pe))
	a, ae := f.twoSum(t, e, p)
	y := f.add(t, a, f.add(t, ae, q))
	return f.done(f.logSpecials(t, x, y))
}

func log10F64Func() funcDef {
	const t = "f64"
	c := mathcoef.Consts()
	f := newFn("log10_f64")
	x := f.newReg(t)
	f.load(x, 0)
	e, fr := f.logReduce64(x)
	lh, ll := f.log1pCore64(fr)
	A := f.mul(t, e, litF64(c.Log10of2Hi)) // exact: 32 × 11 bits
	p, pe := f.twoProd(t, lh, litF64(c.Log10eHi))
	q := f.fma(t, ll, litF64(c.Log10eHi), f.fma(t, lh, litF64(c.Log10eLo), pe))
	q = f.fma(t, e, litF64(c.Log10of2Lo), q)
	a, ae := f.twoSum(t, A, p)
	y := f.add(t, a, f.add(t, ae, q))
	return f.done(f.logSpecials(t, x, y))
}

func log1pF64Func() funcDef {
	const t = "f64"
	c := mathcoef.Consts()
	f := newFn("log1p_f64")
	x := f.newReg(t)
	f.load(x, 0)
	small := f.v("pred", "and.pred", f.setp("gt", t, x, litF64(-0.2928932188134524)), f.setp("lt", t, x, litF64(0.41421356237309503)))
	u, cu := f.twoSum(t, litF64(1), x)
	// u is at least 2^-53 where it is used (x ≥ −1 + 2^-53); elsewhere
	// clamp it, to keep the reduction's arithmetic tame.
	uc := f.v(t, "max.f64", u, litF64(0x1p-60))
	eu, fu := f.logReduce64(uc)
	fr := f.sel(t, x, fu, small)
	e := f.sel(t, litF64(0), eu, small)
	corr := f.sel(t, litF64(0), f.div(t, cu, uc), small)
	lh, ll := f.log1pCore64(fr)
	A := f.mul(t, e, litF64(c.Ln2Hi))
	a, ae := f.twoSum(t, A, lh)
	tail := f.add(t, f.add(t, ae, ll), f.fma(t, e, litF64(c.Ln2Lo), corr))
	y := f.add(t, a, tail)
	// Special values: x < −1 → NaN, −1 → −Inf, +Inf, ±0 and NaN as they are.
	y = f.sel(t, "0d7FF8000000000000", y, f.setp("lt", t, x, litF64(-1)))
	y = f.sel(t, "0dFFF0000000000000", y, f.setp("eq", t, x, litF64(-1)))
	y = f.sel(t, x, y, f.setp("eq", t, x, "0d7FF0000000000000"))
	return f.done(f.sel(t, x, y, f.setp("equ", t, x, litF64(0))))
}

// logReduceNormal32 returns e (s32) and f with x = 2^e·(1+f), 1+f in
// [⅔, 4/3), for a normal x > 0 (or +Inf, which gives e = 128, f = 0).
func (f *fnBuilder) logReduceNormal32(x string) (ei, fr string) {
	bits := f.v("b32", "mov.b32", x)
	ei = f.v("b32", "shr.u32", bits, "23")
	ei = f.v("b32", "and.b32", ei, "255")
	m := f.v("b32", "and.b32", bits, "8388607")
	pbig := f.v("pred", "setp.gt.u32", m, "2796202") // 4/3's mantissa field
	mb := f.v("b32", "selp.b32", f.v("b32", "or.b32", m, "0x3F000000"), f.v("b32", "or.b32", m, "0x3F800000"), pbig)
	ei = f.v("b32", "add.s32", ei, f.v("b32", "selp.s32", "-126", "-127", pbig))
	return ei, f.sub("f32", f.v("f32", "mov.b32", mb), litF32(1))
}

// log1pTail32 is f²·Q(f) = log(1+f) − f for f in [−⅓, ⅓].
func (f *fnBuilder) log1pTail32(fr string) string {
	return f.mul("f32", f.mul("f32", fr, fr), f.poly32(fr, mathcoef.LogQF32))
}
