package ptxgen

import (
	"math"
	"strconv"

	"github.com/gpuarr/gpuarr/internal/fusion/mathcoef"
)

// float32 log, log2, log10 and log1p: one branch-free path each, no
// division.
//
// x = 2^e·(1+f) with 1+f in [√½, √2) from x's bits (logCore32: the
// exponent field split at √½'s bits by one integer subtraction; a
// subnormal x is scaled by 2^23 first, by a select), then
//
//	log   = e·ln2 + (f + f²·Q(f))   ln2 rounded once; f is exact
//	log2  = e + (f·c₀ + f²·R(f))     c₀ + f·R(f) = P(f) ≈ log₂(1+f)/f
//	log10 = e·log₁₀2 + (f·c₀ + f²·R(f)), log₁₀2 as hi + lo
//
// (Q, P minimax, mathcoef.LnQF32, Log2PF32, Log10PF32), each rounded
// once at the end. The reduction to [√½, √2) keeps the cancellation of
// e·ln2 against log(1+f) at e = ±1 within a factor of 2, so the last two
// roundings cost at most an ulp together. log1p reduces u = RN(1+x),
// with c = (1+x) − u exactly (x − (u−1)), and adds c/u ≈ c·2^−e·(1 − f +
// f²)/… folded into the polynomial's small part. Special values at the
// end: lg2.approx of the reduced argument is exactly the special value
// where there is one, and finite elsewhere (logSpecials32).

// logSqrtHalfBits is √½ rounded down to float32, as bits: the reduction
// takes m = 1+f in [0x3F3504F3, 2·that).
const logSqrtHalfBits = 0x3F3504F3

// log₁₀2 as float32 hi + lo (hi rounded to nearest, lo the rest rounded).
var (
	log10of2Hi32 = float32(math.Log10(2))
	log10of2Lo32 = float32(math.Log10(2) - float64(log10of2Hi32))
)

// logCore32 returns e (as a float32) and f with x = 2^e·(1+f), 1+f in
// [√½, √2), for finite x > 0 (subnormal included), and xs: x, or x·2^23
// where x < 2^-126 (so xs is never subnormal). Any other x gives finite
// garbage; the caller selects the special values (logSpecials32 of xs).
func (f *fnBuilder) logCore32(x string) (ef, fr, xs string) {
	const t = "f32"
	psub := f.setp("lt", t, x, litF32(0x1p-126))
	xs = f.sel(t, f.mul(t, x, litF32(0x1p23)), x, psub)
	k := f.v("b32", "selp.b32", strconv.Itoa(logSqrtHalfBits+23<<23), strconv.Itoa(logSqrtHalfBits), psub)
	ei, fr := f.logSplit32(f.v("b32", "mov.b32", xs), k)
	return f.v(t, "cvt.rn.f32.s32", ei), fr, xs
}

// normal32 is the predicate that bits are a positive normal finite float32.
func (f *fnBuilder) normal32(bits string) string {
	return f.v("pred", "setp.lt.u32", f.v("b32", "sub.s32", bits, "0x00800000"), "0x7F000000")
}

// logSplit32 returns e (s32) and f with bits = 2^e·(1+f), 1+f in [√½, √2),
// the exponent offset by k − √½'s bits (23 for a subnormal scaled by 2^23).
func (f *fnBuilder) logSplit32(bits, k string) (ei, fr string) {
	tmp := f.v("b32", "sub.s32", bits, k)
	ei = f.v("b32", "shr.s32", tmp, "23")
	mb := f.v("b32", "add.s32", f.v("b32", "and.b32", tmp, "8388607"), strconv.Itoa(logSqrtHalfBits))
	return ei, f.sub("f32", f.v("f32", "mov.b32", mb), litF32(1))
}

// logSpecials32 is y where v is positive and finite, and otherwise log's
// special value at v: −Inf for ±0, +Inf for +Inf, NaN for v < 0 and NaN.
// v is never subnormal (logCore32's xs, log1p's 1 + x): lg2.approx gives
// those values exactly and is finite for every other v, so one MUFU.LG2
// and a test decide both the case and its value.
func (f *fnBuilder) logSpecials32(v, y string) string {
	const t = "f32"
	sv := f.v(t, "lg2.approx.ftz.f32", v)
	return f.sel(t, y, sv, f.v("pred", "testp.finite.f32", sv))
}

// lnTail32 is f²·Q(f) + c ≈ log(1+f) − f + c for f in [√½−1, √2−1]: the
// small part, to be added to f.
func (f *fnBuilder) lnTail32(fr, c string) string {
	return f.fma("f32", f.mul("f32", fr, fr), f.poly32(fr, mathcoef.LnQF32), c)
}

// logBase32 is f·P(f) = f·c₀ + f²·R(f) for P = c (c₀ its first
// coefficient), rounded once.
func (f *fnBuilder) logBase32(fr string, c []float32) string {
	const t = "f32"
	r := f.mul(t, f.mul(t, fr, fr), f.poly32(fr, c[1:]))
	return f.fma(t, fr, litF32(c[0]), r)
}

func logF32Func() funcDef {
	const t = "f32"
	f := newFn("log_f32")
	x := f.newReg(t)
	f.load(x, 0)
	e, fr, xs := f.logCore32(x)
	r := f.fma(t, f.mul(t, fr, fr), f.poly32(fr, mathcoef.LnQF32), fr)
	y := f.fma(t, e, litF32(float32(math.Ln2)), r)
	return f.done(f.logSpecials32(xs, y))
}

func log2F32Func() funcDef {
	const t = "f32"
	f := newFn("log2_f32")
	x := f.newReg(t)
	f.load(x, 0)
	e, fr, xs := f.logCore32(x)
	y := f.add(t, e, f.logBase32(fr, mathcoef.Log2PF32))
	return f.done(f.logSpecials32(xs, y))
}

func log10F32Func() funcDef {
	const t = "f32"
	f := newFn("log10_f32")
	x := f.newReg(t)
	f.load(x, 0)
	e, fr, xs := f.logCore32(x)
	u := f.logBase32(fr, mathcoef.Log10PF32)
	y := f.fma(t, e, litF32(log10of2Hi32), f.fma(t, e, litF32(log10of2Lo32), u))
	return f.done(f.logSpecials32(xs, y))
}

// log1pCore32 is log1p(x) for −1 < x < +Inf, and u = RN(1+x) (positive,
// normal and finite exactly there); other x give garbage. Where approx is
// set, c/u is c·rcp.approx(u) instead of the series below (one MUFU.RCP
// for five instructions; its bits are the GPU's, a step at most in the
// result's last place) and Q has a term fewer (mathcoef.LnQ8F32, error
// 2^-25 relative): for callers whose bounds have room.
func (f *fnBuilder) log1pCore32(x string, approx bool) (y, u string) {
	const t = "f32"
	// u + c = 1 + x exactly, u ≥ 2^−24 (normal) for x > −1.
	u = f.add(t, litF32(1), x)
	return f.logSum32(u, f.sub(t, x, f.sub(t, u, litF32(1))), approx), u
}

// logSum32 is log(u + c) for u positive, normal and finite and |c| at
// most half an ulp of u (the rounding error of a sum u), as log1pCore32
// describes; other u give garbage.
func (f *fnBuilder) logSum32(u, c string, approx bool) string {
	const t = "f32"
	// u = 2^e·(1+f); eb = e·2^23.
	bits := f.v("b32", "mov.b32", u)
	eb := f.v("b32", "and.b32", f.v("b32", "sub.s32", bits, strconv.Itoa(logSqrtHalfBits)), "0xFF800000")
	fr := f.sub(t, f.v(t, "mov.b32", f.v("b32", "sub.s32", bits, eb)), litF32(1))
	e := f.v(t, "cvt.rn.f32.s32", eb)
	if approx {
		corr := f.mul(t, c, f.v(t, "rcp.approx.ftz.f32", u))
		r := f.add(t, fr, f.fma(t, f.mul(t, fr, fr), f.poly32(fr, mathcoef.LnQ8F32), corr))
		return f.fma(t, e, litF32(float32(math.Ln2*0x1p-23)), r)
	}
	// c/u = c·2^−e/(1+f) ≈ (c·2^(1−e))·½(1 − f + f²), within 5%: c/u is at
	// most 2^−24·… and the result at least 0.34 where e ≠ 0; where e = 0
	// (x small) the series' error is c·f³, a fraction of an ulp of x.
	// 2^(1−e) from its exponent field (0 for e = 128, where c = 0).
	s := f.v(t, "mov.b32", f.v("b32", "sub.s32", "0x40000000", eb))
	q := f.fma(t, f.fma(t, fr, litF32(0.5), litF32(-0.5)), fr, litF32(0.5))
	corr := f.mul(t, f.mul(t, c, s), q)
	r := f.add(t, fr, f.lnTail32(fr, corr))
	return f.fma(t, e, litF32(float32(math.Ln2*0x1p-23)), r)
}

func log1pF32Func() funcDef {
	const t = "f32"
	f := newFn("log1p_f32")
	x := f.newReg(t)
	f.load(x, 0)
	y, u := f.log1pCore32(x, false)
	// Special values from u = 1 + x, which is never subnormal: −1 → −Inf,
	// x < −1 and NaN → NaN, +Inf → +Inf. log1p(x) has x's sign, which
	// makes log1p(−0) −0 (the core gives +0).
	y = f.logSpecials32(u, y)
	return f.done(f.v(t, "copysign.f32", x, y))
}

// log1pPos32 is log1p(x) for x ≥ 0, +Inf or NaN (+Inf → +Inf, NaN → NaN),
// written inline for atanh, whose log1p argument is never negative
// (log1p(+0) = +0), in log1pCore32's approx form (its bound, 3 ulp, has
// room for it).
func (f *fnBuilder) log1pPos32(x string) string {
	y, _ := f.log1pCore32(x, true)
	return f.sel("f32", x, y, f.setp("geu", "f32", x, "0f7F800000"))
}
