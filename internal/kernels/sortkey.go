package kernels

import (
	"fmt"

	"github.com/gpuarr/gpuarr/device/dtype"
)

// Sort keys. A radix sort orders unsigned integers; every element type is
// mapped to one of its width (keyOf), so that unsigned order is the
// element order NumPy sorts by, and mapped back (decodeKey):
//
//   - unsigned integers as they are; signed ones with the sign bit
//     flipped;
//   - floats (16, 32 or 64 bits, by their layout in dtype): -0 first
//     becomes +0 (they are equal, so a stable sort keeps their order),
//     then a positive value gets its sign bit set and a negative one all
//     its bits flipped; every NaN becomes all ones, after +Inf;
//   - descending: the ascending key with all bits flipped, except that a
//     NaN stays all ones, so NaNs come last in both directions.
//
// Decoding gives back the values, with -0 as +0 and every NaN as the
// type's canonical quiet NaN; positions (Argsort) are exact.

// keyBits is the width of t's keys (8, 16, 32 or 64), or an error for a
// type that has no order (complex, bool).
func keyBits(t dtype.DType) (int, error) {
	switch {
	case t.IsInt(), t.IsFloat():
		return 8 * t.Size(), nil
	}
	return 0, fmt.Errorf("%s elements have no order to sort by", t)
}

// floatLayout is a float type's infinity (exponent all ones) and canonical
// quiet NaN, as bits.
func floatLayout(t dtype.DType) (inf, nan uint64) {
	switch t {
	case dtype.Float16:
		return 0x7C00, 0x7E00
	case dtype.BFloat16:
		return 0x7F80, 0x7FC0
	case dtype.Float32:
		return 0x7F800000, 0x7FC00000
	}
	return 0x7FF0000000000000, 0x7FF8000000000000
}

func widthMask(w int) uint64 {
	if w == 64 {
		return ^uint64(0)
	}
	return 1<<w - 1
}

// keyOf is the key of an element of type t whose bits are v.
func keyOf(v uint64, t dtype.DType, desc bool) uint64 {
	w := 8 * t.Size()
	m := widthMask(w)
	sign := uint64(1) << (w - 1)
	v &= m
	var k uint64
	switch {
	case t.IsUnsigned():
		k = v
	case t.IsSigned():
		k = v ^ sign
	default:
		inf, _ := floatLayout(t)
		if v&^sign > inf {
			return m // NaN: last either way
		}
		if v == sign {
			v = 0
		}
		if v&sign != 0 {
			k = ^v & m
		} else {
			k = v | sign
		}
	}
	if desc {
		k = ^k & m
	}
	return k
}

// decodeKey is keyOf's inverse (see the type's comment for NaN and -0).
func decodeKey(k uint64, t dtype.DType, desc bool) uint64 {
	w := 8 * t.Size()
	m := widthMask(w)
	sign := uint64(1) << (w - 1)
	if t.IsFloat() && k == m {
		_, nan := floatLayout(t)
		return nan
	}
	if desc {
		k = ^k & m
	}
	switch {
	case t.IsUnsigned():
		return k
	case t.IsSigned():
		return k ^ sign
	}
	if k&sign != 0 {
		return k ^ sign
	}
	return ^k & m
}

// keyReg is the register class of a key of w bits.
func keyReg(w int) class {
	if w == 64 {
		return clsB64
	}
	return clsB32
}

// keyType is the PTX integer type of a key register of w bits.
func keyType(w int) string {
	if w == 64 {
		return "b64"
	}
	return "b32"
}

// emitKeyOf converts v (raw bits of t, zero-extended in a key register)
// into its key (see keyOf).
func (g *ptx) emitKeyOf(v string, t dtype.DType, desc bool) string {
	w := 8 * t.Size()
	bt := keyType(w)
	m := widthMask(w)
	sign := uint64(1) << (w - 1)
	k := g.reg(keyReg(w))
	switch {
	case t.IsUnsigned():
		g.op("mov.%s %s, %s", bt, k, v)
	case t.IsSigned():
		g.op("xor.%s %s, %s, %s", bt, k, v, hex(sign))
	default:
		inf, _ := floatLayout(t)
		abs, nan, negz, neg := g.reg(keyReg(w)), g.pred(), g.pred(), g.pred()
		g.op("and.%s %s, %s, %s", bt, abs, v, hex(sign^m))
		g.op("setp.gt.u%d %s, %s, %s", max(w, 32), nan, abs, hex(inf))
		vz := g.reg(keyReg(w))
		g.op("setp.eq.u%d %s, %s, %s", max(w, 32), negz, v, hex(sign))
		g.op("selp.%s %s, 0, %s, %s", bt, vz, v, negz)
		sb := g.reg(keyReg(w))
		g.op("and.%s %s, %s, %s", bt, sb, vz, hex(sign))
		g.op("setp.ne.u%d %s, %s, 0", max(w, 32), neg, sb)
		flip, set := g.reg(keyReg(w)), g.reg(keyReg(w))
		g.op("xor.%s %s, %s, %s", bt, flip, vz, hex(m))
		g.op("or.%s %s, %s, %s", bt, set, vz, hex(sign))
		g.op("selp.%s %s, %s, %s, %s", bt, k, flip, set, neg)
		if desc {
			g.op("xor.%s %s, %s, %s", bt, k, k, hex(m))
		}
		g.op("selp.%s %s, %s, %s, %s", bt, k, hex(m), k, nan)
		return k
	}
	if desc {
		g.op("xor.%s %s, %s, %s", bt, k, k, hex(m))
	}
	return k
}

// emitDecode converts a key back to the raw bits of t (see decodeKey).
func (g *ptx) emitDecode(k string, t dtype.DType, desc bool) string {
	w := 8 * t.Size()
	bt := keyType(w)
	m := widthMask(w)
	sign := uint64(1) << (w - 1)
	v := g.reg(keyReg(w))
	var isNaN string
	if t.IsFloat() {
		isNaN = g.pred()
		g.op("setp.eq.u%d %s, %s, %s", max(w, 32), isNaN, k, hex(m))
	}
	kk := k
	if desc {
		kk = g.reg(keyReg(w))
		g.op("xor.%s %s, %s, %s", bt, kk, k, hex(m))
	}
	switch {
	case t.IsUnsigned():
		g.op("mov.%s %s, %s", bt, v, kk)
	case t.IsSigned():
		g.op("xor.%s %s, %s, %s", bt, v, kk, hex(sign))
	default:
		sb, pos := g.reg(keyReg(w)), g.pred()
		g.op("and.%s %s, %s, %s", bt, sb, kk, hex(sign))
		g.op("setp.ne.u%d %s, %s, 0", max(w, 32), pos, sb)
		a, b := g.reg(keyReg(w)), g.reg(keyReg(w))
		g.op("xor.%s %s, %s, %s", bt, a, kk, hex(sign))
		g.op("xor.%s %s, %s, %s", bt, b, kk, hex(m))
		g.op("selp.%s %s, %s, %s, %s", bt, v, a, b, pos)
		_, nan := floatLayout(t)
		g.op("selp.%s %s, %s, %s, %s", bt, v, hex(nan), v, isNaN)
	}
	return v
}

// emitDigit is the 8-bit digit of key k (w bits) at bit shift, as a u32.
func (g *ptx) emitDigit(k string, w, shift int) string {
	d := g.r32()
	if w == 64 {
		s := g.r64()
		g.op("shr.b64 %s, %s, %d", s, k, shift)
		g.op("cvt.u32.u64 %s, %s", d, s)
		g.op("and.b32 %s, %s, 255", d, d)
		return d
	}
	g.op("bfe.u32 %s, %s, %d, 8", d, k, shift)
	return d
}

// loadRawKey loads the element of type t at addr into a key register
// (zero-extended; guard as loadElem's).
func (g *ptx) loadRawKey(addr string, t dtype.DType, guard string) string {
	r := g.loadElem(addr, t.Size(), guard)
	return r[0]
}

// keyMemType is the PTX memory type of a w-bit key.
func keyMemType(w int) string { return fmt.Sprintf("u%d", w) }

// hex is an immediate in hexadecimal.
func hex(x uint64) string { return fmt.Sprintf("0x%X", x) }
