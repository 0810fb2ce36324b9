package kernels

import (
	"fmt"

	"github.com/gpuarr/gpuarr/device/dtype"
)

// Kernels that only move elements (gathers, scatters, joins) see an
// element as its size: 1, 2, 4, 8 or 16 bytes. They load it into one
// register (two 64-bit ones for 16 bytes) and store it back unchanged, so
// every element type the vocabulary has moves, complex ones included.

// elemRegs is the registers holding one moved element.
type elemRegs []string

// moveType is the PTX memory type that moves size bytes, and how many
// registers of it an element takes.
func moveType(size int) (t string, cls class, n int) {
	switch size {
	case 1:
		return "u8", clsB32, 1
	case 2:
		return "u16", clsB32, 1
	case 4:
		return "u32", clsB32, 1
	case 8:
		return "u64", clsB64, 1
	case 16:
		return "u64", clsB64, 2
	}
	panic(fmt.Sprintf("kernels: element size %d", size))
}

// loadElem loads the element of size bytes at addr (under guard, when not
// empty: the registers are zero otherwise).
func (g *ptx) loadElem(addr string, size int, guard string) elemRegs {
	t, cls, n := moveType(size)
	rs := make(elemRegs, n)
	for i := range rs {
		rs[i] = g.reg(cls)
	}
	pre := ""
	if guard != "" {
		for _, r := range rs {
			g.op("mov.b%d %s, 0", map[class]int{clsB32: 32, clsB64: 64}[cls], r)
		}
		pre = "@" + guard + " "
	}
	if n == 1 {
		g.op("%sld.global.%s %s, [%s]", pre, t, rs[0], addr)
	} else {
		g.op("%sld.global.v2.%s {%s, %s}, [%s]", pre, t, rs[0], rs[1], addr)
	}
	return rs
}

// storeElem stores an element (under guard when not empty).
func (g *ptx) storeElem(addr string, size int, rs elemRegs, guard string) {
	t, _, n := moveType(size)
	pre := ""
	if guard != "" {
		pre = "@" + guard + " "
	}
	if n == 1 {
		g.op("%sst.global.%s [%s], %s", pre, t, addr, rs[0])
	} else {
		g.op("%sst.global.v2.%s [%s], {%s, %s}", pre, t, addr, rs[0], rs[1])
	}
}

// memType is the PTX type of an integer of type t in memory.
func memType(t dtype.DType) string {
	switch t {
	case dtype.Int8:
		return "s8"
	case dtype.Int16:
		return "s16"
	case dtype.Int32:
		return "s32"
	case dtype.Int64:
		return "s64"
	case dtype.Uint8, dtype.Bool:
		return "u8"
	case dtype.Uint16:
		return "u16"
	case dtype.Uint32:
		return "u32"
	case dtype.Uint64:
		return "u64"
	case dtype.Float32:
		return "f32"
	case dtype.Float64:
		return "f64"
	}
	panic(fmt.Sprintf("kernels: no memory type for %s", t))
}

// loadIndex loads an integer of type t at addr as a 64-bit value, sign-
// or zero-extended by t's signedness.
func (g *ptx) loadIndex(addr string, t dtype.DType, guard string) string {
	pre := ""
	if guard != "" {
		pre = "@" + guard + " "
	}
	r := g.r64()
	if t.Size() == 8 {
		if guard != "" {
			g.op("mov.b64 %s, 0", r)
		}
		g.op("%sld.global.%s %s, [%s]", pre, memType(t), r, addr)
		return r
	}
	r32 := g.r32()
	if guard != "" {
		g.op("mov.b32 %s, 0", r32)
	}
	g.op("%sld.global.%s %s, [%s]", pre, memType(t), r32, addr)
	if t.IsSigned() {
		g.op("cvt.s64.s32 %s, %s", r, r32)
	} else {
		g.op("cvt.u64.u32 %s, %s", r, r32)
	}
	return r
}

// Index modes: what a kernel does with an index outside [-n, n).
const (
	ModeRaise = iota // record it (internal/indexcheck) and skip the element
	ModeClip         // clip to [0, n-1] (negative indices to 0), as NumPy's mode='clip'
	ModeWrap         // wrap modulo n, as NumPy's mode='wrap'
)

// resolveIndex turns index j (a 64-bit value of integer type t) into a
// position in [0, n) by the mode (n ≥ 1 for ModeClip and ModeWrap); for
// ModeRaise it returns a predicate true when j is out of range (the
// position is then 0) and records the bad index at position pos in the
// check slot. valid, when not empty, guards the whole: an invalid lane
// is never bad.
func (g *ptx) resolveIndex(j string, t dtype.DType, n string, mode int, slot, pos, valid string) (p, bad string) {
	p = g.r64()
	switch mode {
	case ModeClip:
		if t.IsSigned() {
			g.op("max.s64 %s, %s, 0", p, j)
			g.op("min.s64 %s, %s, %s", p, p, g.sub1(n))
		} else {
			g.op("min.u64 %s, %s, %s", p, j, g.sub1(n))
		}
		return p, ""
	case ModeWrap:
		if t.IsSigned() {
			// ((j mod n) + n) mod n, with rem's sign that of j.
			r := g.r64()
			g.op("rem.s64 %s, %s, %s", r, j, n)
			neg := g.pred()
			g.op("setp.lt.s64 %s, %s, 0", neg, r)
			g.op("@%s add.s64 %s, %s, %s", neg, r, r, n)
			g.op("mov.b64 %s, %s", p, r)
		} else {
			g.op("rem.u64 %s, %s, %s", p, j, n)
		}
		return p, ""
	}
	bad = g.pred()
	if t.IsSigned() {
		neg := g.pred()
		g.op("setp.lt.s64 %s, %s, 0", neg, j)
		g.op("mov.b64 %s, %s", p, j)
		g.op("@%s add.s64 %s, %s, %s", neg, p, j, n)
		lo, hi := g.pred(), g.pred()
		g.op("setp.lt.s64 %s, %s, 0", lo, p)
		g.op("setp.ge.s64 %s, %s, %s", hi, p, n)
		g.op("or.pred %s, %s, %s", bad, lo, hi)
	} else {
		g.op("mov.b64 %s, %s", p, j)
		g.op("setp.ge.u64 %s, %s, %s", bad, p, n)
	}
	if valid != "" {
		g.op("and.pred %s, %s, %s", bad, bad, valid)
	}
	g.op("@%s mov.b64 %s, 0", bad, p)
	skip := g.label("good")
	g.op("@!%s bra %s", bad, skip)
	g.callBadIndex(slot, pos, j)
	g.at(skip)
	return p, bad
}

func (g *ptx) sub1(n string) string {
	r := g.r64()
	g.op("sub.s64 %s, %s, 1", r, n)
	return r
}

// badIndexFunc is the record protocol of package indexcheck as a .func.
const badIndexFunc = `.func gpuarr_k_badindex(.param .b64 bi_slot, .param .b64 bi_pos, .param .b64 bi_val)
{
	.reg .pred %q<4>;
	.reg .b32 %w<3>;
	.reg .b64 %x<8>;
	ld.param.b64 %x1, [bi_slot];
	ld.param.b64 %x2, [bi_pos];
	ld.param.b64 %x3, [bi_val];
	ld.volatile.global.u64 %x4, [%x1];
	setp.ge.u64 %q1, %x2, %x4;
	@%q1 bra $L_bi_done;
	atom.global.min.u64 %x5, [%x1], %x2;
	setp.ge.u64 %q2, %x2, %x5;
	@%q2 bra $L_bi_done;
$L_bi_lock:
	atom.global.cas.b32 %w1, [%x1+16], 0, 1;
	setp.ne.u32 %q3, %w1, 0;
	@%q3 bra $L_bi_lock;
	ld.volatile.global.u64 %x6, [%x1];
	setp.eq.u64 %q3, %x6, %x2;
	@%q3 st.volatile.global.u64 [%x1+8], %x3;
	membar.gl;
	atom.global.exch.b32 %w2, [%x1+16], 0;
$L_bi_done:
	ret;
}`

// callBadIndex records index val at position pos in the check slot.
func (g *ptx) callBadIndex(slot, pos, val string) {
	g.funcs["gpuarr_k_badindex"] = badIndexFunc
	g.body.WriteString("\t{\n\t.param .b64 bi_a0;\n\t.param .b64 bi_a1;\n\t.param .b64 bi_a2;\n")
	g.op("st.param.b64 [bi_a0], %s", slot)
	g.op("st.param.b64 [bi_a1], %s", pos)
	g.op("st.param.b64 [bi_a2], %s", val)
	g.op("call.uni gpuarr_k_badindex, (bi_a0, bi_a1, bi_a2)")
	g.body.WriteString("\t}\n")
}
