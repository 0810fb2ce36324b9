package ptxgen

import (
	"fmt"
	"strings"
)

// Helpers for writing library functions in value style: each instruction
// gets a fresh register of its own (declared at the top of the body), so
// a function reads like the arithmetic it does. Literals are the litF32
// and litF64 spellings, or integers.

// newReg declares a fresh register of PTX type t ("f32", "f64", "b32",
// "b64", "pred"; s32/u32 and s64/u64 registers are b32 and b64).
func (f *fnBuilder) newReg(t string) string {
	f.nregs++
	name := fmt.Sprintf("%%v%d", f.nregs)
	switch t {
	case "s32", "u32":
		t = "b32"
	case "s64", "u64":
		t = "b64"
	}
	f.regs(t, name)
	return name
}

// v emits "opc d, args…" into a fresh register d of type t and returns d.
func (f *fnBuilder) v(t, opc string, args ...string) string {
	d := f.newReg(t)
	f.op("%s %s, %s", opc, d, strings.Join(args, ", "))
	return d
}

// set emits "opc d, args…" into the existing register d.
func (f *fnBuilder) set(d, opc string, args ...string) {
	f.op("%s %s, %s", opc, d, strings.Join(args, ", "))
}

// lit is v as a literal of float type t.
func lit(t string, v float64) string {
	if t == "f32" {
		return litF32(float32(v))
	}
	return litF64(v)
}

// Float arithmetic in type t (f32 or f64), rounded to nearest.
func (f *fnBuilder) add(t, a, b string) string    { return f.v(t, "add.rn."+t, a, b) }
func (f *fnBuilder) sub(t, a, b string) string    { return f.v(t, "sub.rn."+t, a, b) }
func (f *fnBuilder) mul(t, a, b string) string    { return f.v(t, "mul.rn."+t, a, b) }
func (f *fnBuilder) div(t, a, b string) string    { return f.v(t, "div.rn."+t, a, b) }
func (f *fnBuilder) fma(t, a, b, c string) string { return f.v(t, "fma.rn."+t, a, b, c) }
func (f *fnBuilder) neg(t, a string) string       { return f.v(t, "neg."+t, a) }
func (f *fnBuilder) abs(t, a string) string       { return f.v(t, "abs."+t, a) }

// sel is p ? a : b.
func (f *fnBuilder) sel(t, a, b, p string) string { return f.v(t, "selp."+t, a, b, p) }

// setp is the predicate "a cmp b" (cmp as in setp: lt, le, gt, ge, eq,
// ne, ltu, …, nan, num).
func (f *fnBuilder) setp(cmp, t, a, b string) string { return f.v("pred", "setp."+cmp+"."+t, a, b) }

// isNaN is the predicate x ≠ x.
func (f *fnBuilder) isNaN(t, x string) string { return f.setp("nan", t, x, x) }

// poly evaluates c[0] + x·(c[1] + x·(… c[n-1])) by Horner's scheme, one
// fma per coefficient after the highest (the order the accuracy tests
// assume); the first step multiplies x by the literal c[n-1].
func (f *fnBuilder) poly32(x string, c []float32) string {
	if len(c) == 1 {
		return f.v("f32", "mov.f32", litF32(c[0]))
	}
	p := f.fma("f32", x, litF32(c[len(c)-1]), litF32(c[len(c)-2]))
	for i := len(c) - 3; i >= 0; i-- {
		p = f.fma("f32", p, x, litF32(c[i]))
	}
	return p
}

func (f *fnBuilder) poly64(x string, c []float64) string {
	p := f.v("f64", "mov.f64", litF64(c[len(c)-1]))
	for i := len(c) - 2; i >= 0; i-- {
		p = f.fma("f64", p, x, litF64(c[i]))
	}
	return p
}

// pow2 is the float 2^n of type t for an s32 register n in the type's
// normal exponent range (its exponent field built directly).
func (f *fnBuilder) pow2(t, n string) string {
	if t == "f32" {
		e := f.v("b32", "add.s32", n, "127")
		e = f.v("b32", "shl.b32", e, "23")
		return f.v("f32", "mov.b32", e)
	}
	e := f.v("b32", "add.s32", n, "1023")
	e64 := f.v("b64", "cvt.u64.u32", e)
	e64 = f.v("b64", "shl.b64", e64, "52")
	return f.v("f64", "mov.b64", e64)
}

// ldexp is x·2^n for an s32 register n within ±2·(the type's normal
// exponent range), in two exact-or-once-rounded steps: x·2^⌊n/2⌋ first
// (exact for the x this library scales, which are near 1), then
// ·2^(n−⌊n/2⌋), so that a subnormal result is rounded once and overflow
// gives ±Inf.
func (f *fnBuilder) ldexp(t, x, n string) string {
	n1 := f.v("b32", "shr.s32", n, "1")
	n2 := f.v("b32", "sub.s32", n, n1)
	y := f.mul(t, x, f.pow2(t, n1))
	return f.mul(t, y, f.pow2(t, n2))
}

// twoSum returns s = RN(a+b) and the exact error e = a + b − s (Knuth's
// branch-free TwoSum, six operations).
func (f *fnBuilder) twoSum(t, a, b string) (s, e string) {
	s = f.add(t, a, b)
	bb := f.sub(t, s, a)
	ab := f.sub(t, s, bb)
	e = f.add(t, f.sub(t, a, ab), f.sub(t, b, bb))
	return s, e
}

// fastTwoSum is twoSum for |a| ≥ |b| (or a = 0): three operations.
func (f *fnBuilder) fastTwoSum(t, a, b string) (s, e string) {
	s = f.add(t, a, b)
	e = f.sub(t, b, f.sub(t, s, a))
	return s, e
}

// twoProd returns p = RN(a·b) and the exact error e = a·b − p.
func (f *fnBuilder) twoProd(t, a, b string) (p, e string) {
	p = f.mul(t, a, b)
	e = f.fma(t, a, b, f.neg(t, p))
	return p, e
}

// label is a fresh label of this function.
func (f *fnBuilder) label(what string) string {
	f.nlabels++
	l := fmt.Sprintf("$L_%s_%d", what, f.nlabels)
	f.def.labels = append(f.def.labels, l)
	return l
}

// branch emits "@p bra l" (or "@!p" with not).
func (f *fnBuilder) branch(p string, not bool, l string) {
	if not {
		f.op("@!%s bra %s", p, l)
		return
	}
	f.op("@%s bra %s", p, l)
}

// place puts label l here.
func (f *fnBuilder) place(l string) {
	fmt.Fprintf(&f.b, "%s:\n", l)
	fmt.Fprintf(&f.cur, "%s:\n", l)
}

// polyComp evaluates the polynomial c (lowest order first) at x by
// Horner's scheme, the last ncomp steps compensated (Graillat, Langlois
// and Louvet's compensated Horner: each step's product and sum errors are
// recovered by TwoProd and TwoSum and carried in a low part), and returns
// the result as a double-double (ph, pl). Where the terms c_i·x^i cancel,
// this removes their rounding errors from the result.
func (f *fnBuilder) polyComp(t, x string, c []float64, ncomp int) (ph, pl string) {
	lit := func(v float64) string { return lit(t, v) }
	n := len(c)
	first := ncomp // the plain steps evaluate c[first:]
	var p string
	if t == "f32" {
		c32 := make([]float32, n-first)
		for i := range c32 {
			c32[i] = float32(c[first+i])
		}
		p = f.poly32(x, c32)
	} else {
		p = f.poly64(x, c[first:])
	}
	ph, pl = p, lit(0)
	for i := first - 1; i >= 0; i-- {
		prod, pe := f.twoProd(t, ph, x)
		s, se := f.twoSum(t, prod, lit(c[i]))
		pl = f.fma(t, pl, x, f.add(t, pe, se))
		ph = s
	}
	return ph, pl
}

// quot32 is a/b rounded to nearest float32, div.rn.f32's result, by the
// arithmetic of div.rn.f32's own fast path without the check and the
// branch to a slow path that ptxas puts after it (a branch in every
// element's code keeps ptxas from overlapping the elements of a vector):
// y = rcp.approx(b) refined by one Newton step, y' = y + y·(1 − b·y); the
// quotient q = a·y'; its residual r = a − b·q (exact, an fma); and
// q + y'·r rounded once (Markstein's correction), which is the correctly
// rounded quotient when y is within one ulp of 1/b. The caller guarantees
// the range where that holds without the slow path: b normal with
// 2^−64 ≤ |b| ≤ 2^64, and a zero, NaN, of magnitude in [2^−64, 2^64], or
// any finite value when b = ±1 (then y' = ±1 exactly and q = a; an infinite
// a gives NaN, as ∞ − ∞ is in the residual). NaN operands give
// NaN.
func (f *fnBuilder) quot32(a, b string) string {
	const t = "f32"
	y := f.v(t, "rcp.approx.ftz.f32", b)
	y = f.fma(t, y, f.fma(t, f.neg(t, b), y, lit(t, 1)), y)
	q := f.mul(t, a, y)
	return f.fma(t, y, f.fma(t, f.neg(t, b), q, a), q)
}

// shifter32 is 1.5·2^23: x + shifter32, rounded, holds rint(x) in its low
// mantissa bits for |x| < 2^22.
const shifter32, shifter32Bits = 0x1.8p23, "0x4B400000"

// rint32 is rint(a·b) (rint(a) where b is "") for float32 operands whose
// exact product lies within ±2^22, as a float32 k and an s32 ki: the
// product plus shifter32 in one fma, rounded to an integer (ties to even)
// in its low mantissa bits, instead of a rounding and cvt.rni's two
// conversions (FRND and F2I, which run at an eighth of the float32 rate
// on the GPUs the library targets).
func (f *fnBuilder) rint32(a, b string) (k, ki string) {
	const t = "f32"
	var sh string
	if b == "" {
		sh = f.add(t, a, litF32(shifter32))
	} else {
		sh = f.fma(t, a, b, litF32(shifter32))
	}
	k = f.sub(t, sh, litF32(shifter32))
	ki = f.v("b32", "sub.s32", f.v("b32", "mov.b32", sh), shifter32Bits)
	return k, ki
}

// sqrt32 is √v for v = 0 or finite v ≥ 2^−35, within a little over half
// an ulp (one Newton correction of an estimate within an ulp: the
// correctly rounded root but, rarely, where √v lies near the midpoint of
// two floats), without sqrt.rn.f32's slow-path branch: s = v·r corrected
// by its residual, s + (v − s²)·r/2, with r = rsqrt.approx(v + 2^−60)
// (v itself there; for v = 0 a finite r, so that s is 0 without a
// select). Infinite or negative v gives NaN; v in (0, 2^−35) garbage.
func (f *fnBuilder) sqrt32(v string) string {
	const t = "f32"
	r := f.v(t, "rsqrt.approx.ftz.f32", f.add(t, v, litF32(0x1p-60)))
	s := f.mul(t, v, r)
	return f.fma(t, f.fma(t, f.neg(t, s), s, v), f.mul(t, r, lit(t, 0.5)), s)
}
