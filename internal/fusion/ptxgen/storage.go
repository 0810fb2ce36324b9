package ptxgen

import (
	"fmt"
	"strings"

	"github.com/gpuarr/gpuarr/device/dtype"
	"github.com/gpuarr/gpuarr/device/dtype/half"
	"github.com/gpuarr/gpuarr/internal/fusion/expr"
)

// The storage types in registers and memory: Bool as one byte (0 or 1)
// in memory and a predicate in registers; Float16 and BFloat16 as their
// bits (u16 in memory, zero-extended in a b32 register), converted to and
// from float32 by cast; complex values as register pairs, loaded and
// stored with one v2 access (Go, C99 and NumPy lay out the real part
// first; an array's address is a multiple of its element size, as v2
// needs).

// pair writes a complex value's registers.
func pair(re, im string) string { return "{" + re + ", " + im + "}" }

// parts splits a complex value's registers.
func parts(r string) (re, im string) {
	re, im, ok := strings.Cut(strings.Trim(r, "{}"), ",")
	if !ok {
		panic(fmt.Sprintf("ptxgen: %q is not a complex value's registers", r))
	}
	return strings.TrimSpace(re), strings.TrimSpace(im)
}

// load reads a value of type t at address a into a fresh register.
func (g *gen) load(t dtype.DType, a string) string {
	switch {
	case t == dtype.Bool:
		b, p := g.reg(clsB32), g.reg(clsPred)
		g.emit("ld.global.u8 %s, [%s]", b, a)
		g.emit("setp.ne.u32 %s, %s, 0", p, b) // any nonzero byte is true
		return p
	case t.IsComplex():
		r := g.regT(t)
		g.emit("ld.global.v2.%s %s, [%s]", ty(expr.PartType(t)), r, a)
		return r
	}
	r := g.regT(t)
	g.emit("ld.global.%s %s, [%s]", memType(t), r, a)
	return r
}

// stValue writes r, a value of type t, to address a.
func (g *gen) stValue(a string, t dtype.DType, r string) {
	switch {
	case t == dtype.Bool:
		b := g.reg(clsB32)
		g.emit("selp.u32 %s, 1, 0, %s", b, r)
		g.emit("st.global.u8 [%s], %s", a, b)
	case t.IsComplex():
		g.emit("st.global.v2.%s [%s], %s", ty(expr.PartType(t)), a, r)
	default:
		g.emit("st.global.%s [%s], %s", memType(t), a, r)
	}
}

// toHalf rounds r (float32 or float64) to half type to, to nearest even,
// NaN to the canonical NaN (half.NaN16). A float64 is first rounded to
// float32 toward zero with the inexact bit kept in its last place (round
// to odd), so that rounding that to the half's 11 or 8 bits is one
// correct rounding of the float64. Float16 rounds with cvt.rn.f16.f32;
// BFloat16 on the bits (add 0x7FFF and the lowest kept bit), which needs
// no sm_80 conversion.
func (g *gen) toHalf(from, to dtype.DType, r string) string {
	if from == dtype.Float64 {
		r = g.roundToOdd32(r)
	}
	d := g.reg(clsB32)
	if to == dtype.Float16 {
		h := g.reg(clsB16)
		g.emit("cvt.rn.f16.f32 %s, %s", h, r)
		g.emit("cvt.u32.u16 %s, %s", d, h)
	} else {
		b, lsb, t := g.reg(clsB32), g.reg(clsB32), g.reg(clsB32)
		g.emit("mov.b32 %s, %s", b, r)
		g.emit("shr.u32 %s, %s, 16", lsb, b)
		g.emit("and.b32 %s, %s, 1", lsb, lsb)
		g.emit("add.u32 %s, %s, 32767", t, b)
		g.emit("add.u32 %s, %s, %s", t, t, lsb)
		g.emit("shr.u32 %s, %s, 16", d, t)
	}
	nan, z := g.reg(clsPred), g.reg(clsB32)
	g.emit("setp.nan.f32 %s, %s, %s", nan, r, r)
	g.emit("selp.b32 %s, %d, %s, %s", z, half.NaN16, d, nan)
	return z
}

// roundToOdd32 rounds float64 r to float32 toward zero and sets the last
// bit when that was inexact.
func (g *gen) roundToOdd32(r string) string {
	f, back, inexact := g.reg(clsF32), g.reg(clsF64), g.reg(clsPred)
	b, odd, sel, d := g.reg(clsB32), g.reg(clsB32), g.reg(clsB32), g.reg(clsF32)
	g.emit("cvt.rz.f32.f64 %s, %s", f, r)
	g.emit("cvt.f64.f32 %s, %s", back, f)
	g.emit("setp.neu.f64 %s, %s, %s", inexact, back, r)
	g.emit("mov.b32 %s, %s", b, f)
	g.emit("or.b32 %s, %s, 1", odd, b)
	g.emit("selp.b32 %s, %s, %s, %s", sel, odd, b, inexact)
	g.emit("mov.b32 %s, %s", d, sel)
	return d
}

// fromHalf widens the half bits in r to float32 (exact): cvt.f32.f16 for
// Float16, the bits shifted into float32's upper half for BFloat16.
func (g *gen) fromHalf(from dtype.DType, r string) string {
	d := g.reg(clsF32)
	if from == dtype.Float16 {
		h := g.reg(clsB16)
		g.emit("cvt.u16.u32 %s, %s", h, r)
		g.emit("cvt.f32.f16 %s, %s", d, h)
		return d
	}
	b := g.reg(clsB32)
	g.emit("shl.b32 %s, %s, 16", b, r)
	g.emit("mov.b32 %s, %s", d, b)
	return d
}

// complexCast converts complex r between the complex types, each part
// as floats convert.
func (g *gen) complexCast(from, to dtype.DType, r string) string {
	re, im := parts(r)
	pf, pt := expr.PartType(from), expr.PartType(to)
	return pair(g.cast(pf, pt, re), g.cast(pf, pt, im))
}
