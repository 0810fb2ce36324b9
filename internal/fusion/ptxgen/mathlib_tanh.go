package ptxgen

import "github.com/gpuarr/gpuarr/internal/fusion/mathcoef"

// tanh(x) = sign(x)·t(|x|): for a = |x| below a threshold an odd minimax
// polynomial with no cancellation, a + a³·T(a²) (mathcoef: float64's for
// a < tanhSmall, float32's for a < 1), above it 1 − 2/(e^{2a}+1), which is
// ≥ 0.5 there and so loses nothing (float64: in double-double arithmetic,
// e^{2a} = 2^k·(1 + em) from expTail, the quotient corrected by its
// residual, rounded once); a is clamped to where that is 1 in the type.
// float32's e^{2a} is exp_f32's arithmetic inline (expSmall32). float64
// computes both sides and selects one; float32 takes its polynomial, the
// common path, and branches to the other side for |x| ≥ 1. ±0 keeps its
// sign, NaN passes through.

func tanhF64Func() funcDef {
	const t = "f64"
	f := newFn("tanh_f64")
	x := f.newReg(t)
	f.load(x, 0)
	a := f.abs(t, x)
	// Small a: a + a³·T(a²).
	a2 := f.mul(t, a, a)
	small := f.fma(t, f.mul(t, a2, a), f.poly64(a2, mathcoef.TanhTF64), a)
	// Large a: 1 − 2/(E + 1), E = e^y = 2^k·(1 + em + eml), y = 2a.
	y := f.mul(t, f.v(t, "min.f64", a, litF64(tanhClampF64)), litF64(2))
	k := f.v(t, "cvt.rni.f64.f64", f.mul(t, y, litF64(log2E)))
	r, rl := f.reduceLn2(t, y, k, ln2Hi, ln2Lo)
	em, eml := f.expTail(t, r, rl)
	s := f.pow2(t, f.v("b32", "cvt.rni.s32.f64", k))
	eh, el := f.fastTwoSum(t, s, f.mul(t, s, em))
	el = f.fma(t, s, eml, el)
	dh, dl := f.fastTwoSum(t, eh, litF64(1))
	dl = f.add(t, dl, el)
	q := f.div(t, litF64(2), dh)
	res := f.fma(t, f.neg(t, q), dh, litF64(2))
	res = f.fma(t, f.neg(t, q), dl, res)
	ql := f.mul(t, f.mul(t, res, q), litF64(0.5)) // res/dh, 1/dh = q/2
	rh, rlo := f.fastTwoSum(t, litF64(1), f.neg(t, q))
	large := f.add(t, rh, f.sub(t, rlo, ql))
	out := f.sel(t, small, large, f.setp("lt", t, a, litF64(tanhSmall)))
	out = f.v(t, "copysign.f64", x, out) // the sign of x, the magnitude of out
	return f.done(f.sel(t, x, out, f.isNaN(t, x)))
}

func tanhF32Func() funcDef {
	const t = "f32"
	f := newFn("tanh_f32")
	x := f.newReg(t)
	f.load(x, 0)
	// |x| < 1 (and NaN), the common path: a + a³·T(a²) with x's sign
	// (computed on a = |x|, so that tanh(−0) is −0).
	a := f.abs(t, x)
	a2 := f.mul(t, a, a)
	y := f.newReg(t)
	f.set(y, "fma.rn.f32", f.mul(t, a, a2), f.poly32(a2, mathcoef.TanhTF32), a)
	f.set(y, "copysign.f32", x, y)
	done := f.label("tanh_done")
	f.branch(f.setp("ltu", t, a, litF32(1)), false, done)
	// Beyond: 1 − 2/(e^{2a} + 1) with x's sign.
	ac := f.v(t, "min.f32", a, litF32(tanhClampF32))
	e := f.expSmall32(f.add(t, ac, ac))
	// quot32's range: e + 1 lies in [8, 2^29] (e^20 < 2^29).
	rl := f.sub(t, litF32(1), f.quot32(litF32(2), f.add(t, e, litF32(1))))
	f.set(y, "copysign.f32", x, rl)
	f.place(done)
	return f.done(y)
}

// expSmall32 is exp_f32(y) for y in [0, 2·tanhClampF32], inline: the same
// arithmetic, less what that range never needs (the clamps, NaN, and the
// scaling in two steps: 2^n·p is exact here), so the same bits.
func (f *fnBuilder) expSmall32(y string) string {
	const t = "f32"
	n, ni := f.rint32(y, litF32(float32(log2E)))
	r := f.fma(t, n, litF32(-ln2HiF32), y)
	r = f.fma(t, n, litF32(-ln2LoF32), r)
	p := f.poly32(r, expF32Coef)
	return f.mul(t, p, f.pow2(t, ni))
}
