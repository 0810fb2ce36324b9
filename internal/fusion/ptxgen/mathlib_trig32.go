package ptxgen

import "github.com/gpuarr/gpuarr/internal/fusion/mathcoef"

// float32 sin, cos and tan.
//
// Common path (|x| < 2^17): k = rint(x·2/π) (the product rounded once, to
// an integer), r = x − k·π/2 by Cody–Waite
// with π/2 = A + B + C in three float32 parts and one fma each (x − k·A is
// exact: A is π/2 rounded to 24 bits and |r| < 2; the other two steps
// round once each, so r is within about an ulp of x − k·π/2, the
// reduction CUDA's own sinf uses). Beyond 2^17 (a branch), trigReduce's
// Payne–Hanek reduction in float64, rounded to float32. Then on |r| ≤ π/4
// (a little more where k·2/π rounds across a half) sin r = r + r³·S(r²)
// and cos r = 1 + r²·(r²·C(r²) − ½) (mathcoef.SinSF32, CosCF32), the
// quadrant k mod 4 picking ±sin or ±cos by selects; tan r = r + r³·T(r²)
// (mathcoef.TanTF32), its negated reciprocal in the odd quadrants. sin
// and cos are within 1.5 ulp (bound 2), tan within 3.6 (bound 4: r's
// relative error carries into tan near its poles). sin and
// tan keep ±0; ±Inf and NaN give NaN.

// trigReduce32 returns r (float32) and q (s32) with x ≈ q·π/2 + r.
func (f *fnBuilder) trigReduce32(x string) (r, q string) {
	const t = "f32"
	c := mathcoef.Consts()
	r, q = f.newReg(t), f.newReg("b32")
	// k = rint(x·2/π) by shifter32 (|x·2/π| < 2^22 on this path), and
	// its integer from the shifted sum's bits.
	sh := f.fma(t, x, litF32(c.TwoOverPi32), litF32(shifter32))
	k := f.sub(t, sh, litF32(shifter32))
	r1 := f.fma(t, k, litF32(-c.Pio2A32), x)
	r1 = f.fma(t, k, litF32(-c.Pio2B32), r1)
	f.set(r, "fma.rn.f32", k, litF32(-c.Pio2C32), r1)
	f.set(q, "sub.s32", f.v("b32", "mov.b32", sh), shifter32Bits)
	slow := f.setp("ge", t, f.abs(t, x), litF32(0x1p17))
	done := f.label("reduced")
	f.branch(slow, true, done)
	// Payne–Hanek in float64; ±Inf is reduced as the largest float, and
	// its r made NaN.
	ax := f.v("f64", "cvt.f64.f32", f.v(t, "min.f32", f.abs(t, x), "0f7F7FFFFF"))
	ph, pl, pq := f.payneHanek(ax)
	rr := f.v(t, "cvt.rn.f32.f64", f.add("f64", ph, pl))
	rr = f.add(t, rr, f.sub(t, x, x)) // NaN for ±Inf
	neg := f.setp("lt", t, x, litF32(0))
	f.set(r, "selp.f32", f.neg(t, rr), rr, neg)
	f.set(q, "selp.b32", f.v("b32", "neg.s32", pq), pq, neg)
	f.place(done)
	return r, q
}

// sinCos32 returns sin r and cos r, rounded to float32, for |r| ≤ π/4.
func (f *fnBuilder) sinCos32(r string) (s, c string) {
	const t = "f32"
	z := f.mul(t, r, r)
	s = f.fma(t, f.mul(t, r, z), f.poly32(z, mathcoef.SinSF32), r)
	h := f.fma(t, z, f.poly32(z, mathcoef.CosCF32), litF32(-0.5))
	return s, f.fma(t, z, h, litF32(1))
}

func trigF32Func(name string) funcDef {
	const t = "f32"
	f := newFn(name + "_f32")
	x := f.newReg(t)
	f.load(x, 0)
	r, q := f.trigReduce32(x)
	if name == "cos" {
		q = f.v("b32", "add.s32", q, "1")
	}
	odd := f.v("pred", "setp.ne.u32", f.v("b32", "and.b32", q, "1"), "0")
	var y string
	if name == "tan" {
		// quot32's range: for k odd, |tan r| is above 2^−40 (|r| is: no
		// float32 lies closer to an odd multiple of π/2) and at most
		// about 1; the quotient is used only there.
		z := f.mul(t, r, r)
		tr := f.fma(t, f.mul(t, r, z), f.poly32(z, mathcoef.TanTF32), r)
		y = f.sel(t, f.quot32(lit(t, -1), tr), tr, odd)
	} else {
		s, c := f.sinCos32(r)
		y = f.sel(t, c, s, odd)
		neg := f.v("pred", "setp.ne.u32", f.v("b32", "and.b32", q, "2"), "0")
		y = f.sel(t, f.neg(t, y), y, neg)
	}
	if name != "cos" {
		y = f.sel(t, x, y, f.setp("eq", t, x, litF32(0))) // ±0
	}
	return f.done(y)
}
