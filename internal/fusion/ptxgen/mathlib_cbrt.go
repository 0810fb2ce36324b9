package ptxgen

import "github.com/gpuarr/gpuarr/internal/fusion/mathcoef"

// cbrt: |x| = 2^(3q)·m' with m' in [1, 8) (the exponent split by 3, the
// remainder moved into the mantissa; subnormals scaled by 2^54 or 2^24
// first), r ≈ m'^(−1/3) from a minimax first guess (2^-5.9) and Newton's
// division-free iteration r += r·(1 − m'·r³)/3 (twice for float32, three
// times for float64), y = m'·r², then one correction y += (m' − y³)·r²/3
// with y³ computed exactly as a double-double (TwoProd), which leaves one
// rounding; times 2^q, with x's sign. ±0, ±Inf and NaN are returned as
// they are.

func cbrtFunc(t string) funcDef {
	f := newFn("cbrt_" + t)
	x := f.newReg(t)
	f.load(x, 0)
	a := f.abs(t, x)
	var (
		scale       float64
		sub, scaled string
		iters       int
		r0          string
		ebits, bias string
	)
	if t == "f32" {
		scale, sub, iters = 0x1p24, "0f00800000", 2
		ebits, bias = "23", "127"
	} else {
		scale, sub, iters = 0x1p54, "0d0010000000000000", 3
		ebits, bias = "52", "1023"
	}
	psub := f.setp("lt", t, a, sub)
	scaled = f.sel(t, f.mul(t, a, lit(t, scale)), a, psub)
	eadj := f.v("b32", "selp.s32", map[string]string{"f32": "-8", "f64": "-18"}[t], "0", psub)
	var e, mp string // exponent (s32) and m' in [1, 8)
	if t == "f32" {
		bits := f.v("b32", "mov.b32", scaled)
		e = f.v("b32", "shr.u32", bits, ebits)
		e = f.v("b32", "sub.s32", f.v("b32", "and.b32", e, "255"), bias)
		q, rem := f.divmod3(e)
		mant := f.v("b32", "and.b32", bits, "8388607")
		ex := f.v("b32", "shl.b32", f.v("b32", "add.s32", rem, bias), ebits)
		mp = f.v(t, "mov.b32", f.v("b32", "or.b32", mant, ex))
		e = f.v("b32", "add.s32", q, eadj)
		r0 = f.poly32(mp, mathcoef.RcbrtRF32)
	} else {
		bits := f.v("b64", "mov.b64", scaled)
		e64 := f.v("b64", "shr.u64", bits, ebits)
		e = f.v("b32", "cvt.u32.u64", f.v("b64", "and.b64", e64, "2047"))
		e = f.v("b32", "sub.s32", e, bias)
		q, rem := f.divmod3(e)
		mant := f.v("b64", "and.b64", bits, "4503599627370495")
		ex := f.v("b64", "cvt.u64.u32", f.v("b32", "add.s32", rem, bias))
		ex = f.v("b64", "shl.b64", ex, ebits)
		mp = f.v(t, "mov.b64", f.v("b64", "or.b64", mant, ex))
		e = f.v("b32", "add.s32", q, eadj)
		r0 = f.poly64(mp, mathcoef.RcbrtRF64)
	}
	third := lit(t, 1.0/3)
	r := r0
	for range iters {
		r3 := f.mul(t, f.mul(t, r, r), r)
		d := f.fma(t, f.neg(t, mp), r3, lit(t, 1))
		r = f.fma(t, f.mul(t, r, d), third, r)
	}
	r2 := f.mul(t, r, r)
	y := f.mul(t, mp, r2)
	y2h, y2l := f.twoProd(t, y, y)
	y3h, y3l := f.twoProd(t, y2h, y)
	y3l = f.fma(t, y2l, y, y3l)
	res := f.sub(t, f.sub(t, mp, y3h), y3l)
	y = f.fma(t, res, f.mul(t, r2, third), y)
	y = f.mul(t, y, f.pow2(t, e))
	y = f.v(t, "copysign."+t, x, y)
	keep := f.v("pred", "or.pred", f.setp("equ", t, a, lit(t, 0)), f.setp("eq", t, a, map[string]string{"f32": "0f7F800000", "f64": "0d7FF0000000000000"}[t]))
	return f.done(f.sel(t, x, y, keep))
}

// divmod3 splits an s32 e (|e| < 2^20) into q = ⌊e/3⌋ and e − 3q, through
// float32: (e + ½)/3 is at least ⅙ from an integer, far beyond the
// rounding of the product.
func (f *fnBuilder) divmod3(e string) (q, rem string) {
	ef := f.v("f32", "cvt.rn.f32.s32", e)
	qf := f.mul("f32", f.add("f32", ef, litF32(0.5)), litF32(1.0/3))
	q = f.v("b32", "cvt.rmi.s32.f32", qf)
	rem = f.v("b32", "sub.s32", e, f.v("b32", "mul.lo.s32", q, "3"))
	return q, rem
}
