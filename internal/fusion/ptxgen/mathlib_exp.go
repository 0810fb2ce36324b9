package ptxgen

// exp: n = rint(x·log₂e), r = x − n·ln2 (hi/lo, fma) in [−ln2/2, ln2/2],
// exp(r) by its Taylor series, then ·2^n in two steps (2^⌊n/2⌋·2^(n−⌊n/2⌋))
// so that a subnormal result is rounded once. x is first clamped to where
// the result has not yet over- or underflowed, which keeps n in range;
// NaN is passed through at the end.

func expF64Func() funcDef {
	f := newFn("exp_f64")
	f.regs("f64", "%x", "%xc", "%t", "%n", "%nn", "%r", "%p", "%s1", "%s2", "%y")
	f.regs("b32", "%ni", "%n1", "%n2")
	f.regs("b64", "%b1", "%b2")
	f.regs("pred", "%pnan")
	f.load("%x", 0)
	f.op("max.f64 %%xc, %%x, %s", litF64(expF64Lo))
	f.op("min.f64 %%xc, %%xc, %s", litF64(expF64Hi))
	f.op("mul.rn.f64 %%t, %%xc, %s", litF64(log2E))
	f.op("cvt.rni.f64.f64 %%n, %%t")
	f.op("neg.f64 %%nn, %%n")
	f.op("fma.rn.f64 %%r, %%nn, %s, %%xc", litF64(ln2Hi))
	f.op("fma.rn.f64 %%r, %%nn, %s, %%r", litF64(ln2Lo))
	f.horner64("%p", "%r", expF64Coef)
	// 2^n1 and 2^n2 from their exponent fields: n1, n2 in [−538, 512].
	f.op("cvt.rni.s32.f64 %%ni, %%n")
	f.op("shr.s32 %%n1, %%ni, 1")
	f.op("sub.s32 %%n2, %%ni, %%n1")
	f.op("add.s32 %%n1, %%n1, 1023")
	f.op("add.s32 %%n2, %%n2, 1023")
	f.op("cvt.u64.u32 %%b1, %%n1")
	f.op("cvt.u64.u32 %%b2, %%n2")
	f.op("shl.b64 %%b1, %%b1, 52")
	f.op("shl.b64 %%b2, %%b2, 52")
	f.op("mov.b64 %%s1, %%b1")
	f.op("mov.b64 %%s2, %%b2")
	f.op("mul.rn.f64 %%y, %%p, %%s1")
	f.op("mul.rn.f64 %%y, %%y, %%s2")
	f.op("setp.nan.f64 %%pnan, %%x, %%x")
	f.op("selp.f64 %%y, %%x, %%y, %%pnan")
	return f.done("%y")
}

func expF32Func() funcDef {
	f := newFn("exp_f32")
	f.regs("f32", "%x", "%xc", "%t", "%n", "%nn", "%r", "%p", "%s1", "%s2", "%y")
	f.regs("b32", "%ni", "%n1", "%n2")
	f.regs("pred", "%pnan")
	f.load("%x", 0)
	f.op("max.f32 %%xc, %%x, %s", litF32(expF32Lo))
	f.op("min.f32 %%xc, %%xc, %s", litF32(expF32Hi))
	// n = rint(xc·log₂e) by shifter32 (see rint32): %t's bits − its bits
	// are n.
	f.op("fma.rn.f32 %%t, %%xc, %s, %s", litF32(float32(log2E)), litF32(shifter32))
	f.op("sub.rn.f32 %%n, %%t, %s", litF32(shifter32))
	f.op("neg.f32 %%nn, %%n")
	f.op("fma.rn.f32 %%r, %%nn, %s, %%xc", litF32(ln2HiF32))
	f.op("fma.rn.f32 %%r, %%nn, %s, %%r", litF32(ln2LoF32))
	f.horner32("%p", "%r", expF32Coef)
	// n1, n2 in [−75, 64].
	f.op("mov.b32 %%ni, %%t")
	f.op("sub.s32 %%ni, %%ni, %s", shifter32Bits)
	f.op("shr.s32 %%n1, %%ni, 1")
	f.op("sub.s32 %%n2, %%ni, %%n1")
	f.op("add.s32 %%n1, %%n1, 127")
	f.op("add.s32 %%n2, %%n2, 127")
	f.op("shl.b32 %%n1, %%n1, 23")
	f.op("shl.b32 %%n2, %%n2, 23")
	f.op("mov.b32 %%s1, %%n1")
	f.op("mov.b32 %%s2, %%n2")
	f.op("mul.rn.f32 %%y, %%p, %%s1")
	f.op("mul.rn.f32 %%y, %%y, %%s2")
	f.op("setp.nan.f32 %%pnan, %%x, %%x")
	f.op("selp.f32 %%y, %%x, %%y, %%pnan")
	return f.done("%y")
}
