package ptxgen

import "github.com/gpuarr/gpuarr/internal/fusion/mathcoef"

// tanh(x) = sign(x)·t(|x|): for a = |x| below a threshold an odd minimax
// polynomial with no cancellation, a + a³·T(a²) (mathcoef: float64's for
// a < tanhSmall, float32's for a < 1), above it 1 − 2/(e^{2a}+1), which is
// ≥ 0.5 there and so loses nothing (float64: in double-double arithmetic,
// e^{2a} = 2^k·(1 + em) from expTail, the quotient corrected by its
// residual, rounded once; a clamped to where that is 1 in float64).
// float32's side beyond takes the GPU's fast ex2 and rcp (tanhWide32).
// float64 computes both sides and selects one; float32 takes its
// polynomial, the common path, and branches to the other side for
// |x| > 1. ±0 keeps its sign, NaN passes through.

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
	// |x| ≤ 1 (and NaN), the common path: a + a³·T(a²) with x's sign
	// (computed on a = |x|, so that tanh(−0) is −0); ±1 included, so
	// that tanh(±1) is the polynomial's correctly rounded value on every
	// GPU, not tanhWide32's.
	a := f.abs(t, x)
	a2 := f.mul(t, a, a)
	y := f.newReg(t)
	f.set(y, "fma.rn.f32", f.mul(t, a, a2), f.poly32(a2, mathcoef.TanhTF32), a)
	f.set(y, "copysign.f32", x, y)
	done := f.label("tanh_done")
	f.branch(f.setp("leu", t, a, litF32(1)), false, done)
	// Beyond: 1 − 2q with q = 1/(e^{2a} + 1), x's sign put on (see
	// tanhWide32).
	f.set(y, "copysign.f32", x, f.tanhWide32(a))
	f.place(done)
	return f.done(y)
}

// tanhWide32 is tanh a for a > 1 (+Inf included) in the GPU's fast
// arithmetic: E = e^{2a} = ex2.approx.ftz(a·2log₂e), q = 1/(E + 1) by
// rcp.approx, and 1 − 2q in one fma. Large a needs no clamp: E = +Inf
// gives q = 0 and 1. Errors reach the result scaled by 2E/(E + 1)² ≤ 0.21
// (E ≥ e²): the argument's rounding (2^-23 relative at most), ex2.approx's
// (under 1.5 ulp for positive arguments on the GPUs measured) and
// rcp.approx's (under one ulp), within CUDA's bound of 2 ulp. The bits are
// the GPU's own: its .approx instructions are not corrected to a rounding
// here.
func (f *fnBuilder) tanhWide32(a string) string {
	const t = "f32"
	e := f.v(t, "ex2.approx.ftz.f32", f.mul(t, a, litF32(2*log2EHiF32)))
	return f.fma(t, litF32(-2), f.v(t, "rcp.approx.ftz.f32", f.add(t, e, litF32(1))), litF32(1))
}
