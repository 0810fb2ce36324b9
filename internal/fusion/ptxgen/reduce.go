package ptxgen

import (
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
	if g.twoWords() {
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
	g.emit("@%s st.shared.%s [%s], %s", s.lane0, bits(a.t), s.valW, a.v)
	if a.x != "" {
		g.emit("@%s st.shared.%s [%s], %s", s.lane0, bits(g.p.SecondType()), s.xW, a.x)
	}
	if a.y != "" {
		g.emit("@%s st.shared.f64 [%s], %s", s.lane0, s.yW, a.y)
	}
	g.emit("bar.sync 0")
	g.emit("@!%s bra %s", s.warp0, skip)
	g.setIdentity(a)
	g.emit("@%s ld.shared.%s %s, [%s]", s.inWarps, bits(a.t), a.v, s.valL)
	if a.x != "" {
		g.emit("@%s ld.shared.%s %s, [%s]", s.inWarps, bits(g.p.SecondType()), a.x, s.xL)
	}
	if a.y != "" {
		g.emit("@%s ld.shared.f64 %s, [%s]", s.inWarps, a.y, s.yL)
	}
	g.warpReduce(a)
	g.emit("@!%s bra %s", s.tid0, skip)
}

// reduction emits the reduction kernel: a block loop over work items
// b = g·bpg + q (group g, part q), each reduced by the whole block.
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
	// One 8-byte slot per warp (at most 32 warps of 32 threads).
	g.shared = append(g.shared, ".shared .align 8 .b8 gpuarr_red_val[256];")
	if g.twoWords() {
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
	g.emit("st.global.%s [%s], %s", memType(t), addr, r)
}
