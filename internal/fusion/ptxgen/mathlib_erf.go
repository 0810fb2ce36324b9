package ptxgen

import (
	"strconv"

	"github.com/gpuarr/gpuarr/internal/fusion/mathcoef"
)

// erf and erfc.
//
// Near 0: erf x = x + x·P(x²) (minimax), for |x| < 0.875 (float64 erf), |x|
// < 1 (float32 erf: its common path, the rest behind a branch) and |x| < ½
// (float64 erfc = 1 − erf, where nothing cancels: 1 − x is a TwoSum).
//
// Beyond, E(a) = erfc a for a ≥ ½ (Shepherd and Laframboise's
// substitution): E = e^{−a²}·Q(t)/(a + K), t = (a − K)/(a + K) = 1 − 2K·d
// with d = 1/(a + K), Q a minimax polynomial in t (K = 2 for float32, 3 for
// float64: one polynomial over a up to where erfc underflows) whose
// leading terms, which cancel, are evaluated by compensated Horner steps;
// d and Q are double-doubles and the product is rounded once; e^{−a²} is
// 2^k·(1 + em) from the exact square a² = zh + zl (TwoProd), reduced by
// ln 2 as a double-double (expTail), scaled in two steps so that a
// subnormal result is rounded once. erf = ±(1 − E(|x|)) there, erfc(x) =
// E(x) for x ≥ ½ and 2 − E(−x) for x ≤ −½. float32 evaluates E in plain
// float32 instead: erfc, E(x) for x ≥ 0 and 2 − E(−x) below on the whole
// line (no small-argument path to pay for as well), keeps 1/(a + 2) as a
// double-float (within 3 ulp, its bound 4), from the GPU's approximate
// reciprocal (rcp.approx) and its exact residual: no division
// (erfcLarge32, its Q fitted from a = 0); erf's result 1 − E for |x| ≥ 1,
// E ≤ 0.16, hides E's error, so there E is 2^(log₂ E) from a polynomial
// for log₂ E and the GPU's ex2.approx (erfWide32).
//
// erf(±0) = ±0, erf(±Inf) = ±1, erfc(+Inf) = 0, erfc(−Inf) = 2, NaN → NaN.

// erfcLarge returns E(a) for a ≥ ½ in float64 (a beyond the underflow
// point is clamped, which still gives 0).
func (f *fnBuilder) erfcLarge(a string) string {
	const t = "f64"
	k, amax, l1, l2 := 3.0, 27.5, ln2Hi, ln2Lo
	ac := f.v(t, "max."+t, a, lit(t, 0.5))
	ac = f.v(t, "min."+t, ac, lit(t, amax))
	// d = 1/(a + K) as a double-double (dh, dlo).
	den, denl := f.twoSum(t, ac, lit(t, k))
	dh := f.div(t, lit(t, 1), den)
	dres := f.fma(t, f.neg(t, dh), den, lit(t, 1))
	dlo := f.mul(t, f.fma(t, f.neg(t, dh), denl, dres), dh)
	tt := f.fma(t, lit(t, -2*k), dh, lit(t, 1))
	// Q(t): its leading terms cancel; their roundings are compensated.
	qh, ql := f.polyComp(t, tt, mathcoef.ErfcQF64, 6)
	// e^{−(zh + zl)} = 2^n·(1 + em + eml).
	zh, zl := f.twoProd(t, ac, ac)
	nzh := f.neg(t, zh)
	n := f.v(t, "cvt.rni."+t+"."+t, f.mul(t, nzh, lit(t, log2E)))
	r, rl := f.reduceLn2Minus(t, nzh, zl, n, l1, l2)
	em, eml := f.expTail(t, r, rl)
	ph, pl := f.fastTwoSum(t, lit(t, 1), em)
	pl = f.add(t, pl, eml)
	// (ph + pl)·(qh + ql)·(dh + dlo), rounded once.
	gh, ge := f.twoProd(t, qh, dh)
	gl := f.fma(t, qh, dlo, f.fma(t, ql, dh, ge))
	m := f.fma(t, ph, gh, f.fma(t, ph, gl, f.mul(t, pl, gh)))
	return f.ldexp(t, m, f.v("b32", "cvt.rni.s32."+t, n))
}

// erfcLarge32 is erfcLarge in float32 arithmetic without double-floats,
// for a ≥ 0: a is clamped to [0, erfcMax32] by a select whose unordered
// compare keeps a NaN, so NaN in gives NaN out with no select of its own.
// d = 1/(a + 2) by rcp.approx (within an ulp: one MUFU.RCP, where rcp.rn
// adds a Newton step, a check and a branch to a slow path), as d + dl: the
// sum a + 2 as den + denl (denl = a − ((a + 2) − 2): both differences are
// exact for a in [0, 10.5]) and dl from the exact residual 1 − d·(den +
// denl); Q(t) by Horner's scheme at t = 1 − 4(d + dl), with Q's
// coefficients scaled by 2^−32 (exact); e^{−a²} = 2^n·(1 + em) with r =
// −zh − n·ln2 − zl (the exact square zh + zl; one rounding) and em = r +
// r²·(½ + r·G(r)) (n by the 1.5·2^23 shifter, whose bits give 2^(n+32));
// the result (1 + em)·Q·(d + dl)·2^−32 rounded twice (fma), then scaled by
// 2^(n+32): for a ≤ erfcMax32, n ≥ −147, so 2^(n+32) and the product
// before it are normal and a subnormal result is rounded once.
func (f *fnBuilder) erfcLarge32(a string) string {
	const t = "f32"
	ac := f.sel(t, a, litF32(erfcMax32), f.setp("ltu", t, a, litF32(erfcMax32)))
	den := f.add(t, ac, lit(t, 2))
	denl := f.sub(t, ac, f.sub(t, den, lit(t, 2)))
	d := f.v(t, "rcp.approx.ftz.f32", den) // den in [2, 12.1]
	nd := f.neg(t, d)
	dres := f.fma(t, nd, den, lit(t, 1))
	dl := f.mul(t, f.fma(t, nd, denl, dres), d)
	q := f.poly32(f.fma(t, lit(t, -4), dl, f.fma(t, lit(t, -4), d, lit(t, 1))), erfcQScaled32)
	qd := f.fma(t, q, d, f.mul(t, q, dl))
	// −a² = nzh − zl exactly.
	nzh := f.neg(t, f.mul(t, ac, ac))
	zl := f.fma(t, ac, ac, nzh)
	// j = rint(nzh·log₂e) + 1.5·2^23 (one rounding): n = j − 1.5·2^23
	// exactly, and j's bits are 0x4B400000 + n.
	j := f.fma(t, nzh, lit(t, log2E), litF32(0x1.8p23))
	n := f.sub(t, j, litF32(0x1.8p23))
	r1 := f.fma(t, f.neg(t, n), litF32(ln2HiF32), nzh) // exact
	r := f.sub(t, r1, f.fma(t, n, litF32(ln2LoF32), zl))
	h := f.fma(t, r, f.poly32(r, mathcoef.ExpGF32), lit(t, 0.5))
	em := f.fma(t, f.mul(t, r, r), h, r)
	m := f.fma(t, em, qd, qd)
	// 2^(n+32) from j's bits: j·2^23 + (127+32)·2^23 mod 2^32 = (n + 159)·2^23.
	pow2 := f.v(t, "mov.b32", f.v("b32", "mad.lo.s32", f.v("b32", "mov.b32", j), "8388608", strconv.Itoa((127+32)<<23)))
	return f.mul(t, m, pow2)
}

// erfcMax32 is where float32 erfc's argument is clamped: erfc(10.1) <
// 2^−150 rounds to 0.
const erfcMax32 = 10.1

// erfcQScaled32 is mathcoef.ErfcQF32·2^−32 (exact: powers of two).
var erfcQScaled32 = func() []float32 {
	c := make([]float32, len(mathcoef.ErfcQF32))
	for i, v := range mathcoef.ErfcQF32 {
		c[i] = v * 0x1p-32
	}
	return c
}()

// erfF32Func is erf_f32: x + x·P(x²) on its common path |x| < 1 (and
// NaN), and a branch to ±(1 − E(|x|)) beyond.
func erfF32Func() funcDef {
	const t = "f32"
	f := newFn("erf_f32")
	x := f.newReg(t)
	f.load(x, 0)
	a := f.abs(t, x)
	y := f.newReg(t)
	f.set(y, "fma.rn.f32", x, f.poly32(f.mul(t, a, a), mathcoef.ErfPF32), x)
	done := f.label("erf_done")
	f.branch(f.setp("ltu", t, a, lit(t, 1)), false, done)
	f.set(y, "copysign.f32", x, f.erfWide32(a))
	f.place(done)
	return f.done(y)
}

// erfWide32 is erf a for a in [1, 4] (a clamped to 4, where erf rounds
// to 1; +Inf too): 1 − E with E = erfc a = 2^−3·2^L(a), L = log₂ erfc a
// + 3 a minimax polynomial in a (mathcoef.ErfLog2F32), by ex2.approx. E ≤
// 0.16 scales the error of L and of ex2.approx in the result; L is in
// [−22.5, 0.33], small and positive near a = 1 where E is largest (ex2.approx
// errs less for positive arguments).
func (f *fnBuilder) erfWide32(a string) string {
	const t = "f32"
	l := f.poly32(f.v(t, "min.f32", a, litF32(4)), mathcoef.ErfLog2F32)
	return f.fma(t, f.v(t, "ex2.approx.ftz.f32", l), litF32(-0x1p-3), litF32(1))
}

// erfFunc is erfc_f32, erf_f64 and erfc_f64.
func erfFunc(name, t string) funcDef {
	if t == "f32" && name == "erf" {
		return erfF32Func()
	}
	f := newFn(name + "_" + t)
	x := f.newReg(t)
	f.load(x, 0)
	a := f.abs(t, x)
	var p string // x·P(x²) is erf x − x near 0 (float32 erfc has no use for it)
	if t == "f64" {
		p = f.poly64(f.mul(t, a, a), mathcoef.ErfPF64)
	}
	var e string
	if t == "f32" {
		e = f.erfcLarge32(a)
	} else {
		e = f.erfcLarge(a)
	}
	one := lit(t, 1)
	var y string
	if name == "erf" {
		small := f.fma(t, x, p, x)
		large := f.v(t, "copysign."+t, x, f.sub(t, one, e))
		y = f.sel(t, small, large, f.setp("lt", t, a, lit(t, 0.875)))
	} else {
		large := f.sel(t, e, f.sub(t, lit(t, 2), e), f.setp("gt", t, x, lit(t, 0)))
		if t == "f32" {
			// E covers every a ≥ 0 in float32 (mathcoef.ErfcQF32), and
			// NaN gives NaN (erfcLarge32).
			return f.done(large)
		} else {
			s, se := f.fastTwoSum(t, one, f.neg(t, x))
			small := f.add(t, s, f.fma(t, f.neg(t, x), p, se))
			y = f.sel(t, small, large, f.setp("lt", t, a, lit(t, 0.5)))
		}
	}
	return f.done(f.sel(t, x, y, f.isNaN(t, x)))
}
