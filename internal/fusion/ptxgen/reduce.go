package ptxgen

import (
	"fmt"
	"math"

	"github.com/gpuarr/gpuarr/device/dtype"
	"github.com/gpuarr/gpuarr/internal/fusion/expr"
)

// acc is a reduction accumulator held in registers that are updated in
// place: a value of type t and, for the Arg reductions and Wide Means, a
// second 64-bit word x: the s64 position, or the high word of a 128-bit
// sum whose low word is v (u64). Moments have three f64 words, the sum v,
// the count x and the sum of squared deviations y, and while a thread
// folds values, the raw sums of its run (see raw).
type acc struct {
	t   dtype.DType
	v   string
	x   string
	y   string
	raw *rawMoments
}

// rawMoments is one thread's run of values folded with the group's shift
// (gen.shift; 0 for NanMean): the count n, s1 = Σ(x−shift) and
// s2 = Σ(x−shift)² (f64 registers); settle turns it into the
// accumulator's words.
type rawMoments struct{ s1, s2, n string }

// accType is the accumulator's value type.
func (g *gen) accType() dtype.DType { return expr.AccType(g.p.Reduce, g.p.ValueType()) }

// twoWords reports whether accumulators have a second word (acc.x).
func (g *gen) twoWords() bool { return g.p.Words() >= 2 }

// moments reports whether the reduction accumulates moments.
func (g *gen) moments() bool { return g.p.Reduce.IsMoments() }

// foldsRaw reports whether accumulators fold values into raw moments
// (moments over values, not over a Partial stage's accumulators).
func (g *gen) foldsRaw() bool { return g.moments() && g.argIndex() < 0 }

// twoSlots reports whether the block reduction keeps two 8-byte words
// per warp in shared memory: the second word, or a complex
// accumulator's imaginary part.
func (g *gen) twoSlots() bool { return g.twoWords() || g.accType().IsComplex() }

func (g *gen) newAcc() acc {
	a := acc{t: g.accType(), v: g.regT(g.accType())}
	if g.twoWords() {
		a.x = g.regT(g.p.SecondType())
	}
	if g.moments() {
		a.y = g.reg(clsF64)
	}
	if g.foldsRaw() {
		a.raw = &rawMoments{g.reg(clsF64), g.reg(clsF64), g.reg(clsF64)}
		for _, r := range []string{a.raw.s1, a.raw.s2, a.raw.n} {
			g.emit("mov.f64 %s, 0d0000000000000000", r)
		}
	}
	g.setIdentity(a)
	return a
}

// setIdentity resets a to the reduction's identity (position -1: none;
// a Wide sum's high word 0; moments all 0).
func (g *gen) setIdentity(a acc) {
	if a.t.IsComplex() {
		re, im := parts(a.v)
		pt := expr.PartType(a.t)
		g.emit("mov.%s %s, %s", ty(pt), re, g.identity(pt))
		g.emit("mov.%s %s, %s", ty(pt), im, immediate(pt, 0))
		return
	}
	g.emit("mov.%s %s, %s", bits(a.t), a.v, g.identity(a.t))
	switch {
	case g.moments():
		g.emit("mov.f64 %s, 0d0000000000000000", a.x)
		g.emit("mov.f64 %s, 0d0000000000000000", a.y)
	case g.p.Wide():
		g.emit("mov.b64 %s, 0", a.x)
	case a.x != "":
		g.emit("mov.s64 %s, -1", a.x)
	}
}

func (g *gen) identity(t dtype.DType) string {
	switch g.p.Reduce {
	case expr.Sum, expr.Mean, expr.Var, expr.Std, expr.NanMean:
		return immediate(t, 0)
	case expr.Prod:
		return immediate(t, 1)
	case expr.NanMin, expr.NanMax:
		if t.IsFloat() {
			return immediate(t, math.NaN())
		}
		lo, hi := intRange(t)
		if g.p.Reduce == expr.NanMin {
			return intImmediate(t, hi)
		}
		return intImmediate(t, lo)
	case expr.Min, expr.ArgMin:
		if t.IsFloat() {
			return immediate(t, math.Inf(1))
		}
		_, hi := intRange(t)
		return intImmediate(t, hi)
	}
	if t.IsFloat() {
		return immediate(t, math.Inf(-1))
	}
	lo, _ := intRange(t)
	return intImmediate(t, lo)
}

// accumulate folds value v (the program's value type) into a, with x its
// position (s64, Arg only) or, for a Wide Mean over partials, its high
// word (b64), or for moments over partials the count (f64) and y the sum
// of squared deviations; a Wide Mean of values extends v to 128 bits by
// the value type's signedness, and moments of values fold into a.raw.
func (g *gen) accumulate(a acc, v, x, y string) {
	vt := g.p.ValueType()
	if a.raw != nil {
		g.foldRaw(a.raw, g.cast(vt, dtype.Float64, v))
		return
	}
	if g.p.Wide() && x == "" {
		lo := g.cast(vt, dtype.Int64, v) // sign- or zero-extends by vt
		x = g.reg(clsB64)
		if vt.IsSigned() {
			g.emit("shr.s64 %s, %s, 63", x, lo)
		} else {
			g.emit("mov.b64 %s, 0", x)
		}
		g.combine(a, lo, x, "")
		return
	}
	g.combine(a, g.cast(vt, a.t, v), x, y)
}

// f64One is 1.0 as a PTX f64 immediate.
const f64One = "0d3FF0000000000000"

// foldRaw adds the f64 value xv to a thread's run: NanMean skips NaN and
// sums the values themselves; Var and Std sum their deviations from the
// group's shift.
func (g *gen) foldRaw(m *rawMoments, xv string) {
	if g.p.Reduce == expr.NanMean {
		nan := g.reg(clsPred)
		g.emit("setp.nan.f64 %s, %s, %s", nan, xv, xv)
		g.emit("@!%s add.rn.f64 %s, %s, %s", nan, m.s1, m.s1, xv)
		g.emit("@!%s add.rn.f64 %s, %s, %s", nan, m.n, m.n, f64One)
		return
	}
	d := g.reg(clsF64)
	g.emit("sub.rn.f64 %s, %s, %s", d, xv, g.shift)
	g.emit("add.rn.f64 %s, %s, %s", m.s1, m.s1, d)
	g.emit("fma.rn.f64 %s, %s, %s, %s", m.s2, d, d, m.s2)
	g.emit("add.rn.f64 %s, %s, %s", m.n, m.n, f64One)
}

// groupShift sets g.shift, for Var and Std over values, to the group's
// value at position 0 (as f64; 0 for an empty group): every thread and
// part of a group sums deviations from the same value, so their sums
// combine by addition and their means differ by small numbers.
func (g *gen) groupShift(gbase, glen string) {
	if !g.foldsRaw() || g.p.Reduce == expr.NanMean {
		return
	}
	g.shift = g.reg(clsF64)
	g.emit("mov.f64 %s, 0d0000000000000000", g.shift)
	empty := g.reg(clsPred)
	skip := g.label("shift_end")
	g.emit("setp.eq.u64 %s, %s, 0", empty, glen)
	g.emit("@%s bra %s", empty, skip)
	v := g.value(g.newElem(gbase, nil))
	g.emit("mov.f64 %s, %s", g.shift, g.cast(g.p.ValueType(), dtype.Float64, v))
	g.emitLabel(skip)
}

// settle turns a's raw run into its words, the sum s1, the count n and
// M2 = s2 − s1²/n (0 for an empty run); a holds the identity before. A
// no-op for accumulators without a raw run.
func (g *gen) settle(a acc) {
	m := a.raw
	if m == nil {
		return
	}
	g.emit("mov.f64 %s, %s", a.x, m.n)
	g.emit("mov.f64 %s, %s", a.v, m.s1)
	if g.p.Reduce == expr.NanMean {
		return
	}
	empty, safe, sq, q, m2 := g.reg(clsPred), g.reg(clsF64), g.reg(clsF64), g.reg(clsF64), g.reg(clsF64)
	g.emit("setp.eq.f64 %s, %s, 0d0000000000000000", empty, m.n)
	g.emit("selp.f64 %s, %s, %s, %s", safe, f64One, m.n, empty)
	g.emit("mul.rn.f64 %s, %s, %s", sq, m.s1, m.s1)
	g.emit("div.rn.f64 %s, %s, %s", q, sq, safe)
	g.emit("sub.rn.f64 %s, %s, %s", m2, m.s2, q)
	g.emit("selp.f64 %s, 0d0000000000000000, %s, %s", a.y, m2, empty)
}

// combineMoments folds (bs, bn, bm2) into a by Chan's rule: counts and
// sums add; M2 adds both and, when both counts are nonzero,
// δ²·na·nb/n with δ = bs/bn − as/an (Var and Std only).
func (g *gen) combineMoments(a acc, bs, bn, bm2 string) {
	if g.p.Reduce != expr.NanMean {
		f := func() string { return g.reg(clsF64) }
		p := func() string { return g.reg(clsPred) }
		az, bz, none := p(), p(), p()
		g.emit("setp.eq.f64 %s, %s, 0d0000000000000000", az, a.x)
		g.emit("setp.eq.f64 %s, %s, 0d0000000000000000", bz, bn)
		g.emit("or.pred %s, %s, %s", none, az, bz)
		an, bnn, ma, mb, d, n, w, t, m2 := f(), f(), f(), f(), f(), f(), f(), f(), f()
		g.emit("selp.f64 %s, %s, %s, %s", an, f64One, a.x, az)
		g.emit("selp.f64 %s, %s, %s, %s", bnn, f64One, bn, bz)
		g.emit("div.rn.f64 %s, %s, %s", ma, a.v, an)
		g.emit("div.rn.f64 %s, %s, %s", mb, bs, bnn)
		g.emit("sub.rn.f64 %s, %s, %s", d, mb, ma)
		g.emit("add.rn.f64 %s, %s, %s", n, an, bnn)
		g.emit("mul.rn.f64 %s, %s, %s", w, an, bnn)
		g.emit("div.rn.f64 %s, %s, %s", w, w, n)
		g.emit("mul.rn.f64 %s, %s, %s", t, d, d)
		g.emit("mul.rn.f64 %s, %s, %s", t, t, w)
		g.emit("add.rn.f64 %s, %s, %s", m2, a.y, bm2)
		g.emit("@!%s add.rn.f64 %s, %s, %s", none, m2, m2, t)
		g.emit("mov.f64 %s, %s", a.y, m2)
	}
	g.emit("add.rn.f64 %s, %s, %s", a.v, a.v, bs)
	g.emit("add.rn.f64 %s, %s, %s", a.x, a.x, bn)
}

// combine folds (bv, bx, by) into a. Every combination is commutative
// given the positions (ties go to the lower position, -1 loses), so
// elements, lanes and warps may be combined in any order.
func (g *gen) combine(a acc, bv, bx, by string) {
	t := a.t
	if g.p.Wide() {
		g.add128(a.v, a.x, bv, bx)
		return
	}
	if g.moments() {
		g.combineMoments(a, bv, bx, by)
		return
	}
	bpos := bx
	if t.IsComplex() {
		g.complexCombine(a, bv)
		return
	}
	switch g.p.Reduce {
	case expr.Sum, expr.Mean:
		if t.IsFloat() {
			g.emit("add.rn.%s %s, %s, %s", ty(t), a.v, a.v, bv)
		} else {
			g.emit("add.%s %s, %s, %s", ty(t), a.v, a.v, bv)
		}
	case expr.Prod:
		if t.IsFloat() {
			g.emit("mul.rn.%s %s, %s, %s", ty(t), a.v, a.v, bv)
		} else {
			g.emit("mul.lo.%s %s, %s, %s", ty(t), a.v, a.v, bv)
		}
	case expr.Min, expr.Max:
		d := g.minMax(g.p.Reduce == expr.Min, t, a.v, bv)
		g.emit("mov.%s %s, %s", bits(t), a.v, d)
	case expr.NanMin, expr.NanMax:
		// min and max of floats return the operand that is not NaN
		// (IEEE minNum, maxNum); of integers they are Min and Max.
		name := "max"
		if g.p.Reduce == expr.NanMin {
			name = "min"
		}
		g.emit("%s.%s %s, %s, %s", name, ty(t), a.v, a.v, bv)
	case expr.ArgMin, expr.ArgMax:
		w := g.argWins(t, a, bv, bpos)
		g.emit("selp.%s %s, %s, %s, %s", bits(t), a.v, bv, a.v, w)
		g.emit("selp.b64 %s, %s, %s, %s", a.x, bpos, a.x, w)
	}
}

// complexCombine adds complex bv to a (Sum, Mean) or multiplies a by it
// (Prod: ar·br − ai·bi and ar·bi + ai·br, each operation rounded).
func (g *gen) complexCombine(a acc, bv string) {
	pt := ty(expr.PartType(a.t))
	ar, ai := parts(a.v)
	br, bi := parts(bv)
	if g.p.Reduce != expr.Prod {
		g.emit("add.rn.%s %s, %s, %s", pt, ar, ar, br)
		g.emit("add.rn.%s %s, %s, %s", pt, ai, ai, bi)
		return
	}
	c := classOf(expr.PartType(a.t))
	rr, ii, ri, ir := g.reg(c), g.reg(c), g.reg(c), g.reg(c)
	g.emit("mul.rn.%s %s, %s, %s", pt, rr, ar, br)
	g.emit("mul.rn.%s %s, %s, %s", pt, ii, ai, bi)
	g.emit("mul.rn.%s %s, %s, %s", pt, ri, ar, bi)
	g.emit("mul.rn.%s %s, %s, %s", pt, ir, ai, br)
	g.emit("sub.rn.%s %s, %s, %s", pt, ar, rr, ii)
	g.emit("add.rn.%s %s, %s, %s", pt, ai, ri, ir)
}

// add128 adds the 128-bit value bhi:blo to hi:lo in place (b64
// registers; the carry by an unsigned compare, not the condition codes).
func (g *gen) add128(lo, hi, blo, bhi string) {
	c, cw := g.reg(clsPred), g.reg(clsB64)
	g.emit("add.u64 %s, %s, %s", lo, lo, blo)
	g.emit("setp.lt.u64 %s, %s, %s", c, lo, blo) // wrapped: the sum is below an addend
	g.emit("selp.u64 %s, 1, 0, %s", cw, c)
	g.emit("add.u64 %s, %s, %s", hi, hi, bhi)
	g.emit("add.u64 %s, %s, %s", hi, hi, cw)
}

// argWins is a predicate: (bv, bpos) replaces a's value and position.
// A position -1 (none) loses to any other; a NaN beats any number; between
// two NaNs or two equal values the lower position wins.
func (g *gen) argWins(t dtype.DType, a acc, bv, bpos string) string {
	p := func() string { return g.reg(clsPred) }
	cmp := "lt"
	if g.p.Reduce == expr.ArgMax {
		cmp = "gt"
	}
	better, eq, lower, x := p(), p(), p(), p()
	g.emit("setp.%s.%s %s, %s, %s", cmp, ty(t), better, bv, a.v) // false with a NaN
	g.emit("setp.eq.%s %s, %s, %s", ty(t), eq, bv, a.v)
	g.emit("setp.lt.s64 %s, %s, %s", lower, bpos, a.x)
	tie := p()
	g.emit("and.pred %s, %s, %s", tie, eq, lower)
	g.emit("or.pred %s, %s, %s", x, better, tie)
	if t.IsFloat() {
		na, nb, both, bothLower, nna, onlyB, x2, x3 := p(), p(), p(), p(), p(), p(), p(), p()
		g.emit("setp.nan.%s %s, %s, %s", ty(t), na, a.v, a.v)
		g.emit("setp.nan.%s %s, %s, %s", ty(t), nb, bv, bv)
		g.emit("and.pred %s, %s, %s", both, na, nb)
		g.emit("and.pred %s, %s, %s", bothLower, both, lower)
		g.emit("not.pred %s, %s", nna, na)
		g.emit("and.pred %s, %s, %s", onlyB, nb, nna)
		g.emit("or.pred %s, %s, %s", x2, x, bothLower)
		g.emit("or.pred %s, %s, %s", x3, x2, onlyB)
		x = x3
	}
	aNone, bSome, x4, w := p(), p(), p(), p()
	g.emit("setp.eq.s64 %s, %s, -1", aNone, a.x)
	g.emit("setp.ne.s64 %s, %s, -1", bSome, bpos)
	g.emit("or.pred %s, %s, %s", x4, x, aNone)
	g.emit("and.pred %s, %s, %s", w, x4, bSome)
	return w
}

// shuffleDown returns the accumulator of lane+off (shfl.sync.down over
// the full warp; 64-bit values travel as two 32-bit halves).
func (g *gen) shuffleDown(a acc, off int) (bv, bx, by string) {
	bv = g.shfl(a.t, a.v, off)
	if a.x != "" {
		bx = g.shfl(g.p.SecondType(), a.x, off)
	}
	if a.y != "" {
		by = g.shfl(dtype.Float64, a.y, off)
	}
	return bv, bx, by
}

func (g *gen) shfl(t dtype.DType, r string, off int) string {
	if t.IsComplex() {
		re, im := parts(r)
		pt := expr.PartType(t)
		return pair(g.shfl(pt, re, off), g.shfl(pt, im, off))
	}
	d := g.regT(t)
	if t.Size() == 8 {
		lo, hi, lo2, hi2 := g.reg(clsB32), g.reg(clsB32), g.reg(clsB32), g.reg(clsB32)
		g.emit("mov.b64 {%s, %s}, %s", lo, hi, r)
		g.emit("shfl.sync.down.b32 %s, %s, %d, 31, -1", lo2, lo, off)
		g.emit("shfl.sync.down.b32 %s, %s, %d, 31, -1", hi2, hi, off)
		g.emit("mov.b64 %s, {%s, %s}", d, lo2, hi2)
		return d
	}
	src, dst := r, d
	if t == dtype.Float32 {
		src, dst = g.reg(clsB32), g.reg(clsB32)
		g.emit("mov.b32 %s, %s", src, r)
	}
	g.emit("shfl.sync.down.b32 %s, %s, %d, 31, -1", dst, src, off)
	if t == dtype.Float32 {
		g.emit("mov.b32 %s, %s", d, dst)
	}
	return d
}

func (g *gen) warpReduce(a acc) {
	for off := 16; off >= 1; off /= 2 {
		bv, bx, by := g.shuffleDown(a, off)
		g.combine(a, bv, bx, by)
	}
}

// blockShape holds the per-thread constants of the block reduction.
type blockShape struct {
	tid64, ntid64 string
	lane0, warp0  string // predicates
	tid0, inWarps string // predicates: tid == 0, lane < number of warps
	valW, xW, yW  string // shared addresses of this warp's slots
	valL, xL, yL  string // shared addresses of slot [lane]
}

func (g *gen) blockSetup(tid, ntid string) blockShape {
	var s blockShape
	s.tid64, s.ntid64 = g.reg(clsB64), g.reg(clsB64)
	g.emit("cvt.u64.u32 %s, %s", s.tid64, tid)
	g.emit("cvt.u64.u32 %s, %s", s.ntid64, ntid)
	lane, warp, nw := g.reg(clsB32), g.reg(clsB32), g.reg(clsB32)
	g.emit("and.b32 %s, %s, 31", lane, tid)
	g.emit("shr.u32 %s, %s, 5", warp, tid)
	g.emit("shr.u32 %s, %s, 5", nw, ntid)
	s.lane0, s.warp0, s.tid0, s.inWarps = g.reg(clsPred), g.reg(clsPred), g.reg(clsPred), g.reg(clsPred)
	g.emit("setp.eq.u32 %s, %s, 0", s.lane0, lane)
	g.emit("setp.eq.u32 %s, %s, 0", s.warp0, warp)
	g.emit("setp.eq.u32 %s, %s, 0", s.tid0, tid)
	g.emit("setp.lt.u32 %s, %s, %s", s.inWarps, lane, nw)
	slot := func(array, i string) string {
		base, off, a := g.reg(clsB32), g.reg(clsB32), g.reg(clsB32)
		g.emit("mov.u32 %s, %s", base, array)
		g.emit("shl.b32 %s, %s, 3", off, i)
		g.emit("add.s32 %s, %s, %s", a, base, off)
		return a
	}
	s.valW, s.valL = slot("gpuarr_red_val", warp), slot("gpuarr_red_val", lane)
	if g.twoSlots() {
		s.xW, s.xL = slot("gpuarr_red_pos", warp), slot("gpuarr_red_pos", lane)
	}
	if g.moments() {
		s.yW, s.yL = slot("gpuarr_red_third", warp), slot("gpuarr_red_third", lane)
	}
	return s
}

// blockReduce combines every thread's accumulator into thread 0's: warp
// shuffles, one slot per warp in shared memory, then the first warp.
func (g *gen) blockReduce(s blockShape, a acc, skip string) {
	g.warpReduce(a)
	v, vt, x, xt := a.v, bits(a.t), a.x, bits(g.p.SecondType())
	if a.t.IsComplex() { // the real part in the value slots, the imaginary in the second ones
		v, x = parts(a.v)
		xt = vt
	}
	g.emit("@%s st.shared.%s [%s], %s", s.lane0, vt, s.valW, v)
	if x != "" {
		g.emit("@%s st.shared.%s [%s], %s", s.lane0, xt, s.xW, x)
	}
	if a.y != "" {
		g.emit("@%s st.shared.f64 [%s], %s", s.lane0, s.yW, a.y)
	}
	g.emit("bar.sync 0")
	g.emit("@!%s bra %s", s.warp0, skip)
	g.setIdentity(a)
	g.emit("@%s ld.shared.%s %s, [%s]", s.inWarps, vt, v, s.valL)
	if x != "" {
		g.emit("@%s ld.shared.%s %s, [%s]", s.inWarps, xt, x, s.xL)
	}
	if a.y != "" {
		g.emit("@%s ld.shared.f64 %s, [%s]", s.inWarps, a.y, s.yL)
	}
	g.warpReduce(a)
	g.emit("@!%s bra %s", s.tid0, skip)
}

// reduction emits the reduction kernel, for a 1-D grid of blocks whose
// size is a multiple of 32, at most 1024 (a Final kernel with bpg = 1).
// Work item b = g·bpg + q is part q of group g; blocks take work items in
// a block-stride loop. Within an item, thread tid reduces positions
// k = q·ntid + tid, stepping by bpg·ntid, into an accumulator (AccType, or
// the value type and an s64 position for ArgMin/ArgMax, or for a Wide
// Mean a 128-bit sum in two b64 registers, added with an explicit carry).
// With Vector > 1 (groups == 1, contiguous, aligned) threads read V
// elements at a time, two vectors per iteration into two accumulators,
// and part 0 takes the glen mod V tail. Then the block combines:
// shfl.sync.down within each warp (64-bit values as two 32-bit halves),
// one 8-byte slot per warp in .shared memory (a second slot array for
// positions and high words), bar.sync, the first warp combines the slots,
// and thread 0 writes out[g] (Final, in FinalType; Mean divides by count
// in float64, a Wide Mean divides its 128-bit sum by count exactly,
// rem.u64 then 64 steps of long division) or out[b] (Partial, the
// accumulator; Arg: value to out[b] and position to out2[b]; Wide: low
// word to out[b], high word to out2[b]).
//
// A Columns program is columnReduction's.
//
// Every combination is commutative given positions (ties and NaNs go to
// the lower position, position -1 loses), so threads, lanes and warps may
// combine in any order. Each thread sums its run of about
// glen / (bpg·ntid) elements sequentially in float64, so a float sum is
// within (run + 64)·2⁻⁵³·Σ|x| of the exact one before its final
// rounding (package gpuarr's Sum states the resulting bound). Moments
// (Var, Std, NanMean) fold each thread's run into f64 sums of deviations
// from the group's shift, its value at position 0, which every thread
// evaluates first; runs and warps then combine by Chan's rule, three
// words per accumulator (a third .shared slot array).
func (g *gen) reduction() {
	p := g.p
	param := func(name string, global bool) string {
		r := g.reg(clsB64)
		g.emit("ld.param.u64 %s, [%s]", r, name)
		if global {
			g.emit("cvta.to.global.u64 %s, %s", r, r)
		}
		return r
	}
	out := param("out", true)
	var out2, out3 string
	if p.HasOut2() {
		out2 = param("out2", true)
	}
	if p.HasOut3() {
		out3 = param("out3", true)
	}
	groups, glen, bpg, count := param("groups", false), param("glen", false), param("bpg", false), param("count", false)
	if p.Columns {
		g.columnReduction(out, out2, out3, groups, glen, bpg, count)
		return
	}
	// One 8-byte slot per warp (at most 32 warps of 32 threads).
	g.shared = append(g.shared, ".shared .align 8 .b8 gpuarr_red_val[256];")
	if g.twoSlots() {
		g.shared = append(g.shared, ".shared .align 8 .b8 gpuarr_red_pos[256];")
	}
	if g.moments() {
		g.shared = append(g.shared, ".shared .align 8 .b8 gpuarr_red_third[256];")
	}
	g.loadParams()

	tid, ntid, ctaid, nctaid := g.threadIDs()
	s := g.blockSetup(tid, ntid)
	total, step64, b, nct := g.reg(clsB64), g.reg(clsB64), g.reg(clsB64), g.reg(clsB64)
	g.emit("mul.lo.u64 %s, %s, %s", total, groups, bpg)
	g.emit("mul.lo.u64 %s, %s, %s", step64, bpg, s.ntid64)
	step := g.stepIdx(step64)
	g.emit("cvt.u64.u32 %s, %s", b, ctaid)
	g.emit("cvt.u64.u32 %s, %s", nct, nctaid)
	done := g.label("done")
	pr := g.reg(clsPred)
	g.emit("setp.ge.u64 %s, %s, %s", pr, b, total)
	g.emit("@%s bra %s", pr, done)

	item := g.label("item")
	g.emitLabel(item)
	grp, q, t := g.reg(clsB64), g.reg(clsB64), g.reg(clsB64)
	g.emit("div.u64 %s, %s, %s", grp, b, bpg)
	g.emit("mul.lo.u64 %s, %s, %s", t, grp, bpg)
	g.emit("sub.s64 %s, %s, %s", q, b, t)
	gbase64, k0 := g.reg(clsB64), g.reg(clsB64)
	g.emit("mul.lo.u64 %s, %s, %s", gbase64, grp, glen)
	g.emit("mad.lo.u64 %s, %s, %s, %s", k0, q, s.ntid64, s.tid64)
	gbase := g.narrowIdx(gbase64)
	g.groupShift(gbase, glen)
	a := g.newAcc()
	if g.vec > 1 {
		g.vectorThreads(a, glen, gbase64, gbase, k0, q, s.tid64, step)
	} else {
		g.scalarThreads(a, glen, g.narrowIdx(glen), gbase, k0, step)
		g.settle(a)
	}

	skip := g.label("item_end")
	g.blockReduce(s, a, skip)
	g.writeResult(a, out, out2, out3, grp, b, count)
	g.emitLabel(skip)
	g.emit("bar.sync 0") // the next item reuses the shared slots
	g.emit("add.s64 %s, %s, %s", b, b, nct)
	more := g.reg(clsPred)
	g.emit("setp.lt.u64 %s, %s, %s", more, b, total)
	g.emit("@%s bra %s", more, item)
	g.emitLabel(done)
	g.emit("ret")
}

// third is element e's third word: for moments over partials the
// input after ArgIndex's value; otherwise none ("").
func (g *gen) third(e *elem) string {
	if ai := g.argIndex(); ai >= 0 && g.moments() {
		return g.input(e, ai+1)
	}
	return ""
}

// second is element e's second word at group position k (index width):
// for the Arg reductions its s64 position, k itself or the ArgIndex
// input's value; for a Wide Mean or moments over partials the ArgIndex
// input's value; otherwise none ("").
func (g *gen) second(e *elem, k string) string {
	if ai := g.argIndex(); ai >= 0 {
		return g.input(e, ai)
	}
	if !g.p.Reduce.IsArg() {
		return ""
	}
	if g.idx64 {
		return k
	}
	r := g.reg(clsB64)
	g.emit("cvt.u64.u32 %s, %s", r, k)
	return r
}

// scalarThreads: each thread reduces positions k = k0, k0+step, … < glen
// (the caller settles a).
func (g *gen) scalarThreads(a acc, glen, glenI, gbase, k0, step string) {
	end := g.label("k_end")
	pr := g.reg(clsPred)
	g.emit("setp.ge.u64 %s, %s, %s", pr, k0, glen)
	g.emit("@%s bra %s", pr, end)
	k := g.counter(k0)
	loop := g.label("k_loop")
	g.emitLabel(loop)
	i := g.idxReg()
	g.emit("add.%s %s, %s, %s", g.it(), i, gbase, k)
	e := g.newElem(i, nil)
	v := g.value(e)
	g.accumulate(a, v, g.second(e, k), g.third(e))
	g.emit("add.%s %s, %s, %s", g.it(), k, k, step)
	more := g.reg(clsPred)
	g.emit("setp.lt.%s %s, %s, %s", g.it(), more, k, glenI)
	g.emit("@%s bra %s", more, loop)
	g.emitLabel(end)
}

// vectorThreads: contiguous inputs, groups == 1. Each thread reduces
// vectors kv = k0, k0+step, … < glen/V two at a time into two
// accumulators; the first part's threads then take the glen mod V tail
// into the second, and both settle and combine into a.
func (g *gen) vectorThreads(a acc, glen, gbase64, gbase, k0, q, tid64, step string) {
	lv := log2(g.vec)
	a2 := g.newAcc()
	nv64, vbase64 := g.reg(clsB64), g.reg(clsB64)
	g.emit("shr.u64 %s, %s, %d", nv64, glen, lv)
	g.emit("shr.u64 %s, %s, %d", vbase64, gbase64, lv)
	vend := g.label("v_end")
	pr := g.reg(clsPred)
	g.emit("setp.ge.u64 %s, %s, %s", pr, k0, nv64)
	g.emit("@%s bra %s", pr, vend)
	nv, vbase := g.narrowIdx(nv64), g.narrowIdx(vbase64)
	kv, kv2 := g.counter(k0), g.idxReg()
	it := g.it()
	pair, single := g.label("v_pair"), g.label("v_single")

	body := func(acc acc, kv string) {
		vi := g.idxReg()
		g.emit("add.%s %s, %s, %s", it, vi, vbase, kv)
		lanes := g.vecLoad(vi)
		for j := range lanes {
			e := g.newElem("", lanes[j])
			v := g.value(e)
			var x string
			if g.p.Reduce.IsArg() || g.argIndex() >= 0 {
				x = g.second(e, g.laneIndex(kv, j))
			}
			g.accumulate(acc, v, x, g.third(e))
		}
	}

	g.emitLabel(pair)
	g.emit("add.%s %s, %s, %s", it, kv2, kv, step)
	p2 := g.reg(clsPred)
	g.emit("setp.ge.%s %s, %s, %s", it, p2, kv2, nv)
	g.emit("@%s bra %s", p2, single)
	body(a, kv)
	body(a2, kv2)
	g.emit("add.%s %s, %s, %s", it, kv, kv2, step)
	more := g.reg(clsPred)
	g.emit("setp.lt.%s %s, %s, %s", it, more, kv, nv)
	g.emit("@%s bra %s", more, pair)
	g.emit("bra %s", vend)
	g.emitLabel(single)
	body(a, kv)
	g.emitLabel(vend)

	// Tail: positions nv·V + tid < glen, in part 0 only, into a2; then a2
	// joins a.
	tend := g.label("tail_end")
	pq, pt := g.reg(clsPred), g.reg(clsPred)
	g.emit("setp.ne.u64 %s, %s, 0", pq, q)
	g.emit("@%s bra %s", pq, tend)
	k64 := g.reg(clsB64)
	g.emit("shl.b64 %s, %s, %d", k64, nv64, lv)
	g.emit("add.s64 %s, %s, %s", k64, k64, tid64)
	g.emit("setp.ge.u64 %s, %s, %s", pt, k64, glen)
	g.emit("@%s bra %s", pt, tend)
	k := g.narrowIdx(k64)
	i := g.idxReg()
	g.emit("add.%s %s, %s, %s", it, i, gbase, k)
	e := g.newElem(i, nil)
	v := g.value(e)
	g.accumulate(a2, v, g.second(e, k), g.third(e))
	g.emitLabel(tend)
	g.settle(a)
	g.settle(a2)
	g.combine(a, a2.v, a2.x, a2.y)
}

// writeResult stores thread 0's accumulator: Final writes the group's
// result (FinalType) to out[grp]; Partial writes the accumulator to
// out[b] (Arg: the value to out[b] and the position to out2[b]; Wide:
// the low word to out[b] and the high word to out2[b]; moments: the sum,
// count and sum of squared deviations to out[b], out2[b], out3[b]).
func (g *gen) writeResult(a acc, out, out2, out3, grp, b, count string) {
	p := g.p
	if p.Stage == expr.Partial {
		g.storeWide(out, b, a.t, a.v)
		if a.x != "" {
			g.storeWide(out2, b, p.SecondType(), a.x)
		}
		if a.y != "" {
			g.storeWide(out3, b, dtype.Float64, a.y)
		}
		return
	}
	rt := p.FinalType()
	switch {
	case p.Reduce == expr.NanMean:
		m := g.reg(clsF64)
		g.emit("div.rn.f64 %s, %s, %s", m, a.v, a.x)
		g.storeWide(out, grp, rt, g.cast(dtype.Float64, rt, m))
	case p.Reduce == expr.Var || p.Reduce == expr.Std:
		cf, m := g.reg(clsF64), g.reg(clsF64)
		g.emit("cvt.rn.f64.u64 %s, %s", cf, count)
		g.emit("div.rn.f64 %s, %s, %s", m, a.y, cf)
		if p.Reduce == expr.Std {
			g.emit("sqrt.rn.f64 %s, %s", m, m)
		}
		g.storeWide(out, grp, rt, g.cast(dtype.Float64, rt, m))
	case p.Reduce.IsArg():
		g.storeWide(out, grp, dtype.Int64, a.x)
	case p.Wide():
		g.storeWide(out, grp, rt, g.wideMean(a.v, a.x, count, rt))
	case p.Reduce == expr.Mean && a.t.IsComplex():
		cf := g.reg(clsF64)
		g.emit("cvt.rn.f64.u64 %s, %s", cf, count)
		re, im := parts(a.v)
		mr, mi := g.reg(clsF64), g.reg(clsF64)
		g.emit("div.rn.f64 %s, %s, %s", mr, re, cf)
		g.emit("div.rn.f64 %s, %s, %s", mi, im, cf)
		g.storeWide(out, grp, rt, g.cast(a.t, rt, pair(mr, mi)))
	case p.Reduce == expr.Mean:
		sum := g.cast(a.t, dtype.Float64, a.v)
		cf, m := g.reg(clsF64), g.reg(clsF64)
		g.emit("cvt.rn.f64.u64 %s, %s", cf, count)
		g.emit("div.rn.f64 %s, %s, %s", m, sum, cf)
		g.storeWide(out, grp, rt, g.cast(dtype.Float64, rt, m))
	default:
		g.storeWide(out, grp, rt, g.cast(a.t, rt, a.v))
	}
}

// wideMean returns, in a register of type rt, the mean of the 128-bit
// sum hi:lo over count (u64) as expr.Program.FinalType defines it: the
// magnitude |S| is divided by count in two steps, hi mod count (rem.u64)
// and then 64 steps of restoring long division shifting lo in, giving
// q = ⌊|S| / count⌋ mod 2⁶⁴ and r; count = 0 gives q = r = 0. Run by one
// thread per group, so the loop's cost does not matter.
func (g *gen) wideMean(lo, hi, count string, rt dtype.DType) string {
	p := func() string { return g.reg(clsPred) }
	r64 := func() string { return g.reg(clsB64) }
	// Sign and magnitude: -(hi:lo) = (~hi:~lo) + 1.
	neg, nlo, nhi, zc, cw := p(), r64(), r64(), p(), r64()
	g.emit("setp.lt.s64 %s, %s, 0", neg, hi)
	g.emit("not.b64 %s, %s", nlo, lo)
	g.emit("not.b64 %s, %s", nhi, hi)
	g.emit("add.u64 %s, %s, 1", nlo, nlo)
	g.emit("setp.eq.u64 %s, %s, 0", zc, nlo) // the +1 carried out of the low word
	g.emit("selp.u64 %s, 1, 0, %s", cw, zc)
	g.emit("add.u64 %s, %s, %s", nhi, nhi, cw)
	mlo, mhi := r64(), r64()
	g.emit("selp.b64 %s, %s, %s, %s", mlo, nlo, lo, neg)
	g.emit("selp.b64 %s, %s, %s, %s", mhi, nhi, hi, neg)

	// Division. With count = 0 the loop runs on garbage that the selects
	// after it discard.
	cz := p()
	g.emit("setp.eq.u64 %s, %s, 0", cz, count)
	rem, q, n := r64(), r64(), g.reg(clsB32)
	g.emit("rem.u64 %s, %s, %s", rem, mhi, count)
	g.emit("mov.u64 %s, 0", q)
	g.emit("mov.u32 %s, 64", n)
	loop := g.label("div")
	g.emitLabel(loop)
	top, bit, big, ge, sub, more := r64(), r64(), p(), p(), p(), p()
	g.emit("shr.u64 %s, %s, 63", top, rem) // the bit shifted out of rem
	g.emit("shl.b64 %s, %s, 1", rem, rem)
	g.emit("shr.u64 %s, %s, 63", bit, mlo)
	g.emit("or.b64 %s, %s, %s", rem, rem, bit)
	g.emit("shl.b64 %s, %s, 1", mlo, mlo)
	g.emit("shl.b64 %s, %s, 1", q, q)
	g.emit("setp.ne.u64 %s, %s, 0", big, top)
	g.emit("setp.ge.u64 %s, %s, %s", ge, rem, count)
	g.emit("or.pred %s, %s, %s", sub, big, ge) // the shifted remainder is ≥ count
	g.emit("@%s sub.u64 %s, %s, %s", sub, rem, rem, count)
	g.emit("@%s or.b64 %s, %s, 1", sub, q, q)
	g.emit("sub.u32 %s, %s, 1", n, n)
	g.emit("setp.ne.u32 %s, %s, 0", more, n)
	g.emit("@%s bra %s", more, loop)
	g.emit("selp.u64 %s, 0, %s, %s", q, q, cz)
	g.emit("selp.u64 %s, 0, %s, %s", rem, rem, cz)

	if !rt.IsFloat() {
		nq, sq := r64(), r64()
		g.emit("neg.s64 %s, %s", nq, q)
		g.emit("selp.b64 %s, %s, %s, %s", sq, nq, q, neg)
		return g.cast(dtype.Int64, rt, sq)
	}
	fq, fr, fc, fd, m, nm, sm := g.reg(clsF64), g.reg(clsF64), g.reg(clsF64), g.reg(clsF64), g.reg(clsF64), g.reg(clsF64), g.reg(clsF64)
	g.emit("cvt.rn.f64.u64 %s, %s", fq, q)
	g.emit("cvt.rn.f64.u64 %s, %s", fr, rem)
	g.emit("cvt.rn.f64.u64 %s, %s", fc, count)
	g.emit("div.rn.f64 %s, %s, %s", fd, fr, fc)
	g.emit("add.rn.f64 %s, %s, %s", m, fq, fd)
	g.emit("neg.f64 %s, %s", nm, m)
	g.emit("selp.f64 %s, %s, %s, %s", sm, nm, m, neg)
	return g.cast(dtype.Float64, rt, sm)
}

// storeWide writes r (type t) to element i (u64) of array base.
func (g *gen) storeWide(base, i string, t dtype.DType, r string) {
	off, addr := g.reg(clsB64), g.reg(clsB64)
	g.emit("shl.b64 %s, %s, %d", off, i, log2(t.Size()))
	g.emit("add.s64 %s, %s, %s", addr, base, off)
	g.stValue(addr, t, r)
}

// columnReduction emits the kernel of a Columns program (groups ≤ ntid,
// Rank 2 over dims [groups, glen]): work item q < bpg is part q of every
// group at once. Thread tid takes group c = tid mod groups and the rows
// k ≡ q·RB + tid div groups (mod bpg·RB) of its group, RB = ntid div
// groups rows per pass, so that consecutive threads read consecutive
// groups (a warp reads whole rows of a group-innermost layout). Each
// thread folds four rows per iteration into two accumulators; then the
// threads of one group combine through .shared slots (one per thread and
// word) and thread c writes out[c] (Final) or out[c·bpg+q] (Partial).
func (g *gen) columnReduction(out, out2, out3, groups, glen, bpg, count string) {
	words := g.p.Words()
	arrays := []string{"gpuarr_col_val", "gpuarr_col_pos", "gpuarr_col_third"}[:words]
	for _, name := range arrays {
		g.shared = append(g.shared, fmt.Sprintf(".shared .align 8 .b8 %s[%d];", name, 8*reduceThreads))
	}
	g.loadParams()
	tid, ntid, ctaid, nctaid := g.threadIDs()
	r64 := func() string { return g.reg(clsB64) }
	tid64, ntid64, c64, row64, rb64, used := r64(), r64(), r64(), r64(), r64(), r64()
	g.emit("cvt.u64.u32 %s, %s", tid64, tid)
	g.emit("cvt.u64.u32 %s, %s", ntid64, ntid)
	g.emit("rem.u64 %s, %s, %s", c64, tid64, groups)
	g.emit("div.u64 %s, %s, %s", row64, tid64, groups)
	g.emit("div.u64 %s, %s, %s", rb64, ntid64, groups)
	g.emit("mul.lo.u64 %s, %s, %s", used, rb64, groups)
	active, lead := g.reg(clsPred), g.reg(clsPred)
	g.emit("setp.lt.u64 %s, %s, %s", active, tid64, used)
	g.emit("setp.lt.u64 %s, %s, %s", lead, tid64, groups)
	step64 := r64()
	g.emit("mul.lo.u64 %s, %s, %s", step64, bpg, rb64)
	step := g.stepIdx(step64)
	slot := func(array string, i64 string) string {
		base, off, a := g.reg(clsB32), g.reg(clsB32), g.reg(clsB32)
		i := g.reg(clsB32)
		g.emit("cvt.u32.u64 %s, %s", i, i64)
		g.emit("mov.u32 %s, %s", base, array)
		g.emit("shl.b32 %s, %s, 3", off, i)
		g.emit("add.s32 %s, %s, %s", a, base, off)
		return a
	}
	b, nct := r64(), r64()
	g.emit("cvt.u64.u32 %s, %s", b, ctaid)
	g.emit("cvt.u64.u32 %s, %s", nct, nctaid)
	done := g.label("done")
	pr := g.reg(clsPred)
	g.emit("setp.ge.u64 %s, %s, %s", pr, b, bpg)
	g.emit("@%s bra %s", pr, done)

	item := g.label("item")
	g.emitLabel(item)
	gbase64, k064 := r64(), r64()
	g.emit("mul.lo.u64 %s, %s, %s", gbase64, c64, glen)
	g.emit("mad.lo.u64 %s, %s, %s, %s", k064, b, rb64, row64)
	gbase, c := g.narrowIdx(gbase64), g.narrowIdx(c64)
	g.groupShift(gbase, glen)
	a, a2 := g.newAcc(), g.newAcc()
	end := g.label("rows_end")
	skip := g.reg(clsPred)
	g.emit("setp.ge.u64 %s, %s, %s", skip, k064, glen)
	g.emit("@!%s bra %s", active, end)
	g.emit("@%s bra %s", skip, end)
	it := g.it()
	glenI := g.narrowIdx(glen)
	k := g.counter(k064)
	// elemAt is the element (c, kk): its flat index and, known here, its
	// indexes over dims (no division).
	elemAt := func(kk string) *elem {
		i := g.idxReg()
		g.emit("add.%s %s, %s, %s", it, i, gbase, kk)
		e := g.newElem(i, nil)
		e.idx = []string{c, kk}
		return e
	}
	four, tail := g.label("rows4"), g.label("rows1")
	g.emitLabel(four)
	ks := []string{k}
	for range 3 {
		nk, past := g.idxReg(), g.reg(clsPred)
		g.emit("add.%s %s, %s, %s", it, nk, ks[len(ks)-1], step)
		g.emit("setp.ge.%s %s, %s, %s", it, past, nk, glenI)
		g.emit("@%s bra %s", past, tail)
		ks = append(ks, nk)
	}
	es := make([]*elem, 4)
	vs := make([]string, 4)
	for j, kk := range ks {
		es[j] = elemAt(kk)
		vs[j] = g.value(es[j])
	}
	for j, kk := range ks {
		acc := a
		if j%2 == 1 {
			acc = a2
		}
		g.accumulate(acc, vs[j], g.second(es[j], kk), g.third(es[j]))
	}
	more := g.reg(clsPred)
	g.emit("add.%s %s, %s, %s", it, k, ks[3], step)
	g.emit("setp.lt.%s %s, %s, %s", it, more, k, glenI)
	g.emit("@%s bra %s", more, four)
	g.emit("bra %s", end)
	g.emitLabel(tail)
	e := elemAt(k)
	v := g.value(e)
	g.accumulate(a, v, g.second(e, k), g.third(e))
	more1 := g.reg(clsPred)
	g.emit("add.%s %s, %s, %s", it, k, k, step)
	g.emit("setp.lt.%s %s, %s, %s", it, more1, k, glenI)
	g.emit("@%s bra %s", more1, tail)
	g.emitLabel(end)
	g.settle(a)
	g.settle(a2)
	g.combine(a, a2.v, a2.x, a2.y)

	// The threads of one group combine through .shared: slot tid holds
	// thread tid's accumulator; thread c < groups folds slots c, c+groups, ….
	regsOf := func(x acc) []string { return []string{x.v, x.x, x.y}[:words] }
	typesOf := []dtype.DType{a.t, g.p.SecondType(), dtype.Float64}[:words]
	mine := make([]string, words)
	for w := range words {
		mine[w] = slot(arrays[w], tid64)
	}
	for w, r := range regsOf(a) {
		g.emit("st.shared.%s [%s], %s", bits(typesOf[w]), mine[w], r)
	}
	g.emit("bar.sync 0")
	itemEnd := g.label("item_end")
	g.emit("@!%s bra %s", lead, itemEnd)
	g.setIdentity(a)
	row, fold := r64(), g.label("fold")
	g.emit("mov.u64 %s, 0", row)
	g.emitLabel(fold)
	at := r64()
	g.emit("mad.lo.u64 %s, %s, %s, %s", at, row, groups, tid64)
	loaded := make([]string, 3)
	for w := range words {
		loaded[w] = g.regT(typesOf[w])
		g.emit("ld.shared.%s %s, [%s]", bits(typesOf[w]), loaded[w], slot(arrays[w], at))
	}
	g.combine(a, loaded[0], loaded[1], loaded[2])
	again := g.reg(clsPred)
	g.emit("add.u64 %s, %s, 1", row, row)
	g.emit("setp.lt.u64 %s, %s, %s", again, row, rb64)
	g.emit("@%s bra %s", again, fold)
	bi := r64()
	g.emit("mad.lo.u64 %s, %s, %s, %s", bi, c64, bpg, b)
	g.writeResult(a, out, out2, out3, c64, bi, count)
	g.emitLabel(itemEnd)
	g.emit("bar.sync 0") // the next item reuses the slots
	g.emit("add.s64 %s, %s, %s", b, b, nct)
	next := g.reg(clsPred)
	g.emit("setp.lt.u64 %s, %s, %s", next, b, bpg)
	g.emit("@%s bra %s", next, item)
	g.emitLabel(done)
	g.emit("ret")
}

// reduceThreads is the most threads a reduction block has (the .shared
// slots of a Columns kernel are per thread).
const reduceThreads = 256
