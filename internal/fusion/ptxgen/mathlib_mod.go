package ptxgen

// floordiv, mod and fmod of floats: NumPy's //, % and fmod (Go's
// math.Mod); floordiv and mod by npy_divmod's algorithm, in the
// argument's type:
//
//	mod = fmod(a, b); div = (a − mod)/b
//	if mod ≠ 0 and its sign differs from b's: mod += b, div −= 1
//	if mod = 0: mod = +0 with b's sign
//	floordiv = floor(div), plus 1 if div − floor(div) > ½ (snapping a
//	quotient that rounding left just below an integer); ±0 with a/b's sign
//	if div = 0; and for b = 0, a/b (±Inf or NaN) and mod NaN.
//
// fmod is exact: |a| = ma·2^ea and |b| = mb·2^eb with integer mantissas
// (subnormals unnormalized), then ma·2^(ea−eb) mod mb by 64-bit integer
// long division, 11 bits a step for float64 (40 for float32), scaled back
// (exactly: the remainder is a multiple of b's ulp below |b|), with a's
// sign. fmod(a, ±Inf) = a, fmod(±Inf, b) = fmod(a, 0) = NaN.

// fmod returns fmod(a, b), given q = RN(a/b) (branching around the long
// division where the quotient is small, an argument is special or
// |a| < |b|).
//
// The short path, for finite b and |q| < 2^(p−1) (p the type's precision):
// n = trunc(q) is the truncated quotient or, where a/b lies within half an
// ulp below an integer, one more in magnitude; r = fma(−n, b, a) is then
// exact (the true a − n·b is a multiple of min(ulp(a), ulp(b)) in
// (−|b|, |b|)), and an r of the wrong sign gets |b| with a's sign added
// back, exactly.
func (f *fnBuilder) fmod(t, a, b, q string) string {
	res := f.newReg(t)
	aa, ab := f.abs(t, a), f.abs(t, b)
	inf := "0d7FF0000000000000"
	if t == "f32" {
		inf = "0f7F800000"
	}
	limit := lit(t, 1<<52)
	if t == "f32" {
		limit = lit(t, 1<<23)
	}
	short := f.v("pred", "and.pred", f.setp("lt", t, f.abs(t, q), limit), f.setp("lt", t, ab, inf))
	done := f.label("fmod_done")
	{
		n := f.v(t, "cvt.rzi."+t+"."+t, q)
		r := f.fma(t, f.neg(t, n), b, a)
		wrong := f.v("pred", "xor.pred", f.setp("lt", t, r, lit(t, 0)), f.setp("lt", t, a, lit(t, 0)))
		wrong = f.v("pred", "and.pred", wrong, f.setp("ne", t, r, lit(t, 0)))
		r = f.sel(t, f.add(t, r, f.v(t, "copysign."+t, a, ab)), r, wrong)
		f.set(res, "copysign."+t, a, r)
	}
	f.branch(short, false, done)
	f.set(res, "mov."+t, a)
	regular := f.v("pred", "and.pred", f.setp("ge", t, aa, ab), f.setp("gt", t, ab, lit(t, 0)))
	regular = f.v("pred", "and.pred", regular, f.setp("lt", t, aa, inf))
	regular = f.v("pred", "and.pred", regular, f.setp("lt", t, ab, inf))
	skip := f.label("fmod_special")
	f.branch(regular, true, skip)

	var ea, eb, ma, mb string // exponents (s32) and mantissas (u64)
	parts := func(x string) (e, m string) {
		var mant string
		if t == "f32" {
			bx := f.v("b32", "mov.b32", x)
			e = f.v("b32", "shr.u32", bx, "23")
			mant = f.v("b32", "and.b32", bx, "8388607")
			mant = f.v("b32", "selp.b32", f.v("b32", "or.b32", mant, "8388608"), mant, f.v("pred", "setp.ne.u32", e, "0"))
			m = f.v("b64", "cvt.u64.u32", mant)
		} else {
			bx := f.v("b64", "mov.b64", x)
			e = f.v("b32", "cvt.u32.u64", f.v("b64", "shr.u64", bx, "52"))
			mant = f.v("b64", "and.b64", bx, "4503599627370495")
			m = f.v("b64", "selp.b64", f.v("b64", "or.b64", mant, "4503599627370496"), mant, f.v("pred", "setp.ne.u32", e, "0"))
		}
		e = f.v("b32", "max.s32", e, "1") // subnormals: exponent field 0 stands for 1
		return e, m
	}
	ea, ma = parts(aa)
	eb, mb = parts(ab)
	step := "11"
	if t == "f32" {
		step = "40"
	}
	d := f.newReg("b32")
	f.set(d, "sub.s32", ea, eb)
	rem := f.newReg("b64")
	f.set(rem, "rem.u64", ma, mb)
	loop, end := f.label("fmod_loop"), f.label("fmod_end")
	f.place(loop)
	f.branch(f.v("pred", "setp.le.s32", d, "0"), false, end)
	s := f.v("b32", "min.s32", d, step)
	f.set(rem, "rem.u64", f.v("b64", "shl.b64", rem, s), mb)
	f.set(d, "sub.s32", d, s)
	f.op("bra %s", loop)
	f.place(end)
	// rem·2^(eb − bias − mantissa bits), exact.
	var r, off string
	if t == "f32" {
		r, off = f.v("f32", "cvt.rn.f32.u64", rem), "150"
	} else {
		r, off = f.v("f64", "cvt.rn.f64.u64", rem), "1075"
	}
	r = f.ldexp(t, r, f.v("b32", "sub.s32", eb, off))
	f.set(res, "copysign."+t, a, r)
	f.place(skip)
	f.place(done)
	// fmod(±Inf, b), fmod(a, 0) and NaN are NaN; fmod(a, ±Inf) = a.
	bad := f.v("pred", "or.pred", f.setp("eq", t, aa, inf), f.setp("eq", t, ab, lit(t, 0)))
	bad = f.v("pred", "or.pred", bad, f.setp("nan", t, a, b))
	return f.sel(t, nanLit(t), res, bad)
}

// divmod returns NumPy's floor division and remainder of a by b.
func (f *fnBuilder) divmod(t, a, b string) (fd, mod string) {
	zero, one := lit(t, 0), lit(t, 1)
	fd, mod = f.newReg(t), f.newReg(t)
	done := f.label("divmod_done")
	if t == "f32" {
		f.divmodShort32(a, b, fd, mod, done)
	}
	q := f.div(t, a, b)
	m := f.fmod(t, a, b, q)
	div := f.div(t, f.sub(t, a, m), b)
	modnz := f.setp("neu", t, m, zero) // NaN counts as nonzero
	diff := f.v("pred", "xor.pred", f.setp("lt", t, b, zero), f.setp("lt", t, m, zero))
	adj := f.v("pred", "and.pred", modnz, diff)
	m = f.sel(t, f.add(t, m, b), m, adj)
	div = f.sel(t, f.sub(t, div, one), div, adj)
	f.set(mod, "selp."+t, m, f.v(t, "copysign."+t, b, zero), modnz)
	fl := f.v(t, "cvt.rmi."+t+"."+t, div)
	fl = f.sel(t, f.add(t, fl, one), fl, f.setp("gt", t, f.sub(t, div, fl), lit(t, 0.5)))
	fl = f.sel(t, fl, f.v(t, "copysign."+t, q, zero), f.setp("neu", t, div, zero))
	f.set(fd, "selp."+t, q, fl, f.setp("eq", t, b, zero))
	f.place(done)
	return fd, mod
}

// divmodShort32 sets fd and mod to divmod's float32 results and branches
// to done where |a/b| < 2^20, a is finite and 2^−126 ≤ |b| < 2^126, without
// a division. q = a·rcp.approx(b) is within 2^−22 of a/b relatively
// (rcp.approx errs by at most one ulp); q + |q|·2^−21 is at least a/b and
// less than one above it, so its floor n is ⌊a/b⌋ or one more. Then
// r = fma(−n, b, a) is a − n·b rounded once: NumPy's remainder where
// n = ⌊a/b⌋ (fmod, or fmod + b, is the same real number), and otherwise
// exact and of the sign opposite to b's, one step of b from it. NumPy's
// quotient ((a − fmod)/b rounded twice, floored and snapped) is within
// 2^−3 of the integer ⌊a/b⌋ here, so it is ⌊a/b⌋.
func (f *fnBuilder) divmodShort32(a, b, fd, mod, done string) {
	const t = "f32"
	zero, one := lit(t, 0), lit(t, 1)
	ab := f.abs(t, b)
	q := f.mul(t, a, f.v(t, "rcp.approx.ftz.f32", b)) // subnormal b: ±Inf, not short
	q1 := f.fma(t, f.abs(t, q), lit(t, 0x1p-21), q)
	short := f.v("pred", "and.pred", f.setp("lt", t, f.abs(t, q1), lit(t, 0x1p20)), f.setp("ge", t, ab, lit(t, 0x1p-126)))
	short = f.v("pred", "and.pred", short, f.setp("lt", t, ab, lit(t, 0x1p126))) // 1/b normal
	n := f.v(t, "cvt.rmi.f32.f32", q1)
	r := f.fma(t, f.neg(t, n), b, a)
	nz := f.setp("ne", t, r, zero)
	adj := f.v("pred", "and.pred", nz, f.v("pred", "xor.pred", f.setp("lt", t, r, zero), f.setp("lt", t, b, zero)))
	r = f.sel(t, f.add(t, r, b), r, adj)
	f.set(mod, "selp.f32", r, f.v(t, "copysign.f32", b, zero), nz)
	n = f.sel(t, f.sub(t, n, one), n, adj)
	f.set(fd, "selp.f32", n, f.v(t, "copysign.f32", q, zero), f.setp("ne", t, n, zero))
	f.branch(short, false, done)
}

func floorDivFunc(t string) funcDef {
	f := newFn("floordiv_" + t)
	a, b := f.newReg(t), f.newReg(t)
	f.load(a, 0)
	f.load(b, 1)
	fd, _ := f.divmod(t, a, b)
	return f.done(fd)
}

func modFunc(t string) funcDef {
	f := newFn("mod_" + t)
	a, b := f.newReg(t), f.newReg(t)
	f.load(a, 0)
	f.load(b, 1)
	_, mod := f.divmod(t, a, b)
	return f.done(mod)
}

func fmodFunc(t string) funcDef {
	f := newFn("fmod_" + t)
	a, b := f.newReg(t), f.newReg(t)
	f.load(a, 0)
	f.load(b, 1)
	return f.done(f.fmod(t, a, b, f.div(t, a, b)))
}
