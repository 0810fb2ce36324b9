package ptxgen

import (
	"fmt"
	"math"

	"github.com/gpuarr/gpuarr/device/dtype"
	"github.com/gpuarr/gpuarr/internal/fusion/expr"
)

// Package expr's semantics (expr.Op's doc) in PTX: float arithmetic with
// .rn (never contracted into FMA), FMA with fma.rn, integer division
// guarded against x/0 (0) and MinInt/-1 (MinInt), float Min/Max returning
// NaN when either operand is NaN, Ne true on NaN (setp.neu), float→int by
// cvt.rzi plus a clamp for narrow types and an explicit NaN → 0 (the GPU's
// cvt gives the integer indefinite value for NaN).

// ty is the PTX type that arithmetic on t uses: narrow integers compute
// in 32 bits.
func ty(t dtype.DType) string {
	switch t {
	case dtype.Int8, dtype.Int16, dtype.Int32:
		return "s32"
	case dtype.Bool, dtype.Uint8, dtype.Uint16, dtype.Uint32:
		return "u32"
	case dtype.Int64:
		return "s64"
	case dtype.Uint64:
		return "u64"
	case dtype.Float32:
		return "f32"
	}
	return "f64"
}

// signedTy is ty(t) with integers signed (neg takes only signed types).
func signedTy(t dtype.DType) string {
	switch ty(t) {
	case "u32":
		return "s32"
	case "u64":
		return "s64"
	}
	return ty(t)
}

// bits is the untyped PTX type of t's register (for mov and selp).
func bits(t dtype.DType) string {
	switch classOf(t) {
	case clsF32:
		return "f32"
	case clsF64:
		return "f64"
	case clsB64:
		return "b64"
	}
	return "b32"
}

// memType is the PTX type of t in memory (ld and st).
func memType(t dtype.DType) string {
	switch t {
	case dtype.Int8:
		return "s8"
	case dtype.Uint8, dtype.Bool:
		return "u8"
	case dtype.Int16:
		return "s16"
	case dtype.Uint16, dtype.Float16, dtype.BFloat16:
		return "u16"
	}
	return ty(t)
}

// normalize re-extends a narrow integer held in a 32-bit register from its
// width, so that it wraps like its type.
func (g *gen) normalize(t dtype.DType, r string) string {
	switch t {
	case dtype.Int8, dtype.Int16:
		d := g.reg(clsB32)
		g.emit("cvt.s32.%s %s, %s", memType(t), d, r)
		return d
	case dtype.Uint8:
		d := g.reg(clsB32)
		g.emit("and.b32 %s, %s, 255", d, r)
		return d
	case dtype.Uint16:
		d := g.reg(clsB32)
		g.emit("and.b32 %s, %s, 65535", d, r)
		return d
	}
	return r
}

func isNarrow(t dtype.DType) bool { return t.IsInt() && t.Size() < 4 }

// immediate is x converted to t as a PTX immediate operand (not Bool).
func immediate(t dtype.DType, x float64) string {
	switch t {
	case dtype.Float32:
		return fmt.Sprintf("0f%08X", math.Float32bits(float32(x)))
	case dtype.Float64:
		return fmt.Sprintf("0d%016X", math.Float64bits(x))
	}
	return intImmediate(t, constInt(t, x))
}

// intImmediate is the register bits of integer v of type t (narrow types
// sign- or zero-extended to 32 bits).
func intImmediate(t dtype.DType, v uint64) string {
	if t.Size() == 8 {
		return fmt.Sprintf("0x%016X", v)
	}
	return fmt.Sprintf("0x%08X", uint32(v))
}

// constInt converts x to integer type t like a Cast: truncation toward
// zero, saturation to the type's range, NaN to 0. The result is the value
// sign- or zero-extended to 64 bits.
func constInt(t dtype.DType, x float64) uint64 {
	if math.IsNaN(x) {
		return 0
	}
	x = math.Trunc(x)
	lo, hi := intRange(t)
	if t.IsSigned() {
		switch {
		case x <= float64(int64(lo)):
			return lo
		case x >= float64(int64(hi)):
			return hi
		}
		return uint64(int64(x))
	}
	switch {
	case x <= 0:
		return 0
	case x >= float64(hi):
		return hi
	}
	return uint64(x)
}

// intRange is the least and greatest value of integer type t, as
// register bits sign- or zero-extended to 64 bits.
func intRange(t dtype.DType) (lo, hi uint64) {
	if t.IsSigned() {
		w := uint(t.Size() * 8)
		return uint64(int64(-1) << (w - 1)), uint64(1)<<(w-1) - 1
	}
	if t.Size() == 8 {
		return 0, math.MaxUint64
	}
	return 0, uint64(1)<<uint(t.Size()*8) - 1
}

// constant materializes instruction in (OpConst) in a register.
func (g *gen) constant(in expr.Instr) string {
	if in.T == dtype.Bool {
		r, pr := g.reg(clsB32), g.reg(clsPred)
		v := 0
		if in.Const != 0 || math.IsNaN(in.Const) {
			v = 1
		}
		g.emit("mov.u32 %s, %d", r, v)
		g.emit("setp.ne.u32 %s, %s, 0", pr, r)
		return pr
	}
	r := g.regT(in.T)
	g.emit("mov.%s %s, %s", bits(in.T), r, immediate(in.T, in.Const))
	return r
}

// op emits instruction in (not a leaf that reads memory) with operands
// taken from vals, and returns its result register.
func (g *gen) op(in expr.Instr, vals []string) string {
	var a, b, c string
	switch in.Op.Arity() {
	case 3:
		c = vals[in.C]
		fallthrough
	case 2:
		b = vals[in.B]
		fallthrough
	case 1:
		a = vals[in.A]
	}
	t := in.T
	if in.Op.Info().Math {
		// A math library function (mathlib.go), name_f32 or name_f64.
		return g.call(in.Op.String()+"_"+ty(t), t, []string{a, b, c}[:in.Op.Arity()]...)
	}
	switch in.Op {
	case expr.OpConst:
		return g.constant(in)
	case expr.OpScalar:
		return g.scalar(in)
	case expr.OpNeg:
		d := g.regT(t)
		g.emit("neg.%s %s, %s", signedTy(t), d, a)
		return g.normalize(t, d)
	case expr.OpAbs:
		if t.IsUnsigned() {
			return a
		}
		d := g.regT(t)
		g.emit("abs.%s %s, %s", ty(t), d, a)
		return g.normalize(t, d)
	case expr.OpSqrt:
		d := g.regT(t)
		g.emit("sqrt.rn.%s %s, %s", ty(t), d, a)
		return d
	case expr.OpNot:
		d := g.reg(clsPred)
		g.emit("not.pred %s, %s", d, a)
		return d
	case expr.OpAnd, expr.OpOr:
		d := g.reg(clsPred)
		g.emit("%s.pred %s, %s, %s", in.Op, d, a, b)
		return d
	case expr.OpCast:
		return g.cast(g.p.Code[in.A].T, t, a)
	case expr.OpReal, expr.OpImag:
		re, im := parts(a)
		if in.Op == expr.OpImag {
			return im
		}
		return re
	case expr.OpComplex:
		d := g.regT(t)
		re, im := parts(d)
		g.emit("mov.%s %s, %s", ty(expr.PartType(t)), re, a)
		g.emit("mov.%s %s, %s", ty(expr.PartType(t)), im, b)
		return d
	case expr.OpAdd, expr.OpSub, expr.OpMul:
		d := g.regT(t)
		switch {
		case t.IsFloat():
			g.emit("%s.rn.%s %s, %s, %s", in.Op, ty(t), d, a, b)
		case in.Op == expr.OpMul:
			g.emit("mul.lo.%s %s, %s, %s", ty(t), d, a, b)
		default:
			g.emit("%s.%s %s, %s, %s", in.Op, ty(t), d, a, b)
		}
		return g.normalize(t, d)
	case expr.OpDiv:
		if t.IsFloat() {
			d := g.regT(t)
			g.emit("div.rn.%s %s, %s, %s", ty(t), d, a, b)
			return d
		}
		return g.normalize(t, g.intDiv(t, a, b))
	case expr.OpMin, expr.OpMax:
		return g.minMax(in.Op == expr.OpMin, t, a, b)
	case expr.OpFMA:
		d := g.regT(t)
		if t.IsFloat() {
			g.emit("fma.rn.%s %s, %s, %s, %s", ty(t), d, a, b, c)
			return d
		}
		g.emit("mad.lo.%s %s, %s, %s, %s", ty(t), d, a, b, c)
		return g.normalize(t, d)
	case expr.OpWhere:
		if t == dtype.Bool {
			// (A and B) or (not A and C)
			t1, na, t2, d := g.reg(clsPred), g.reg(clsPred), g.reg(clsPred), g.reg(clsPred)
			g.emit("and.pred %s, %s, %s", t1, a, b)
			g.emit("not.pred %s, %s", na, a)
			g.emit("and.pred %s, %s, %s", t2, na, c)
			g.emit("or.pred %s, %s, %s", d, t1, t2)
			return d
		}
		d := g.regT(t)
		g.emit("selp.%s %s, %s, %s, %s", bits(t), d, b, c, a)
		return d
	}
	if in.Op.IsCompare() {
		return g.compare(in.Op, g.p.Code[in.A].T, a, b)
	}
	if d, ok := g.funcOp(in, a, b); ok {
		return d
	}
	panic(fmt.Sprintf("ptxgen: op %s has no emitter", in.Op))
}

// call computes math library function name of float arguments of type t
// by a copy of its body (InlineFunc).
func (g *gen) call(name string, t dtype.DType, args ...string) string {
	g.funcs[name] = true
	d := g.regT(t)
	text, next := inlineFunc(name, d, g.inlined, args...)
	g.inlined = next
	g.emitRaw(text)
	return d
}

// intDiv divides integers: truncation toward zero, x/0 = 0 and
// MinInt/-1 = MinInt (as -x, which wraps), without ever executing a
// division by 0 or an overflowing one.
func (g *gen) intDiv(t dtype.DType, a, b string) string {
	pt := ty(t)
	bt := bits(t)
	zero := g.reg(clsPred)
	g.emit("setp.eq.%s %s, %s, 0", pt, zero, b)
	safe := g.regT(t)
	g.emit("selp.%s %s, 1, %s, %s", bt, safe, b, zero)
	var minus1 string
	if t.IsSigned() {
		minus1 = g.reg(clsPred)
		g.emit("setp.eq.%s %s, %s, -1", pt, minus1, b)
		s2 := g.regT(t)
		g.emit("selp.%s %s, 1, %s, %s", bt, s2, safe, minus1)
		safe = s2
	}
	q := g.regT(t)
	g.emit("div.%s %s, %s, %s", pt, q, a, safe)
	if t.IsSigned() {
		n, q2 := g.regT(t), g.regT(t)
		g.emit("neg.%s %s, %s", pt, n, a)
		g.emit("selp.%s %s, %s, %s, %s", bt, q2, n, q, minus1)
		q = q2
	}
	d := g.regT(t)
	g.emit("selp.%s %s, 0, %s, %s", bt, d, q, zero)
	return d
}

// minMax is Min or Max; for floats NaN when either operand is NaN.
func (g *gen) minMax(isMin bool, t dtype.DType, a, b string) string {
	name := "max"
	if isMin {
		name = "min"
	}
	m := g.regT(t)
	g.emit("%s.%s %s, %s, %s", name, ty(t), m, a, b)
	if !t.IsFloat() {
		return m
	}
	nan, sum, d := g.reg(clsPred), g.regT(t), g.regT(t)
	g.emit("setp.nan.%s %s, %s, %s", ty(t), nan, a, b)
	g.emit("add.rn.%s %s, %s, %s", ty(t), sum, a, b) // NaN when either is
	g.emit("selp.%s %s, %s, %s, %s", ty(t), d, sum, m, nan)
	return d
}

var cmpName = map[expr.Op]string{
	expr.OpLt: "lt", expr.OpLe: "le", expr.OpGt: "gt", expr.OpGe: "ge", expr.OpEq: "eq", expr.OpNe: "ne",
}

// compare compares a and b of type t (Bool operands compare as 0 and 1).
func (g *gen) compare(op expr.Op, t dtype.DType, a, b string) string {
	if t == dtype.Bool {
		a, b = g.cast(t, dtype.Uint32, a), g.cast(t, dtype.Uint32, b)
		t = dtype.Uint32
	}
	name := cmpName[op]
	if t.IsFloat() && op == expr.OpNe {
		name = "neu" // true when either is NaN
	}
	d := g.reg(clsPred)
	g.emit("setp.%s.%s %s, %s, %s", name, ty(t), d, a, b)
	return d
}

// cast converts r from type from to type to as expr.Castable's doc says
// (to and from halves only where it allows).
func (g *gen) cast(from, to dtype.DType, r string) string {
	switch {
	case from == to:
		return r
	case from.IsComplex():
		return g.complexCast(from, to, r)
	case expr.IsHalf(to):
		return g.toHalf(from, to, r)
	case expr.IsHalf(from):
		return g.fromHalf(from, r)
	case from == dtype.Bool:
		d := g.regT(to)
		g.emit("selp.%s %s, %s, %s, %s", bits(to), d, immediate(to, 1), immediate(to, 0), r)
		return d
	case to == dtype.Bool:
		d := g.reg(clsPred)
		if from.IsFloat() {
			g.emit("setp.neu.%s %s, %s, %s", ty(from), d, r, immediate(from, 0))
		} else {
			g.emit("setp.ne.%s %s, %s, 0", ty(from), d, r)
		}
		return d
	case from.IsFloat() && to.IsFloat():
		d := g.regT(to)
		if to == dtype.Float32 {
			g.emit("cvt.rn.f32.f64 %s, %s", d, r)
		} else {
			g.emit("cvt.f64.f32 %s, %s", d, r)
		}
		return d
	case from.IsFloat():
		return g.floatToInt(from, to, r)
	case to.IsFloat():
		d := g.regT(to)
		g.emit("cvt.rn.%s.%s %s, %s", ty(to), ty(from), d, r)
		return d
	}
	// Integer to integer: the source register is normalized, so widening
	// is an extension by the source's signedness and narrowing a
	// truncation followed by normalization.
	switch fs, ts := from.Size() == 8, to.Size() == 8; {
	case fs && ts:
		return r
	case !fs && ts:
		d := g.reg(clsB64)
		if from.IsSigned() {
			g.emit("cvt.s64.s32 %s, %s", d, r)
		} else {
			g.emit("cvt.u64.u32 %s, %s", d, r)
		}
		return d
	case fs && !ts:
		d := g.reg(clsB32)
		g.emit("cvt.u32.u64 %s, %s", d, r)
		return g.normalize(to, d)
	}
	return g.normalize(to, r)
}

// floatToInt truncates toward zero, saturating: cvt.rzi clamps to the 32-
// or 64-bit range, narrow types clamp further. NaN is selected to 0
// explicitly: on the GPU cvt.rzi turns it into the integer indefinite
// value (0x80000000…), not 0.
func (g *gen) floatToInt(from, to dtype.DType, r string) string {
	d := g.regT(to)
	g.emit("cvt.rzi.%s.%s %s, %s", ty(to), ty(from), d, r)
	if isNarrow(to) {
		lo, hi := intRange(to)
		d2, d3 := g.reg(clsB32), g.reg(clsB32)
		if to.IsSigned() {
			g.emit("max.s32 %s, %s, %d", d2, d, int32(lo))
			g.emit("min.s32 %s, %s, %d", d3, d2, int32(hi))
		} else {
			g.emit("mov.b32 %s, %s", d2, d)
			g.emit("min.u32 %s, %s, %d", d3, d2, hi)
		}
		d = d3
	}
	nan, z := g.reg(clsPred), g.regT(to)
	g.emit("setp.nan.%s %s, %s, %s", ty(from), nan, r, r)
	g.emit("selp.%s %s, 0, %s, %s", bits(to), z, d, nan)
	return z
}
