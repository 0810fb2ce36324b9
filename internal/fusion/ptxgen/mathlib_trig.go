package ptxgen

import (
	"fmt"
	"math"
	"strings"

	"github.com/gpuarr/gpuarr/internal/fusion/mathcoef"
)

// sin, cos and tan in float64 (float32: mathlib_trig32.go).
//
// Reduction: x = q·π/2 + r + rl with |r| ≤ π/4 (a bit more after
// rounding), r + rl a double-double. Below |x| < 1.6e6 (so that k =
// rint(x·2/π) < 2^20), Cody–Waite with π/2 in three parts: x − k·A is
// exact (A has 33 bits, and the difference is representable), k·(B + C)
// is taken as a double-double (TwoProd) and subtracted with TwoSum. Above
// it (a branch), Payne–Hanek: |x| = m·2^e with a 53-bit integer m, the
// 192 bits of 2/π from position e − 1 on (a .const table of 2/π's bits,
// computed with math/big: mathlib_bigconst.go) times m in 64-bit integer
// arithmetic give x·2/π modulo 4 as a 128-bit fixed-point fraction: its
// top two bits are q, the rest (rounded to the nearest quadrant, with its
// sign) times π/2 is r + rl (float32 arguments beyond 2^17 are reduced
// the same way and rounded to a float32).
//
// Kernels on |r| ≤ π/4: sin = r + r³·S(r²) + rl·(1 − r²/2) and cos = 1 −
// r²/2 + r⁴·C(r²) − r·rl (S and C minimax), cos's 1 − r²/2 split exactly
// (fdlibm's w = 1 − r²/2, ((1 − w) − r²/2)); both as double-doubles. By q
// mod 4: sin x = (s, c, −s, −c), cos x = (c, −s, −c, s), tan x = s/c or
// −c/s (a double-double quotient, corrected by its residual). sin and tan
// keep ±0; ±Inf and NaN give NaN.

// twoOverPiSym is the .const table of 2/π's bits.
const twoOverPiSym = "gpuarr_two_over_pi"

// twoOverPiTable is the table's definition: a dependency of the
// functions that read it (its own entry in the library, with no .func).
func twoOverPiTable() funcDef {
	words := mathcoef.Consts().TwoOverPi
	var b strings.Builder
	fmt.Fprintf(&b, "// 2/pi's bits after the binary point, after two zero words: gpuarr math library\n")
	fmt.Fprintf(&b, ".const .align 8 .b64 %s[%d] = {", twoOverPiSym, len(words))
	for i, w := range words {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "0x%016X", w)
	}
	b.WriteString("};\n")
	return funcDef{text: b.String()}
}

// trigReduce returns (r, rl, q) for float64 x (t = "f64"; see above); q is
// an s32.
func (f *fnBuilder) trigReduce(t, x string) (r, rl, q string) {
	c := mathcoef.Consts()
	r, rl, q = f.newReg(t), f.newReg(t), f.newReg("b32")
	// Cody–Waite, computed for every x (its result is replaced on the
	// slow path).
	a, b, cc := litF64(c.Pio2A), litF64(c.Pio2B), litF64(c.Pio2C)
	twoOverPi, thresh, inf := litF64(2/math.Pi), litF64(1.6e6), "0d7FF0000000000000"
	k := f.v(t, "cvt.rni."+t+"."+t, f.mul(t, x, twoOverPi))
	r1 := f.fma(t, f.neg(t, k), a, x)
	th, tl := f.twoProd(t, k, b)
	tl = f.fma(t, k, cc, tl)
	rf, e1 := f.twoSum(t, r1, f.neg(t, th))
	f.set(r, "mov."+t, rf)
	f.set(rl, "mov."+t, f.sub(t, e1, tl))
	f.set(q, "cvt.rni.s32."+t, k)

	ax := f.abs(t, x)
	slow := f.v("pred", "and.pred", f.setp("ge", t, ax, thresh), f.setp("lt", t, ax, inf))
	done := f.label("reduced")
	f.branch(slow, true, done)
	// Payne–Hanek.
	ph, pl, pq := f.payneHanek(ax)
	neg := f.setp("lt", t, x, lit(t, 0))
	f.set(r, "selp."+t, f.neg(t, ph), ph, neg)
	f.set(rl, "selp."+t, f.neg(t, pl), pl, neg)
	f.set(q, "selp.b32", f.v("b32", "neg.s32", pq), pq, neg)
	f.place(done)
	return r, rl, q
}

// payneHanek reduces a finite float64 ax ≥ 2^20 (see above): ax = q·π/2 +
// r + rl.
func (f *fnBuilder) payneHanek(ax string) (r, rl, q string) {
	c := mathcoef.Consts()
	f.def.deps = append(f.def.deps, "two_over_pi")
	bits := f.v("b64", "mov.b64", ax)
	be := f.v("b32", "cvt.u32.u64", f.v("b64", "shr.u64", bits, "52"))
	m := f.v("b64", "or.b64", f.v("b64", "and.b64", bits, "4503599627370495"), "4503599627370496")
	// The first bit wanted is 2/π's bit e − 1, e = be − 1075: position
	// e + 126 in the table (after its two zero words).
	p0 := f.v("b32", "sub.s32", be, "949")
	w := f.v("b32", "shr.u32", p0, "6")
	o := f.v("b32", "and.b32", p0, "63")
	no := f.v("b32", "sub.s32", "64", o)
	addr := f.v("b64", "mov.u64", twoOverPiSym)
	addr = f.v("b64", "add.s64", addr, f.v("b64", "mul.wide.u32", w, "8"))
	var tw [4]string
	for i := range tw {
		tw[i] = f.v("b64", "ld.const.u64", fmt.Sprintf("[%s+%d]", addr, 8*i))
	}
	word := func(i int) string { // bits o.. of tw[i], tw[i+1]
		return f.v("b64", "or.b64", f.v("b64", "shl.b64", tw[i], o), f.v("b64", "shr.u64", tw[i+1], no))
	}
	f0, f1, f2 := word(0), word(1), word(2)
	// m·F mod 1, its top 128 bits: (ghi, glo).
	h2 := f.v("b64", "mul.hi.u64", m, f2)
	l1 := f.v("b64", "mul.lo.u64", m, f1)
	h1 := f.v("b64", "mul.hi.u64", m, f1)
	l0 := f.v("b64", "mul.lo.u64", m, f0)
	glo := f.v("b64", "add.u64", l1, h2)
	carry := f.v("b64", "selp.u64", "1", "0", f.v("pred", "setp.lt.u64", glo, l1))
	ghi := f.v("b64", "add.u64", f.v("b64", "add.u64", l0, h1), carry)
	// q = top two bits; the rest, shifted up, rounded to the nearest
	// quadrant (a fraction ≥ ½ counts from the next one, negative).
	qv := f.v("b32", "cvt.u32.u64", f.v("b64", "shr.u64", ghi, "62"))
	rhi := f.v("b64", "or.b64", f.v("b64", "shl.b64", ghi, "2"), f.v("b64", "shr.u64", glo, "62"))
	rlo := f.v("b64", "shl.b64", glo, "2")
	up := f.v("pred", "setp.lt.s64", rhi, "0")
	nlo := f.v("b64", "sub.u64", "0", rlo)
	borrow := f.v("b64", "selp.u64", "1", "0", f.v("pred", "setp.eq.u64", rlo, "0"))
	nhi := f.v("b64", "add.u64", f.v("b64", "not.b64", rhi), borrow)
	mhi := f.v("b64", "selp.b64", nhi, rhi, up)
	mlo := f.v("b64", "selp.b64", nlo, rlo, up)
	q = f.v("b32", "add.s32", qv, f.v("b32", "selp.s32", "1", "0", up))
	// Normalize the 128-bit magnitude (value = M·2^-128 quarter turns).
	lz := f.v("b32", "clz.b64", mhi)
	nlz := f.v("b32", "sub.s32", "64", lz)
	nh := f.v("b64", "or.b64", f.v("b64", "shl.b64", mhi, lz), f.v("b64", "shr.u64", mlo, nlz))
	nl := f.v("b64", "shl.b64", mlo, lz)
	hiI := f.v("b64", "shr.u64", nh, "11")
	midI := f.v("b64", "and.b64", nh, "2047")
	loI := f.v("b64", "shr.u64", nl, "11")
	const t = "f64"
	hi := f.mul(t, f.v(t, "cvt.rn.f64.u64", hiI), litF64(0x1p-53))
	lo := f.fma(t, f.v(t, "cvt.rn.f64.u64", midI), litF64(0x1p-64), f.mul(t, f.v(t, "cvt.rn.f64.u64", loI), litF64(0x1p-117)))
	s := f.pow2(t, f.v("b32", "neg.s32", lz))
	fh, fl := f.mul(t, hi, s), f.mul(t, lo, s)
	// r = (fh + fl)·π/2, negative when rounded up.
	rh, re := f.twoProd(t, fh, litF64(c.Pio2Hi))
	re = f.fma(t, fh, litF64(c.Pio2Lo), re)
	re = f.fma(t, fl, litF64(c.Pio2Hi), re)
	r, rl = f.fastTwoSum(t, rh, re)
	r = f.sel(t, f.neg(t, r), r, up)
	rl = f.sel(t, f.neg(t, rl), rl, up)
	return r, rl, q
}

// sinCosKernel returns sin(r+rl) and cos(r+rl) for |r| ≤ π/4, each as a
// double-double (float64: t = "f64").
func (f *fnBuilder) sinCosKernel(t, r, rl string) (sh, sl, ch, cl string) {
	zh, zl := f.twoProd(t, r, r)
	S, C := f.poly64(zh, mathcoef.SinSF64), f.poly64(zh, mathcoef.CosCF64)
	half := lit(t, 0.5)
	hz := f.mul(t, zh, half)
	// sin: r + (r·z·S + rl·(1 − z/2)).
	stail := f.fma(t, f.mul(t, r, zh), S, f.fma(t, f.neg(t, rl), hz, rl))
	sh, sl = f.fastTwoSum(t, r, stail)
	// cos: w + (((1 − w) − z/2) − zl/2 + (z²·C − r·rl)).
	w := f.sub(t, lit(t, 1), hz)
	e := f.sub(t, f.sub(t, lit(t, 1), w), hz)
	ctail := f.fma(t, f.mul(t, zh, zh), C, f.fma(t, f.neg(t, r), rl, f.fma(t, f.neg(t, zl), half, e)))
	ch, cl = f.fastTwoSum(t, w, ctail)
	return sh, sl, ch, cl
}

func trigFunc(name, t string) funcDef {
	f := newFn(name + "_" + t)
	x := f.newReg(t)
	f.load(x, 0)
	r, rl, q := f.trigReduce(t, x)
	sh, sl, ch, cl := f.sinCosKernel(t, r, rl)
	if name == "cos" {
		q = f.v("b32", "add.s32", q, "1")
	}
	odd := f.v("pred", "setp.ne.u32", f.v("b32", "and.b32", q, "1"), "0")
	var y string
	if name == "tan" {
		nh, dh := f.sel(t, ch, sh, odd), f.sel(t, f.neg(t, sh), ch, odd)
		y = f.div(t, nh, dh)
		nl, dl := f.sel(t, cl, sl, odd), f.sel(t, f.neg(t, sl), cl, odd)
		// One correction: y += (nh − y·dh + nl − y·dl)/dh.
		res := f.fma(t, f.neg(t, y), dh, nh)
		res = f.add(t, res, f.fma(t, f.neg(t, y), dl, nl))
		y = f.add(t, y, f.div(t, res, dh))
	} else {
		y = f.sel(t, ch, sh, odd)
		neg := f.v("pred", "setp.ne.u32", f.v("b32", "and.b32", q, "2"), "0")
		y = f.sel(t, f.neg(t, y), y, neg)
	}
	if name != "cos" {
		y = f.sel(t, x, y, f.setp("eq", t, x, lit(t, 0))) // ±0
	}
	return f.done(y)
}
