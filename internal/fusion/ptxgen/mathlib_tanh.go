package ptxgen

import "github.com/gpuarr/gpuarr/internal/fusion/mathcoef"

// tanh(x) = sign(x)·t(|x|): for a = |x| < tanhSmall an odd polynomial
// with no cancellation (float64: a + a³·T(a²), minimax, mathlib_coef.go;
// float32: tanh's own Taylor series), above it 1 − 2/(e^{2a}+1), which is
// ≥ 0.5 there and so loses nothing (float64: in double-double arithmetic,
// e^{2a} = 2^k·(1 + em) from expTail, the quotient corrected by its
// residual, rounded once); a is clamped to where that is 1 in the type.
// float32's e^{2a} is exp_f32's arithmetic inline (expSmall32).
// Both sides are computed and one selected: no branch. ±0 keeps its sign
// (copysign), NaN passes through.

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
	f := newFn("tanh_f32")
	f.regs("f32", "%x", "%a", "%a2", "%a3", "%p", "%rs", "%ac", "%y", "%e", "%t", "%rl", "%r")
	f.regs("pred", "%pq")
	f.load("%x", 0)
	f.op("abs.f32 %%a, %%x")
	// Small a: rs = a + a³·T(a²).
	f.op("mul.rn.f32 %%a2, %%a, %%a")
	f.op("mul.rn.f32 %%a3, %%a2, %%a")
	f.horner32("%p", "%a2", tanhF32Coef)
	f.op("fma.rn.f32 %%rs, %%a3, %%p, %%a")
	// Large a: rl = 1 − 2/(e^{2a} + 1).
	f.op("min.f32 %%ac, %%a, %s", litF32(tanhClampF32))
	f.op("add.rn.f32 %%y, %%ac, %%ac")
	f.set("%e", "mov.f32", f.expSmall32("%y"))
	f.op("add.rn.f32 %%t, %%e, %s", litF32(1))
	f.op("div.rn.f32 %%t, %s, %%t", litF32(2))
	f.op("sub.rn.f32 %%rl, %s, %%t", litF32(1))
	f.op("setp.lt.f32 %%pq, %%a, %s", litF32(tanhSmall))
	f.op("selp.f32 %%r, %%rs, %%rl, %%pq")
	f.op("copysign.f32 %%r, %%x, %%r")
	f.op("setp.nan.f32 %%pq, %%x, %%x")
	f.op("selp.f32 %%r, %%x, %%r, %%pq")
	return f.done("%r")
}

// expSmall32 is exp_f32(y) for y in [0, 2·tanhClampF32], inline: the same
// arithmetic, less what that range never needs (the clamps, NaN, and the
// scaling in two steps: 2^n·p is exact here), so the same bits.
func (f *fnBuilder) expSmall32(y string) string {
	const t = "f32"
	n := f.v(t, "cvt.rni.f32.f32", f.mul(t, y, litF32(float32(log2E))))
	nn := f.neg(t, n)
	r := f.fma(t, nn, litF32(ln2HiF32), y)
	r = f.fma(t, nn, litF32(ln2LoF32), r)
	p := f.poly32(r, expF32Coef)
	return f.mul(t, p, f.pow2(t, f.v("b32", "cvt.rni.s32.f32", n)))
}
