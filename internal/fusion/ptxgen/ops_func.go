package ptxgen

import (
	"github.com/gpuarr/gpuarr/device/dtype"
	"github.com/gpuarr/gpuarr/internal/fusion/expr"
)

// funcOp emits the elementwise functions that are instructions
// rather than math library calls (the library's are called by op through
// the op table's Math flag), and reports whether in is one of them.
func (g *gen) funcOp(in expr.Instr, a, b string) (string, bool) {
	t := in.T
	switch in.Op {
	case expr.OpRsqrt:
		s, d := g.regT(t), g.regT(t)
		g.emit("sqrt.rn.%s %s, %s", ty(t), s, a)
		g.emit("div.rn.%s %s, %s, %s", ty(t), d, immediate(t, 1), s)
		return d, true
	case expr.OpFloor, expr.OpCeil, expr.OpTrunc, expr.OpRound:
		mode := map[expr.Op]string{expr.OpFloor: "rmi", expr.OpCeil: "rpi", expr.OpTrunc: "rzi", expr.OpRound: "rni"}[in.Op]
		d := g.regT(t)
		g.emit("cvt.%s.%s.%s %s, %s", mode, ty(t), ty(t), d, a)
		return d, true
	case expr.OpSign:
		return g.sign(t, a), true
	case expr.OpInvert:
		d := g.regT(t)
		g.emit("not.%s %s, %s", bits(t), d, a)
		return g.normalize(t, d), true
	case expr.OpIsNaN, expr.OpIsInf, expr.OpIsFinite:
		ft := g.p.Code[in.A].T
		d := g.reg(clsPred)
		switch in.Op {
		case expr.OpIsNaN:
			g.emit("setp.nan.%s %s, %s, %s", ty(ft), d, a, a)
		case expr.OpIsInf:
			g.emit("testp.infinite.%s %s, %s", ty(ft), d, a)
		default:
			g.emit("testp.finite.%s %s, %s", ty(ft), d, a)
		}
		return d, true
	case expr.OpCopysign:
		d := g.regT(t)
		g.emit("copysign.%s %s, %s, %s", ty(t), d, b, a) // B's sign, A's magnitude
		return d, true
	case expr.OpFmin, expr.OpFmax:
		// PTX's min and max of floats ignore a NaN operand: NumPy's fmin
		// and fmax. For integers they are Min and Max.
		d := g.regT(t)
		name := "min"
		if in.Op == expr.OpFmax {
			name = "max"
		}
		g.emit("%s.%s %s, %s, %s", name, ty(t), d, a, b)
		return d, true
	case expr.OpFloorDiv, expr.OpMod, expr.OpRem:
		if t.IsFloat() {
			name := map[expr.Op]string{expr.OpFloorDiv: "floordiv_", expr.OpMod: "mod_", expr.OpRem: "fmod_"}[in.Op]
			return g.call(name+ty(t), t, a, b), true
		}
		switch in.Op {
		case expr.OpFloorDiv:
			return g.normalize(t, g.floorDiv(t, a, b)), true
		case expr.OpRem:
			return g.normalize(t, g.intRem(t, a, b)), true
		}
		return g.normalize(t, g.intMod(t, a, b)), true
	case expr.OpBitAnd, expr.OpBitOr, expr.OpBitXor:
		// Normalized operands (sign- or zero-extended) give a normalized
		// result.
		name := map[expr.Op]string{expr.OpBitAnd: "and", expr.OpBitOr: "or", expr.OpBitXor: "xor"}[in.Op]
		d := g.regT(t)
		g.emit("%s.%s %s, %s, %s", name, bits(t), d, a, b)
		return d, true
	case expr.OpShl, expr.OpShr:
		return g.normalize(t, g.bitShift(in.Op == expr.OpShl, t, a, b)), true
	}
	return "", false
}

// sign is −1, 0 or 1 by a's sign; floats: NaN for NaN, +0 for ±0.
func (g *gen) sign(t dtype.DType, a string) string {
	pt := ty(t)
	if t.IsUnsigned() {
		nz, d := g.reg(clsPred), g.regT(t)
		g.emit("setp.ne.%s %s, %s, 0", pt, nz, a)
		g.emit("selp.%s %s, 1, 0, %s", bits(t), d, nz)
		return d
	}
	pos, neg := g.reg(clsPred), g.reg(clsPred)
	g.emit("setp.gt.%s %s, %s, %s", pt, pos, a, immediate(t, 0))
	g.emit("setp.lt.%s %s, %s, %s", pt, neg, a, immediate(t, 0))
	d1, d2 := g.regT(t), g.regT(t)
	g.emit("selp.%s %s, %s, %s, %s", bits(t), d1, immediate(t, 1), immediate(t, 0), pos)
	g.emit("selp.%s %s, %s, %s, %s", bits(t), d2, immediate(t, -1), d1, neg)
	if !t.IsFloat() {
		return d2
	}
	nan, d3 := g.reg(clsPred), g.regT(t)
	g.emit("setp.nan.%s %s, %s, %s", pt, nan, a, a)
	g.emit("selp.%s %s, %s, %s, %s", bits(t), d3, a, d2, nan)
	return d3
}

// floorDiv is integer division rounded toward −∞ (NumPy's //): x // 0 is
// 0 and MinInt // −1 is MinInt (the truncating quotient's guards), and
// the quotient is one less where the divisor and the remainder are
// nonzero and their signs differ.
func (g *gen) floorDiv(t dtype.DType, a, b string) string {
	q := g.intDiv(t, a, b)
	if t.IsUnsigned() {
		return q
	}
	pt, bt := ty(t), bits(t)
	p, r := g.regT(t), g.regT(t)
	g.emit("mul.lo.%s %s, %s, %s", pt, p, q, b)
	g.emit("sub.%s %s, %s, %s", pt, r, a, p)
	x, nz, neg, adj := g.regT(t), g.reg(clsPred), g.reg(clsPred), g.reg(clsPred)
	g.emit("xor.%s %s, %s, %s", bt, x, r, b)
	g.emit("setp.ne.%s %s, %s, 0", pt, nz, r)
	g.emit("setp.lt.%s %s, %s, 0", signedTy(t), neg, x)
	g.emit("and.pred %s, %s, %s", adj, nz, neg)
	// b = 0 leaves r = a (q is 0): no adjustment, the quotient stays 0.
	bnz, adj2 := g.reg(clsPred), g.reg(clsPred)
	g.emit("setp.ne.%s %s, %s, 0", pt, bnz, b)
	g.emit("and.pred %s, %s, %s", adj2, adj, bnz)
	adj = adj2
	q1, d := g.regT(t), g.regT(t)
	g.emit("sub.%s %s, %s, 1", pt, q1, q)
	g.emit("selp.%s %s, %s, %s, %s", bt, d, q1, q, adj)
	return d
}

// intRem is the remainder with the dividend's sign (Go's %, C's and
// NumPy's fmod): rem with 0 and −1 divisors replaced by 1, so x % 0 is 0,
// and so is MinInt % −1 (which rem leaves undefined), as x % −1 is.
func (g *gen) intRem(t dtype.DType, a, b string) string {
	pt, bt := ty(t), bits(t)
	bad, safe := g.reg(clsPred), g.regT(t)
	g.emit("setp.eq.%s %s, %s, 0", pt, bad, b)
	if t.IsSigned() {
		m1, b2 := g.reg(clsPred), g.reg(clsPred)
		g.emit("setp.eq.%s %s, %s, -1", pt, m1, b)
		g.emit("or.pred %s, %s, %s", b2, bad, m1)
		bad = b2
	}
	g.emit("selp.%s %s, 1, %s, %s", bt, safe, b, bad)
	r := g.regT(t)
	g.emit("rem.%s %s, %s, %s", pt, r, a, safe)
	return r
}

// intMod is the remainder with the divisor's sign (NumPy's %): x % 0 is
// 0, and so is MinInt % −1; C's remainder (intRem), then a nonzero
// remainder whose sign differs from the divisor's gets the divisor added.
func (g *gen) intMod(t dtype.DType, a, b string) string {
	r := g.intRem(t, a, b)
	if t.IsUnsigned() {
		return r
	}
	pt, bt := ty(t), bits(t)
	x, nz, neg, adj := g.regT(t), g.reg(clsPred), g.reg(clsPred), g.reg(clsPred)
	g.emit("xor.%s %s, %s, %s", bt, x, r, b)
	g.emit("setp.ne.%s %s, %s, 0", pt, nz, r)
	g.emit("setp.lt.%s %s, %s, 0", signedTy(t), neg, x)
	g.emit("and.pred %s, %s, %s", adj, nz, neg)
	r1, d := g.regT(t), g.regT(t)
	g.emit("add.%s %s, %s, %s", pt, r1, r, b)
	g.emit("selp.%s %s, %s, %s, %s", bt, d, r1, r, adj)
	return d
}

// shift is a << b or a >> b (arithmetic for signed types) with NumPy's
// counts: a count at least the type's width, or negative (a huge
// unsigned value), gives 0 for <<, and 0 or −1 (by a's sign) for >>.
// The count is clamped to the register's width, where PTX's shifts give
// exactly that; narrow types are normalized by the caller.
func (g *gen) bitShift(left bool, t dtype.DType, a, b string) string {
	var cnt string
	if t.Size() == 8 {
		c64 := g.reg(clsB64)
		g.emit("min.u64 %s, %s, 64", c64, b)
		cnt = g.reg(clsB32)
		g.emit("cvt.u32.u64 %s, %s", cnt, c64)
	} else {
		cnt = g.reg(clsB32)
		g.emit("min.u32 %s, %s, 32", cnt, b)
	}
	d := g.regT(t)
	switch {
	case left:
		g.emit("shl.%s %s, %s, %s", bits(t), d, a, cnt)
	case t.IsSigned():
		g.emit("shr.%s %s, %s, %s", signedTy(t), d, a, cnt)
	default:
		g.emit("shr.%s %s, %s, %s", ty(t), d, a, cnt)
	}
	return d
}
