package ptxgen

import "github.com/gpuarr/gpuarr/internal/fusion/mathcoef"

// exp2: k = rint(x), f = x − k exactly (in [−½, ½]), 2^f = 1 + f·Q(f)
// (minimax, mathlib_coef.go), times 2^k in two steps (ldexp) so that a
// subnormal result is rounded once. x is first clamped to where the result
// has not yet over- or underflowed, which keeps k in range; NaN is passed
// through at the end.

func exp2Func(t string) funcDef {
	f := newFn("exp2_" + t)
	x := f.newReg(t)
	f.load(x, 0)
	lo, hi := -1080.0, 1025.0
	if t == "f32" {
		lo, hi = -152, 129
	}
	xc := f.v(t, "max."+t, x, lit(t, lo))
	xc = f.v(t, "min."+t, xc, lit(t, hi))
	var k, ki string
	if t == "f32" {
		k, ki = f.rint32(xc, "")
	} else {
		k = f.v(t, "cvt.rni."+t+"."+t, xc)
		ki = f.v("b32", "cvt.rni.s32."+t, k)
	}
	fr := f.sub(t, xc, k)
	var q string
	if t == "f32" {
		q = f.poly32(fr, mathcoef.Exp2QF32)
	} else {
		q = f.poly64(fr, mathcoef.Exp2QF64)
	}
	p := f.fma(t, fr, q, lit(t, 1))
	y := f.ldexp(t, p, ki)
	y = f.sel(t, x, y, f.isNaN(t, x))
	return f.done(y)
}
