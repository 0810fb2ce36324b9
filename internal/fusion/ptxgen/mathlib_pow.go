package ptxgen

// pow(x, y) = ±exp(y·log|x|), in float64 (pow_f32 converts and rounds):
// the error is about 2e-16·|y·ln x| relative, within the 1e-14·max(1,
// |y·ln x|) promised. The sign is by y's parity for x < 0, NaN for x < 0
// and non-integer y. math.Pow's special cases are then applied in turn as
// selects, the highest priority last (the order of math.Pow's switch):
// y = ±½ (sqrt), x = ±Inf, y = ±Inf, x = ±0, NaN, y = 1, then y = 0 or
// x = 1. Not matched: where math.Pow's result over- or underflows only
// just, exp(y·ln x) may land on the last finite value or the first
// nonzero one instead (pow(2, 1024) = 1.797…e308, not +Inf), and integer
// powers are not always exact (pow(3, 3) may be 27·(1 ± 2⁻⁵²)).

func powF64Func() funcDef {
	f := newFn("pow_f64")
	f.regs("f64", "%x", "%y", "%ax", "%ay", "%l", "%z", "%r", "%t", "%h", "%sq", "%v1", "%v2", "%v")
	f.regs("b64", "%xb")
	f.regs("pred", "%pyi", "%podd", "%pneg", "%pq", "%pq2", "%pypos", "%pyneg", "%pxlt1", "%pnx")
	f.load("%x", 0)
	f.load("%y", 1)
	f.op("abs.f64 %%ax, %%x")
	f.call("log_f64", "%l", "%ax")
	f.op("mul.rn.f64 %%z, %%y, %%l")
	f.call("exp_f64", "%r", "%z")
	// y integer, y odd (|y| ≥ 2⁵³ is even: y/2 is an integer then).
	f.op("cvt.rzi.f64.f64 %%t, %%y")
	f.op("setp.eq.f64 %%pyi, %%t, %%y")
	f.op("mul.rn.f64 %%h, %%y, %s", litF64(0.5))
	f.op("cvt.rzi.f64.f64 %%t, %%h")
	f.op("setp.ne.f64 %%podd, %%t, %%h")
	f.op("and.pred %%podd, %%podd, %%pyi")
	f.op("setp.lt.f64 %%pneg, %%x, %s", litF64(0))
	f.op("and.pred %%pq, %%pneg, %%podd")
	f.op("neg.f64 %%t, %%r")
	f.op("selp.f64 %%r, %%t, %%r, %%pq")
	f.op("not.pred %%pq, %%pyi")
	f.op("and.pred %%pq, %%pq, %%pneg")
	f.op("selp.f64 %%r, 0d7FF8000000000000, %%r, %%pq")
	// y = ±0.5.
	f.op("sqrt.rn.f64 %%sq, %%x")
	f.op("setp.eq.f64 %%pq, %%y, %s", litF64(0.5))
	f.op("selp.f64 %%r, %%sq, %%r, %%pq")
	f.op("div.rn.f64 %%t, %s, %%sq", litF64(1))
	f.op("setp.eq.f64 %%pq, %%y, %s", litF64(-0.5))
	f.op("selp.f64 %%r, %%t, %%r, %%pq")
	// x = +Inf: y < 0 → 0, else +Inf.
	f.op("setp.lt.f64 %%pyneg, %%y, %s", litF64(0))
	f.op("setp.gt.f64 %%pypos, %%y, %s", litF64(0))
	f.op("selp.f64 %%v, 0d0000000000000000, 0d7FF0000000000000, %%pyneg")
	f.op("setp.eq.f64 %%pq, %%x, 0d7FF0000000000000")
	f.op("selp.f64 %%r, %%v, %%r, %%pq")
	// x = −Inf: pow(−0, −y): y > 0 → (odd ? −Inf : +Inf), else (odd ? −0 : +0).
	f.op("selp.f64 %%v1, 0dFFF0000000000000, 0d7FF0000000000000, %%podd")
	f.op("selp.f64 %%v2, 0d8000000000000000, 0d0000000000000000, %%podd")
	f.op("selp.f64 %%v, %%v1, %%v2, %%pypos")
	f.op("setp.eq.f64 %%pq, %%x, 0dFFF0000000000000")
	f.op("selp.f64 %%r, %%v, %%r, %%pq")
	// y = ±Inf: x = −1 → 1; (|x| < 1) == (y > 0) → 0; else +Inf.
	f.op("setp.lt.f64 %%pxlt1, %%ax, %s", litF64(1))
	f.op("xor.pred %%pq, %%pxlt1, %%pypos")
	f.op("selp.f64 %%v, 0d7FF0000000000000, 0d0000000000000000, %%pq")
	f.op("setp.eq.f64 %%pq, %%x, %s", litF64(-1))
	f.op("selp.f64 %%v, %s, %%v, %%pq", litF64(1))
	f.op("abs.f64 %%ay, %%y")
	f.op("setp.eq.f64 %%pq, %%ay, 0d7FF0000000000000")
	f.op("selp.f64 %%r, %%v, %%r, %%pq")
	// x = ±0: negOdd = signbit(x) && odd; y < 0 → (negOdd ? −Inf : +Inf),
	// else (negOdd ? x : +0).
	f.op("mov.b64 %%xb, %%x")
	f.op("setp.lt.s64 %%pnx, %%xb, 0")
	f.op("and.pred %%pnx, %%pnx, %%podd")
	f.op("selp.f64 %%v1, 0dFFF0000000000000, 0d7FF0000000000000, %%pnx")
	f.op("selp.f64 %%v2, %%x, 0d0000000000000000, %%pnx")
	f.op("selp.f64 %%v, %%v1, %%v2, %%pyneg")
	f.op("setp.eq.f64 %%pq, %%x, %s", litF64(0))
	f.op("selp.f64 %%r, %%v, %%r, %%pq")
	// NaN, y = 1, y = 0 or x = 1.
	f.op("setp.nan.f64 %%pq, %%x, %%y")
	f.op("selp.f64 %%r, 0d7FF8000000000000, %%r, %%pq")
	f.op("setp.eq.f64 %%pq, %%y, %s", litF64(1))
	f.op("selp.f64 %%r, %%x, %%r, %%pq")
	f.op("setp.eq.f64 %%pq, %%y, %s", litF64(0))
	f.op("setp.eq.f64 %%pq2, %%x, %s", litF64(1))
	f.op("or.pred %%pq, %%pq, %%pq2")
	f.op("selp.f64 %%r, %s, %%r, %%pq", litF64(1))
	return f.done("%r")
}

func powF32Func() funcDef {
	f := newFn("pow_f32")
	f.regs("f32", "%x", "%y", "%r")
	f.regs("f64", "%dx", "%dy", "%dr")
	f.load("%x", 0)
	f.load("%y", 1)
	f.op("cvt.f64.f32 %%dx, %%x")
	f.op("cvt.f64.f32 %%dy, %%y")
	f.call("pow_f64", "%dr", "%dx", "%dy")
	f.op("cvt.rn.f32.f64 %%r, %%dr")
	return f.done("%r")
}
