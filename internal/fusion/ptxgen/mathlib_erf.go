package ptxgen

import "github.com/gpuarr/gpuarr/internal/fusion/mathcoef"

// erf and erfc.
//
// Near 0: erf x = x + x·P(x²) (minimax), for |x| < 0.875 (erf) and |x| < ½
// (erfc = 1 − erf, where nothing cancels: 1 − x is a TwoSum).
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
// E(x) for x ≥ ½ and 2 − E(−x) for x ≤ −½.
//
// erf(±0) = ±0, erf(±Inf) = ±1, erfc(+Inf) = 0, erfc(−Inf) = 2, NaN → NaN.

// erfcLarge returns E(a) for a ≥ ½ (a beyond the underflow point is
// clamped, which still gives 0).
func (f *fnBuilder) erfcLarge(t, a string) string {
	k, amax, l1, l2 := 3.0, 27.5, ln2Hi, ln2Lo
	if t == "f32" {
		k, amax, l1, l2 = 2, 10.5, float64(ln2HiF32), float64(ln2LoF32)
	}
	ac := f.v(t, "max."+t, a, lit(t, 0.5))
	ac = f.v(t, "min."+t, ac, lit(t, amax))
	// d = 1/(a + K) as a double-double (dh, dlo).
	den, denl := f.twoSum(t, ac, lit(t, k))
	dh := f.div(t, lit(t, 1), den)
	dres := f.fma(t, f.neg(t, dh), den, lit(t, 1))
	dlo := f.mul(t, f.fma(t, f.neg(t, dh), denl, dres), dh)
	tt := f.fma(t, lit(t, -2*k), dh, lit(t, 1))
	// Q(t): its leading terms cancel; their roundings are compensated.
	var qh, ql string
	if t == "f32" {
		c := make([]float64, len(mathcoef.ErfcQF32))
		for i, v := range mathcoef.ErfcQF32 {
			c[i] = float64(v)
		}
		qh, ql = f.polyComp(t, tt, c, 3)
	} else {
		qh, ql = f.polyComp(t, tt, mathcoef.ErfcQF64, 6)
	}
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

func erfFunc(name, t string) funcDef {
	f := newFn(name + "_" + t)
	x := f.newReg(t)
	f.load(x, 0)
	a := f.abs(t, x)
	z := f.mul(t, a, a)
	var p string
	if t == "f32" {
		p = f.poly32(z, mathcoef.ErfPF32)
	} else {
		p = f.poly64(z, mathcoef.ErfPF64)
	}
	e := f.erfcLarge(t, a)
	one := lit(t, 1)
	var y string
	if name == "erf" {
		small := f.fma(t, x, p, x)
		large := f.v(t, "copysign."+t, x, f.sub(t, one, e))
		y = f.sel(t, small, large, f.setp("lt", t, a, lit(t, 0.875)))
	} else {
		s, se := f.fastTwoSum(t, one, f.neg(t, x))
		small := f.add(t, s, f.fma(t, f.neg(t, x), p, se))
		large := f.sel(t, e, f.sub(t, lit(t, 2), e), f.setp("gt", t, x, lit(t, 0)))
		y = f.sel(t, small, large, f.setp("lt", t, a, lit(t, 0.5)))
	}
	return f.done(f.sel(t, x, y, f.isNaN(t, x)))
}
