package ptxgen

import (
	"math"
	"strconv"

	"github.com/gpuarr/gpuarr/internal/fusion/mathcoef"
)

// asinh, acosh and atanh through log1p (log1p_f64; float32: log1pPos32,
// mathlib_log32.go), with arguments arranged so that nothing cancels
// (fdlibm's forms):
//
//	asinh a = log1p(a + a²/(1 + √(1 + a²)))             a < big
//	        = log1p(2a − 1)  (= ln 2a, exact argument)    big ≤ a < 2^(p−1)
//	        = log1p(2a)                                   beyond, up to 2^(emax−1)
//	        = log1p(a) + ln 2                              for the largest a
//	acosh x = log1p(t + √(t·(t + 2))), t = x − 1 (exact)  x < big
//	        and the same ln 2x forms above
//	atanh a = ½·log1p(2a + 2a²/(1 − a))                    a < ½
//	        = ½·log1p(2a/(1 − a))                          a ≥ ½ (1 − a exact)
//
// with a = |x| and x's sign for asinh and atanh. big is where the
// dropped 1/(4a²) is below 2^-p relative (2^28 for float64, 2^12 for
// float32). Special values: asinh(±Inf) = ±Inf, acosh(x < 1) = NaN,
// acosh(1) = 0, atanh(±1) = ±Inf, atanh(|x| > 1) = NaN, ±0 → ±0.
//
// float32 asinh takes an odd minimax polynomial, a + a³·P(a²), for
// |x| < 1, its common path, branches to a polynomial in a − 2 for 1 ≤ |x|
// < 3 (normal samples rarely go beyond, so their warps seldom pay for the
// logarithm) and from there to ln(a + √(a² + 1)) (asinhWide32);
// float32 acosh takes ln(x + √(x² − 1)) up to 2^63, from the rounded sum
// and its error (logSum32: no cancellation near 1), and ln x + ln 2
// beyond, by selects, its root by sqrt32; float32 atanh's 2a/(1 − a) is 2a + 2a·q
// for every a, q = a/(1 − a) from rcp.approx, uncorrected (an ulp and a
// half in q costs the result at most one: its bound is 3).

func asinhFunc(t string) funcDef {
	f := newFn("asinh_" + t)
	x := f.newReg(t)
	f.load(x, 0)
	if t == "f64" {
		return f.done(f.asinhLog(t, x))
	}
	// float32: a + a³·P(a²) on the common path |x| < 1 (and NaN), P(a −
	// 2) for a in [1, 3) and the logarithm beyond, behind branches.
	// Computed on a = |x| with x's sign put back, so that asinh(−0) is −0.
	a := f.abs(t, x)
	z := f.mul(t, a, a)
	y := f.newReg(t)
	f.set(y, "fma.rn.f32", f.mul(t, a, z), f.poly32(z, mathcoef.AsinhPF32), a)
	f.set(y, "copysign.f32", x, y)
	done := f.label("asinh_done")
	f.branch(f.setp("ltu", t, a, lit(t, 1)), false, done)
	f.set(y, "copysign.f32", x, f.poly32(f.sub(t, a, litF32(2)), mathcoef.AsinhP2F32))
	f.branch(f.setp("lt", t, a, lit(t, 3)), false, done)
	f.set(y, "copysign.f32", x, f.asinhWide32(a))
	f.place(done)
	return f.done(y)
}

// asinhWide32 is asinh a for a ≥ 1 (+Inf included): ln s, s = a + √(a² +
// 1) ≥ 1 + √2, so no log1p is needed; the root by sqrt32, s rounded once
// (its rounding moves ln s by at most 2^-24, an ulp of a result below 1:
// the bound, 3 ulp, has room for it). For a ≥ 2^12 it is ln a + ln 2
// (a² + 1 = a² in float32), the ln 2 added to the exponent. ln s = e·ln 2 + (f + f²·Q(f)), s = 2^e·(1 + f), 1+f in
// [√½, √2): log_f32's arithmetic (mathlib_log32.go).
func (f *fnBuilder) asinhWide32(a string) string {
	const t = "f32"
	big := f.setp("ge", t, a, litF32(0x1p12))
	s := f.sel(t, a, f.add(t, f.sqrt32(f.fma(t, a, a, litF32(1))), a), big)
	ei, fr := f.logSplit32(f.v("b32", "mov.b32", s), strconv.Itoa(logSqrtHalfBits))
	ei = f.v("b32", "add.s32", ei, f.v("b32", "selp.s32", "1", "0", big))
	r := f.fma(t, f.mul(t, fr, fr), f.poly32(fr, mathcoef.LnQF32), fr)
	y := f.fma(t, f.v(t, "cvt.rn.f32.s32", ei), litF32(float32(math.Ln2)), r)
	return f.sel(t, a, y, f.setp("eq", t, a, "0f7F800000"))
}

// asinhLog is asinh x through log1p, for every x.
func (f *fnBuilder) asinhLog(t, x string) string {
	a := f.abs(t, x)
	one := lit(t, 1)
	big, exact, huge := 0x1p28, 0x1p52, 0x1p1022
	if t == "f32" {
		big, exact, huge = 0x1p12, 0x1p23, 0x1p126
	}
	// a + a²/(1 + √(1 + a²)).
	a2 := f.mul(t, a, a)
	d := f.add(t, one, f.v(t, "sqrt.rn."+t, f.add(t, one, a2)))
	mid := f.add(t, a, f.div(t, a2, d))
	twoA := f.add(t, a, a)
	arg := f.sel(t, f.sub(t, twoA, one), twoA, f.setp("lt", t, a, lit(t, exact)))
	arg = f.sel(t, mid, arg, f.setp("lt", t, a, lit(t, big)))
	pHuge := f.setp("ge", t, a, lit(t, huge))
	arg = f.sel(t, a, arg, pHuge)
	y := f.log1p(t, arg)
	y = f.sel(t, f.add(t, y, lit(t, ln2Const(t))), y, pHuge)
	y = f.v(t, "copysign."+t, x, y)
	return f.sel(t, x, y, f.setp("equ", t, a, lit(t, 0)))
}

func acoshFunc(t string) funcDef {
	f := newFn("acosh_" + t)
	x := f.newReg(t)
	f.load(x, 0)
	one := lit(t, 1)
	big, exact, huge := 0x1p28, 0x1p52, 0x1p1022
	if t == "f32" {
		big, exact, huge = 0x1p12, 0x1p23, 0x1p126
	}
	if t == "f32" {
		// ln(x + s), s = √(x² − 1) by sqrt32 of x·|x| − 1 rounded once
		// (one fma), for 1 ≤ x < 2^63 (x² finite): the sum u = x + s
		// rounded and its error c = (x − u) + s (FastTwoSum: s < x) go to
		// logSum32, so that nothing cancels near x = 1. Beyond, s = 0 and
		// ln 2 is added: ln x + ln 2 (x² − 1 = x²). Selects, no branch.
		// x·|x| − 1 is negative for every x < 1 (and NaN for NaN), so the
		// root, and the result, is NaN there.
		pHuge := f.setp("ge", t, x, litF32(0x1p63))
		s := f.sel(t, litF32(0), f.sqrt32(f.fma(t, x, f.abs(t, x), litF32(-1))), pHuge)
		u := f.add(t, x, s)
		y := f.logSum32(u, f.add(t, f.sub(t, x, u), s), true)
		y = f.add(t, y, f.sel(t, lit(t, ln2Const(t)), litF32(0), pHuge))
		return f.done(f.sel(t, x, y, f.setp("eq", t, x, "0f7F800000"))) // +Inf: +Inf
	}
	tt := f.sub(t, x, one)
	mid := f.add(t, tt, f.v(t, "sqrt.rn."+t, f.mul(t, tt, f.add(t, tt, lit(t, 2)))))
	twoX := f.add(t, x, x)
	arg := f.sel(t, f.sub(t, twoX, one), twoX, f.setp("lt", t, x, lit(t, exact)))
	arg = f.sel(t, mid, arg, f.setp("lt", t, x, lit(t, big)))
	pHuge := f.setp("ge", t, x, lit(t, huge))
	arg = f.sel(t, x, arg, pHuge)
	y := f.log1p(t, arg)
	y = f.sel(t, f.add(t, y, lit(t, ln2Const(t))), y, pHuge)
	// x < 1 → NaN (x = 1 gives log1p(0) = 0).
	return f.done(f.sel(t, nanLit(t), y, f.setp("lt", t, x, one)))
}

func atanhFunc(t string) funcDef {
	f := newFn("atanh_" + t)
	x := f.newReg(t)
	f.load(x, 0)
	a := f.abs(t, x)
	one := lit(t, 1)
	om := f.sub(t, one, a)
	twoA := f.add(t, a, a)
	if t == "f32" {
		// 2a/(1 − a) = 2a + 2a·q, q = a·rcp.approx(1 − a), for every
		// a < 1 (1 − a is 1, or normal; q's error reaches the sum scaled
		// by q/(1 + q) < 1). a = 1: rcp.approx(+0) = +Inf, and so are the
		// argument and the result; a > 1 (an argument below −1) is NaN by
		// the select. ±0 → ±0 and NaN → NaN as they are.
		q := f.mul(t, a, f.v(t, "rcp.approx.ftz.f32", om))
		y := f.log1pPos32(f.fma(t, twoA, q, twoA))
		y = f.sel(t, nanLit(t), y, f.setp("gt", t, a, one))
		return f.done(f.v(t, "copysign."+t, x, f.mul(t, y, lit(t, 0.5))))
	}
	q := f.div(t, a, om)
	arg := f.add(t, q, q) // 2a/(1 − a): doubling is exact
	small := f.fma(t, twoA, q, twoA)
	arg = f.sel(t, small, arg, f.setp("lt", t, a, lit(t, 0.5)))
	y := f.log1p(t, arg) // a = 1: log1p(+Inf) = +Inf; a > 1: log1p(< −1) = NaN
	y = f.mul(t, y, lit(t, 0.5))
	y = f.v(t, "copysign."+t, x, y)
	return f.done(f.sel(t, x, y, f.setp("equ", t, a, lit(t, 0))))
}

// log1p is log1p(x) for the x ≥ 0 (or NaN, +Inf) these functions pass:
// inline in float32 (log1pPos32), a call of log1p_f64 in float64.
func (f *fnBuilder) log1p(t, x string) string {
	if t == "f32" {
		return f.log1pPos32(x)
	}
	y := f.newReg(t)
	f.call("log1p_"+t, y, x)
	return y
}

func ln2Const(t string) float64 {
	if t == "f32" {
		return float64(float32(ln2Hi + ln2Lo))
	}
	return ln2Hi + ln2Lo
}

func nanLit(t string) string {
	if t == "f32" {
		return "0f7FC00000"
	}
	return "0d7FF8000000000000"
}
