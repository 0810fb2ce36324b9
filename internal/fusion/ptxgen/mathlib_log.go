package ptxgen

// log_f64 (log_f32: mathlib_log32.go): x = 2^e·m with m in [√½, √2)
// (subnormals scaled up first), f = m−1 exact, and log(1+f) = f − (f²/2 −
// s·(f²/2 + R)) with s = f/(2+f) and R = Σ 2s^{2k}/(2k+1) (fdlibm's
// arrangement: the leading f is exact, so results near x = 1 keep their
// relative accuracy), plus e·ln2 (hi/lo).
// x < 0 → NaN, 0 → −Inf, +Inf → +Inf, NaN passes through.

func logF64Func() funcDef {
	f := newFn("log_f64")
	f.regs("f64", "%x", "%xs", "%mf", "%f", "%t", "%s", "%ns", "%s2", "%p", "%rr", "%hf", "%corr", "%lm", "%fe", "%y")
	f.regs("b32", "%e", "%eadj", "%eb")
	f.regs("b64", "%bits", "%m", "%mb", "%mh", "%u")
	f.regs("pred", "%psub", "%pbig", "%pq")
	f.load("%x", 0)
	f.op("setp.lt.f64 %%psub, %%x, %s", litF64(0x1p-1022))
	f.op("mul.rn.f64 %%xs, %%x, %s", litF64(0x1p54))
	f.op("selp.f64 %%xs, %%xs, %%x, %%psub")
	f.op("selp.s32 %%eadj, -54, 0, %%psub")
	f.op("mov.b64 %%bits, %%xs")
	f.op("shr.u64 %%u, %%bits, 52")
	f.op("and.b64 %%u, %%u, 2047")
	f.op("cvt.u32.u64 %%e, %%u")
	f.op("and.b64 %%m, %%bits, 4503599627370495") // 2⁵²−1
	f.op("setp.gt.u64 %%pbig, %%m, %d", uint64(sqrt2MantF64))
	f.op("or.b64 %%mb, %%m, 0x3FF0000000000000")
	f.op("or.b64 %%mh, %%m, 0x3FE0000000000000")
	f.op("selp.b64 %%mb, %%mh, %%mb, %%pbig")
	f.op("selp.s32 %%eb, -1022, -1023, %%pbig")
	f.op("add.s32 %%e, %%e, %%eb")
	f.op("add.s32 %%e, %%e, %%eadj")
	f.op("mov.b64 %%mf, %%mb")
	f.op("sub.rn.f64 %%f, %%mf, %s", litF64(1))
	f.op("add.rn.f64 %%t, %%f, %s", litF64(2))
	f.op("div.rn.f64 %%s, %%f, %%t")
	f.op("mul.rn.f64 %%s2, %%s, %%s")
	f.horner64("%p", "%s2", logF64Coef)
	f.op("mul.rn.f64 %%rr, %%s2, %%p")
	f.op("mul.rn.f64 %%hf, %%f, %%f")
	f.op("mul.rn.f64 %%hf, %%hf, %s", litF64(0.5))
	f.op("add.rn.f64 %%t, %%hf, %%rr")
	f.op("neg.f64 %%ns, %%s")
	f.op("fma.rn.f64 %%corr, %%ns, %%t, %%hf")
	f.op("sub.rn.f64 %%lm, %%f, %%corr")
	f.op("cvt.rn.f64.s32 %%fe, %%e")
	f.op("fma.rn.f64 %%t, %%fe, %s, %%lm", litF64(ln2Lo))
	f.op("fma.rn.f64 %%y, %%fe, %s, %%t", litF64(ln2Hi))
	// Special values.
	f.op("setp.lt.f64 %%pq, %%x, %s", litF64(0))
	f.op("selp.f64 %%y, 0d7FF8000000000000, %%y, %%pq")
	f.op("setp.eq.f64 %%pq, %%x, %s", litF64(0))
	f.op("selp.f64 %%y, 0dFFF0000000000000, %%y, %%pq")
	f.op("setp.eq.f64 %%pq, %%x, 0d7FF0000000000000")
	f.op("selp.f64 %%y, %%x, %%y, %%pq")
	f.op("setp.nan.f64 %%pq, %%x, %%x")
	f.op("selp.f64 %%y, %%x, %%y, %%pq")
	return f.done("%y")
}
