package ptxgen

import (
	"strconv"

	"github.com/gpuarr/gpuarr/internal/fusion/mathcoef"
)

// pow(x, y) = ±|x|^y, |x|^y = 2^k·e^r from y·ln|x|.
//
// float64: ln|x| = e·ln2 + 2·atanh(s), s = f/(2+f) (x = 2^e·(1+f), 1+f in
// [√½, √2)), computed as a double-double to about 2^-66 relative: s and
// s² as double-doubles, 2·atanh(s) = 2s + s³·R(s²) with R's leading 2/3
// exact and the series' tail in plain float64 (14 terms), the e·ln2 terms
// added by TwoSum; then y·ln|x| as a double-double (TwoProd), reduced by
// ln 2 (reduceLn2Minus), e^r = 1 + em (expTail) and the scaling done on the
// double-double in two steps, so that even a subnormal result is rounded
// about once. The error is within 1 ulp.
//
// float32: in float32 arithmetic only, log₂|x| as a double-float (about
// 2^-31 relative), t = y·log₂|x| as a double-float, 2^t = 2^k·(1 + r·Q(r))
// with r = t − k, scaled in two steps: within 2 ulp (powMag32).
//
// The common case (float64: x > 0 finite, y finite, not 0, ±½ or 1, x not
// 1; float32: x > 0 finite, y finite, not ±½ or 1, where y = 0 and x = 1
// come out as 1 exactly) is that, branch-free; anything else branches to
// math.Pow's special cases, applied as selects in the order of its
// switch, the highest priority last: the sign by y's parity for x < 0
// (NaN for x < 0 and non-integer y), y = ±½ (sqrt), x = ±Inf, y = ±Inf,
// x = ±0, NaN, y = 1, then y = 0 or x = 1.

// powSeries are atanh's coefficients 2/(2k+1), k = 1…14.
var powSeries = logSeries(14)

// powMag64 returns |x|^y for finite x ≠ 0 and finite y (other inputs give
// values the special cases replace).
func (f *fnBuilder) powMag64(ax, y string) string {
	const t = "f64"
	e, fr := f.logReduce64(ax)
	// s = fr/(2+fr) as a double-double.
	dh, dl := f.fastTwoSum(t, litF64(2), fr)
	sh := f.div(t, fr, dh)
	res := f.fma(t, f.neg(t, sh), dh, fr)
	res = f.fma(t, f.neg(t, sh), dl, res)
	sl := f.div(t, res, dh)
	// z = s² as a double-double.
	zh, zl := f.twoProd(t, sh, sh)
	zl = f.fma(t, f.add(t, sh, sh), sl, zl)
	// R = 2/3 + z·(2/5 + …), its leading term exact.
	rt := f.mul(t, zh, f.poly64(zh, powSeries[1:]))
	c1h, c1l := mathcoef.Consts().TwoThirdsHi, mathcoef.Consts().TwoThirdsLo
	rh, rl := f.fastTwoSum(t, litF64(c1h), rt)
	rl = f.add(t, rl, litF64(c1l))
	// T = s·z·R.
	szh, sze := f.twoProd(t, sh, zh)
	szl := f.fma(t, sh, zl, f.fma(t, sl, zh, sze))
	th, te := f.twoProd(t, szh, rh)
	tl := f.fma(t, szh, rl, f.fma(t, szl, rh, te))
	// L1 = 2s + T; L = e·ln2 + L1.
	two := litF64(2)
	ah, ae := f.fastTwoSum(t, f.mul(t, sh, two), th)
	al := f.add(t, ae, f.fma(t, sl, two, tl))
	A := f.mul(t, e, litF64(ln2Hi)) // exact
	bh, be := f.twoProd(t, e, litF64(ln2Lo))
	s1, s1e := f.twoSum(t, A, ah)
	s2, s2e := f.twoSum(t, s1, bh)
	lh, ll := f.fastTwoSum(t, s2, f.add(t, f.add(t, s1e, s2e), f.add(t, be, al)))
	// y·L as a double-double, clamped where the result has over- or
	// underflowed by far.
	ph, pe := f.twoProd(t, y, lh)
	pl := f.fma(t, y, ll, pe)
	pc := f.v(t, "max.f64", ph, litF64(-1200))
	pc = f.v(t, "min.f64", pc, litF64(1200))
	pl = f.sel(t, pl, litF64(0), f.setp("eq", t, pc, ph))
	k := f.v(t, "cvt.rni.f64.f64", f.mul(t, pc, litF64(log2E)))
	r, rrl := f.reduceLn2Minus(t, pc, f.neg(t, pl), k, ln2Hi, ln2Lo)
	em, eml := f.expTail(t, r, rrl)
	qh, ql := f.fastTwoSum(t, litF64(1), em)
	ql = f.add(t, ql, eml)
	// 2^k·(qh + ql): for k < 0 (where the result may be subnormal) both
	// parts scaled by 2^k1 (exact) and added with the second factor in one
	// fma, so that it is rounded about once; for k ≥ 0 (the low part
	// alone could overflow) the rounded sum, scaled in two steps.
	ki := f.v("b32", "cvt.rni.s32.f64", k)
	k1 := f.v("b32", "shr.s32", ki, "1")
	s1p, s2p := f.pow2(t, k1), f.pow2(t, f.v("b32", "sub.s32", ki, k1))
	u, v := f.mul(t, qh, s1p), f.mul(t, ql, s1p)
	low := f.fma(t, u, s2p, f.mul(t, v, s2p))
	high := f.mul(t, f.mul(t, f.add(t, qh, ql), s1p), s2p)
	return f.sel(t, low, high, f.v("pred", "setp.lt.s32", ki, "0"))
}

// powMag32 sets dst to |x|^y rounded to float32, for float32 arguments
// ax = |x| (positive and normal; where subnormal is set, finite and not 0)
// and y (finite), in float32 arithmetic only:
//
//   - log₂|x| = e + log₂(1+f) (x = 2^e·(1+f), 1+f in [√½, √2), f exact:
//     logSplit32, or logCore32 where x may be subnormal) as a
//     double-float lh + ll (ll up to 1% of lh), relative error about
//     2^-31: log₂(1+f) = C·s + s³·R(s²) (mathcoef.PowLog2RF32) with
//     s = f/(2+f) (|s| ≤ 0.1716) as sh + sl (sh from rcp.approx of the
//     rounded 2+f, within an ulp: sl, from the residual f − sh·(2+f)
//     rounded once, makes up for both),
//     C = 2·log₂e as Chi + Clo with sh·Chi by TwoProd, the rest in plain
//     float32 (sl's share of s³ included), e added by FastTwoSum;
//   - t = y·(lh + ll) as ph + pl (TwoProd);
//   - 2^t = 2^n·2^r with n = rint(y·ll + ph) clamped to ±200, r = (ph −
//     n) + pl (the difference exact; r clamped below at −1, which only
//     the clamped cases reach), 2^r = 1 + r·Q(r) (mathcoef.Exp2QF32), scaled
//     in ldexp's two steps (a subnormal result rounded once, overflow to
//     +Inf).
func (f *fnBuilder) powMag32(dst, ax, y string, subnormal bool) {
	const t = "f32"
	var e, fr string
	if subnormal {
		e, fr, _ = f.logCore32(ax)
	} else {
		ei, frn := f.logSplit32(f.v("b32", "mov.b32", ax), strconv.Itoa(logSqrtHalfBits))
		e, fr = f.v(t, "cvt.rn.f32.s32", ei), frn
	}
	// s = fr/(2+fr) = sh + sl: sl from the residual fr − sh·(2+fr) =
	// (fr − 2sh) − sh·fr, rounded once (fr − 2sh is exact: 2sh is within
	// a factor 2 of fr).
	rc := f.v(t, "rcp.approx.ftz.f32", f.add(t, fr, litF32(2))) // in [0.41, 0.59]
	sh := f.mul(t, fr, rc)
	nsh := f.neg(t, sh)
	res := f.fma(t, nsh, fr, f.fma(t, nsh, litF32(2), fr))
	sl := f.mul(t, res, rc)
	// log₂(1+f) = sh·Chi + (sh·w + sl·(Chi + C·z)), w = z·R(z) + Clo,
	// z = sh².
	z := f.mul(t, sh, sh)
	w := f.fma(t, z, f.poly32(z, mathcoef.PowLog2RF32), litF32(powLog2CLo))
	// p1 = sh·Chi = −np1, e1 its exact error; e + p1 = lh + ll's
	// −(np1 + (lh − e)) (FastTwoSum: |e| ≥ 1 > |p1|, or e = 0).
	np1 := f.mul(t, sh, litF32(-powLog2CHi))
	e1 := f.fma(t, sh, litF32(powLog2CHi), np1)
	cz := f.fma(t, z, litF32(powLog2CHi), litF32(powLog2CHi))
	tail := f.fma(t, sh, w, f.fma(t, sl, cz, e1))
	lh := f.sub(t, e, np1)
	ll := f.sub(t, tail, f.add(t, np1, f.sub(t, lh, e)))
	// t = y·(lh + ll) = ph + pl.
	ph, pe := f.twoProd(t, y, lh)
	pl := f.fma(t, y, ll, pe)
	th := f.v(t, "max.f32", f.fma(t, y, ll, ph), litF32(-200)) // not ph + pl: NaN where ph overflowed
	th = f.v(t, "min.f32", th, litF32(200))
	n, ni := f.rint32(th, "")
	r := f.add(t, f.sub(t, ph, n), pl)
	// r is NaN or huge only where th was clamped: NaN and r below −1
	// (th = −200) become −1, and a huge r (th = 200) makes q, and the
	// result, +Inf, as it should be.
	r = f.v(t, "max.f32", r, litF32(-1))
	q := f.fma(t, r, f.poly32(r, mathcoef.Exp2QF32), litF32(1))
	u, s2 := f.ldexpHalf32(q, ni)
	f.set(dst, "mul.rn.f32", u, s2)
}

// ldexpHalf32 is ldexp's two steps for float32 x and an s32 n within
// ±252 less the last multiplication: x·2^⌊n/2⌋ and 2^(n−⌊n/2⌋), whose
// product (rounded once where it is subnormal) is x·2^n. The powers of
// two are built by one integer multiply-add each.
func (f *fnBuilder) ldexpHalf32(x, n string) (u, s2 string) {
	const t = "f32"
	n1 := f.v("b32", "shr.s32", n, "1")
	s1 := f.v(t, "mov.b32", f.v("b32", "mad.lo.s32", n1, "8388608", "1065353216"))
	s2 = f.v(t, "mov.b32", f.v("b32", "mad.lo.s32", f.v("b32", "sub.s32", n, n1), "8388608", "1065353216"))
	return f.mul(t, x, s1), s2
}

// powLog2C is C = 2·log₂e as float32 Chi + Clo: log₂(1+f) = C·atanh(s).
var (
	powLog2CHi = float32(2 * log2E)
	powLog2CLo = float32(2*log2E - float64(powLog2CHi))
)

// powSpecials applies math.Pow's special cases (see above) to mag =
// |x|^y, in float64.
func (f *fnBuilder) powSpecials(x, y, mag string) string {
	const t = "f64"
	inf, ninf, nan := "0d7FF0000000000000", "0dFFF0000000000000", "0d7FF8000000000000"
	tr := f.v(t, "cvt.rzi.f64.f64", y)
	pyi := f.setp("eq", t, tr, y)
	h := f.mul(t, y, litF64(0.5))
	podd := f.v("pred", "and.pred", f.setp("ne", t, f.v(t, "cvt.rzi.f64.f64", h), h), pyi)
	pneg := f.setp("lt", t, x, litF64(0))
	r := f.sel(t, f.neg(t, mag), mag, f.v("pred", "and.pred", pneg, podd))
	r = f.sel(t, nan, r, f.v("pred", "and.pred", f.v("pred", "not.pred", pyi), pneg))
	// y = ±½.
	sq := f.v(t, "sqrt.rn.f64", x)
	r = f.sel(t, sq, r, f.setp("eq", t, y, litF64(0.5)))
	r = f.sel(t, f.div(t, litF64(1), sq), r, f.setp("eq", t, y, litF64(-0.5)))
	// x = +Inf: y < 0 → 0, else +Inf.
	pyneg := f.setp("lt", t, y, litF64(0))
	pypos := f.setp("gt", t, y, litF64(0))
	r = f.sel(t, f.sel(t, litF64(0), inf, pyneg), r, f.setp("eq", t, x, inf))
	// x = −Inf: pow(−0, −y).
	v1 := f.sel(t, ninf, inf, podd)
	v2 := f.sel(t, "0d8000000000000000", litF64(0), podd)
	r = f.sel(t, f.sel(t, v1, v2, pypos), r, f.setp("eq", t, x, ninf))
	// y = ±Inf: x = −1 → 1; (|x| < 1) == (y > 0) → 0; else +Inf.
	ax := f.abs(t, x)
	v := f.sel(t, inf, litF64(0), f.v("pred", "xor.pred", f.setp("lt", t, ax, litF64(1)), pypos))
	v = f.sel(t, litF64(1), v, f.setp("eq", t, x, litF64(-1)))
	r = f.sel(t, v, r, f.setp("eq", t, f.abs(t, y), inf))
	// x = ±0: y < 0 → ∓Inf by sign(x)·odd, else x or +0.
	pnx := f.v("pred", "and.pred", f.v("pred", "setp.lt.s64", f.v("b64", "mov.b64", x), "0"), podd)
	v1 = f.sel(t, ninf, inf, pnx)
	v2 = f.sel(t, x, litF64(0), pnx)
	r = f.sel(t, f.sel(t, v1, v2, pyneg), r, f.setp("eq", t, x, litF64(0)))
	// NaN, y = 1, y = 0 or x = 1.
	r = f.sel(t, nan, r, f.setp("nan", t, x, y))
	r = f.sel(t, x, r, f.setp("eq", t, y, litF64(1)))
	one := f.v("pred", "or.pred", f.setp("eq", t, y, litF64(0)), f.setp("eq", t, x, litF64(1)))
	return f.sel(t, litF64(1), r, one)
}

// powCommon32 is the predicate of the float32 arguments that need no
// special case: x > 0 normal and finite, y finite, not ±½ or 1.
// (y = 0 and x = 1 give 1 exactly on the common path: 2^(y·log₂x) with a
// zero exponent.)
func (f *fnBuilder) powCommon32(x, y string) string {
	const t = "f32"
	ok := f.normal32(f.v("b32", "mov.b32", x))
	ay := f.abs(t, y)
	ok = f.v("pred", "and.pred", ok, f.setp("lt", t, ay, "0f7F800000"))
	ok = f.v("pred", "and.pred", ok, f.setp("ne", t, y, litF32(1)))
	return f.v("pred", "and.pred", ok, f.setp("ne", t, ay, litF32(0.5)))
}

// powSpecialCase is the predicate of the arguments that need
// powSpecials: not (x > 0 finite, y finite, y not 0, ±½ or 1, x ≠ 1).
// x and y are of type t (float32 arguments are tested as they are).
func (f *fnBuilder) powSpecialCase(t, x, y string) string {
	inf := "0d7FF0000000000000"
	if t == "f32" {
		inf = "0f7F800000"
	}
	ok := f.v("pred", "and.pred", f.setp("gt", t, x, lit(t, 0)), f.setp("lt", t, x, inf))
	ok = f.v("pred", "and.pred", ok, f.setp("lt", t, f.abs(t, y), inf))
	ok = f.v("pred", "and.pred", ok, f.setp("ne", t, y, lit(t, 0)))
	ok = f.v("pred", "and.pred", ok, f.setp("ne", t, y, lit(t, 1)))
	ok = f.v("pred", "and.pred", ok, f.setp("ne", t, f.abs(t, y), lit(t, 0.5)))
	ok = f.v("pred", "and.pred", ok, f.setp("ne", t, x, lit(t, 1)))
	return f.v("pred", "not.pred", ok)
}

func powFunc(t string) funcDef {
	f := newFn("pow_" + t)
	x, y := f.newReg(t), f.newReg(t)
	f.load(x, 0)
	f.load(y, 1)
	done := f.label("pow_done")
	if t == "f32" {
		res := f.newReg("f32")
		f.powMag32(res, x, y, false)
		f.branch(f.powCommon32(x, y), false, done)
		// |x|^y again for x < 0 or subnormal, then the special cases in
		// float64 (exact for float32 arguments).
		f.powMag32(res, f.abs(t, x), y, true)
		yd := f.v("f64", "cvt.f64.f32", y)
		xd := f.v("f64", "cvt.f64.f32", x)
		f.set(res, "cvt.rn.f32.f64", f.powSpecials(xd, yd, f.v("f64", "cvt.f64.f32", res)))
		f.place(done)
		return f.done(res)
	}
	res := f.newReg("f64")
	f.set(res, "mov.f64", f.powMag64(f.abs(t, x), y))
	f.branch(f.powSpecialCase(t, x, y), true, done)
	f.set(res, "mov.f64", f.powSpecials(x, y, res))
	f.place(done)
	return f.done(res)
}
