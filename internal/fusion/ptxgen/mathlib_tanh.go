package ptxgen

// tanh(x) = sign(x)·t(|x|): for a = |x| < tanhSmall a series with no
// cancellation (float64: em/(em+2) with em = expm1(2a) by its Taylor
// series; float32: tanh's own Taylor series), above it 1 − 2/(e^{2a}+1),
// which is ≥ 0.5 there and so loses nothing; a is clamped to where that
// is 1 in the type. Both sides are computed and one selected: no branch.
// ±0 keeps its sign (copysign), NaN passes through.

func tanhF64Func() funcDef {
	f := newFn("tanh_f64")
	f.regs("f64", "%x", "%a", "%ac", "%y", "%p", "%em", "%t", "%rs", "%e", "%rl", "%r")
	f.regs("pred", "%pq")
	f.load("%x", 0)
	f.op("abs.f64 %%a, %%x")
	f.op("min.f64 %%ac, %%a, %s", litF64(tanhClampF64))
	f.op("add.rn.f64 %%y, %%ac, %%ac")
	// Small a: em = expm1(y), rs = em/(em+2).
	f.horner64("%p", "%y", expm1F64Coef)
	f.op("mul.rn.f64 %%em, %%y, %%p")
	f.op("add.rn.f64 %%t, %%em, %s", litF64(2))
	f.op("div.rn.f64 %%rs, %%em, %%t")
	// Large a: rl = 1 − 2/(e^y + 1).
	f.call("exp_f64", "%e", "%y")
	f.op("add.rn.f64 %%t, %%e, %s", litF64(1))
	f.op("div.rn.f64 %%t, %s, %%t", litF64(2))
	f.op("sub.rn.f64 %%rl, %s, %%t", litF64(1))
	f.op("setp.lt.f64 %%pq, %%a, %s", litF64(tanhSmall))
	f.op("selp.f64 %%r, %%rs, %%rl, %%pq")
	f.op("copysign.f64 %%r, %%x, %%r") // the sign of x, the magnitude of r
	f.op("setp.nan.f64 %%pq, %%x, %%x")
	f.op("selp.f64 %%r, %%x, %%r, %%pq")
	return f.done("%r")
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
	f.call("exp_f32", "%e", "%y")
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
