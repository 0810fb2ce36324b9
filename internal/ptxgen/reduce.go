package ptxgen

import (
	"math"

	"github.com/gpuarr/gpuarr/internal/expr"
)

// acc is a reduction accumulator held in registers that are updated in
// place: a value of type t and, for the Arg reductions, an s64 position.
type acc struct {
	t   expr.DType
	v   string
	pos string
}

// accType is the accumulator's value type.
func (g *gen) accType() expr.DType { return expr.AccType(g.p.Reduce, g.p.ValueType()) }

func (g *gen) newAcc() acc {
	a := acc{t: g.accType(), v: g.regT(g.accType())}
	if g.p.Reduce.IsArg() {
		a.pos = g.reg(clsB64)
	}
	g.setIdentity(a)
	return a
}

// setIdentity resets a to the reduction's identity (position -1: none).
func (g *gen) setIdentity(a acc) {
	g.emit("mov.%s %s, %s", bits(a.t), a.v, g.identity(a.t))
	if a.pos != "" {
		g.emit("mov.s64 %s, -1", a.pos)
	}
}

func (g *gen) identity(t expr.DType) string {
	switch g.p.Reduce {
	case expr.Sum, expr.Mean:
		return immediate(t, 0)
	case expr.Prod:
		return immediate(t, 1)
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

// accumulate folds value v (the program's value type) at position pos
// (s64, Arg only) into a.
func (g *gen) accumulate(a acc, v, pos string) {
	g.combine(a, g.cast(g.p.ValueType(), a.t, v), pos)
}

// combine folds (bv, bpos) into a. Every combination is commutative given
// the positions (ties go to the lower position, -1 loses), so elements,
// lanes and warps may be combined in any order.
func (g *gen) combine(a acc, bv, bpos string) {
	t := a.t
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
	case expr.ArgMin, expr.ArgMax:
		w := g.argWins(t, a, bv, bpos)
		g.emit("selp.%s %s, %s, %s, %s", bits(t), a.v, bv, a.v, w)
		g.emit("selp.b64 %s, %s, %s, %s", a.pos, bpos, a.pos, w)
	}
}

// argWins is a predicate: (bv, bpos) replaces a's value and position.
// A position -1 (none) loses to any other; a NaN beats any number; between
// two NaNs or two equal values the lower position wins.
func (g *gen) argWins(t expr.DType, a acc, bv, bpos string) string {
	p := func() string { return g.reg(clsPred) }
	cmp := "lt"
	if g.p.Reduce == expr.ArgMax {
		cmp = "gt"
	}
	better, eq, lower, x := p(), p(), p(), p()
	g.emit("setp.%s.%s %s, %s, %s", cmp, ty(t), better, bv, a.v) // false with a NaN
	g.emit("setp.eq.%s %s, %s, %s", ty(t), eq, bv, a.v)
	g.emit("setp.lt.s64 %s, %s, %s", lower, bpos, a.pos)
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
	g.emit("setp.eq.s64 %s, %s, -1", aNone, a.pos)
	g.emit("setp.ne.s64 %s, %s, -1", bSome, bpos)
	g.emit("or.pred %s, %s, %s", x4, x, aNone)
	g.emit("and.pred %s, %s, %s", w, x4, bSome)
	return w
}

// shuffleDown returns the accumulator of lane+off (shfl.sync.down over
// the full warp; 64-bit values travel as two 32-bit halves).
func (g *gen) shuffleDown(a acc, off int) (bv, bpos string) {
	bv = g.shfl(a.t, a.v, off)
	if a.pos != "" {
		bpos = g.shfl(expr.Int64, a.pos, off)
	}
	return bv, bpos
}

func (g *gen) shfl(t expr.DType, r string, off int) string {
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
	if t == expr.Float32 {
		src, dst = g.reg(clsB32), g.reg(clsB32)
		g.emit("mov.b32 %s, %s", src, r)
	}
	g.emit("shfl.sync.down.b32 %s, %s, %d, 31, -1", dst, src, off)
	if t == expr.Float32 {
		g.emit("mov.b32 %s, %s", d, dst)
	}
	return d
}

func (g *gen) warpReduce(a acc) {
	for off := 16; off >= 1; off /= 2 {
		bv, bpos := g.shuffleDown(a, off)
		g.combine(a, bv, bpos)
	}
}

// blockShape holds the per-thread constants of the block reduction.
type blockShape struct {
	tid64, ntid64 string
	lane0, warp0  string // predicates
	tid0, inWarps string // predicates: tid == 0, lane < number of warps
	valW, posW    string // shared addresses of this warp's slots
	valL, posL    string // shared addresses of slot [lane]
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
	if g.p.Reduce.IsArg() {
		s.posW, s.posL = slot("gpuarr_red_pos", warp), slot("gpuarr_red_pos", lane)
	}
	return s
}

// blockReduce combines every thread's accumulator into thread 0's: warp
// shuffles, one slot per warp in shared memory, then the first warp.
func (g *gen) blockReduce(s blockShape, a acc, skip string) {
	g.warpReduce(a)
	g.emit("@%s st.shared.%s [%s], %s", s.lane0, bits(a.t), s.valW, a.v)
	if a.pos != "" {
		g.emit("@%s st.shared.s64 [%s], %s", s.lane0, s.posW, a.pos)
	}
	g.emit("bar.sync 0")
	g.emit("@!%s bra %s", s.warp0, skip)
	g.setIdentity(a)
	g.emit("@%s ld.shared.%s %s, [%s]", s.inWarps, bits(a.t), a.v, s.valL)
	if a.pos != "" {
		g.emit("@%s ld.shared.s64 %s, [%s]", s.inWarps, a.pos, s.posL)
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
	var out2 string
	if p.Stage == expr.Partial && p.Reduce.IsArg() {
		out2 = param("out2", true)
	}
	groups, glen, bpg, count := param("groups", false), param("glen", false), param("bpg", false), param("count", false)
	// One 8-byte slot per warp (at most 32 warps of 32 threads).
	g.shared = append(g.shared, ".shared .align 8 .b8 gpuarr_red_val[256];")
	if p.Reduce.IsArg() {
		g.shared = append(g.shared, ".shared .align 8 .b8 gpuarr_red_pos[256];")
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
	a := g.newAcc()
	if g.vec > 1 {
		g.vectorThreads(a, glen, gbase64, gbase, k0, q, s.tid64, step)
	} else {
		g.scalarThreads(a, glen, g.narrowIdx(glen), gbase, k0, step)
	}

	skip := g.label("item_end")
	g.blockReduce(s, a, skip)
	g.writeResult(a, out, out2, grp, b, count)
	g.emitLabel(skip)
	g.emit("bar.sync 0") // the next item reuses the shared slots
	g.emit("add.s64 %s, %s, %s", b, b, nct)
	more := g.reg(clsPred)
	g.emit("setp.lt.u64 %s, %s, %s", more, b, total)
	g.emit("@%s bra %s", more, item)
	g.emitLabel(done)
	g.emit("ret")
}

// position is the s64 position of element e at group position k (index
// width): k itself, or the ArgIndex input's value.
func (g *gen) position(e *elem, k string) string {
	if !g.p.Reduce.IsArg() {
		return ""
	}
	if ai := g.argIndex(); ai >= 0 {
		return g.input(e, ai)
	}
	if g.idx64 {
		return k
	}
	r := g.reg(clsB64)
	g.emit("cvt.u64.u32 %s, %s", r, k)
	return r
}

// scalarThreads: each thread reduces positions k = k0, k0+step, … < glen.
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
	g.accumulate(a, v, g.position(e, k))
	g.emit("add.%s %s, %s, %s", g.it(), k, k, step)
	more := g.reg(clsPred)
	g.emit("setp.lt.%s %s, %s, %s", g.it(), more, k, glenI)
	g.emit("@%s bra %s", more, loop)
	g.emitLabel(end)
}

// vectorThreads: contiguous inputs, groups == 1. Each thread reduces
// vectors kv = k0, k0+step, … < glen/V two at a time into two
// accumulators; the first part's threads then take the glen mod V tail.
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
			var pos string
			if g.p.Reduce.IsArg() {
				pos = g.position(e, g.laneIndex(kv, j))
			}
			g.accumulate(acc, v, pos)
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
	g.combine(a, a2.v, a2.pos)

	// Tail: positions nv·V + tid < glen, in part 0 only.
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
	g.accumulate(a, v, g.position(e, k))
	g.emitLabel(tend)
}

// writeResult stores thread 0's accumulator: Final writes the group's
// result to out[grp]; Partial writes the accumulator to out[b] (Arg: the
// value to out[b] and the position to out2[b]).
func (g *gen) writeResult(a acc, out, out2, grp, b, count string) {
	p := g.p
	vt := p.ValueType()
	if p.Stage == expr.Partial {
		g.storeWide(out, b, a.t, a.v)
		if a.pos != "" {
			g.storeWide(out2, b, expr.Int64, a.pos)
		}
		return
	}
	rt := expr.ResultType(p.Reduce, vt)
	switch p.Reduce {
	case expr.ArgMin, expr.ArgMax:
		g.storeWide(out, grp, expr.Int64, a.pos)
	case expr.Mean:
		sum := g.cast(a.t, expr.Float64, a.v)
		cf, m := g.reg(clsF64), g.reg(clsF64)
		g.emit("cvt.rn.f64.u64 %s, %s", cf, count)
		g.emit("div.rn.f64 %s, %s, %s", m, sum, cf)
		g.storeWide(out, grp, rt, g.cast(expr.Float64, rt, m))
	default:
		g.storeWide(out, grp, rt, g.cast(a.t, rt, a.v))
	}
}

// storeWide writes r (type t) to element i (u64) of array base.
func (g *gen) storeWide(base, i string, t expr.DType, r string) {
	off, addr := g.reg(clsB64), g.reg(clsB64)
	g.emit("shl.b64 %s, %s, %d", off, i, log2(t.Size()))
	g.emit("add.s64 %s, %s, %s", addr, base, off)
	g.emit("st.global.%s [%s], %s", memType(t), addr, r)
}
