package ptxgen

import (
	"github.com/gpuarr/gpuarr/device/dtype"
	"github.com/gpuarr/gpuarr/internal/fusion/expr"
)

// VectorsPerThread (a power of two) is how many vectors of V elements each thread of an
// elementwise kernel with Vector V > 1 loads before it computes any: a
// launch needs ⌈n/(V·VectorsPerThread)⌉ threads to cover n elements in one
// pass (the grid-stride loop covers any grid).
const VectorsPerThread = 2

// registerCap is the register limit (.maxnreg) p's entry declares, 0 for
// none: 32 for an elementwise kernel over vectors of one array (no other
// array or random input) in types of at most 32 bits whose math functions
// all fit it (not pow or hypot, whose bodies spill under it). Such a
// kernel's registers hold its VectorsPerThread vectors and one element's
// arithmetic at a time, so 32 cost ptxas no spills and keep 2048 threads
// resident per SM, where ptxas left alone may take a few more for its
// schedule and lose a quarter of them. Kernels over more arrays, or wider
// types, hold more values at once and would spill under the cap: they get
// none.
func registerCap(p *expr.Program) int {
	if p.Reduce != expr.NoReduce || p.Vector <= 1 || len(p.Inputs) != 1 || p.Inputs[0].Kind != expr.Memory {
		return 0
	}
	narrow := func(t dtype.DType) bool { return t.Size() <= 4 && !t.IsComplex() }
	if !narrow(p.Inputs[0].T) || !narrow(p.OutType()) {
		return 0
	}
	for _, in := range p.Code {
		if !narrow(in.T) || in.Op == expr.OpPow || in.Op == expr.OpHypot {
			return 0
		}
	}
	return 32
}

// elementwise emits out[i] = value(i) for i in [0, n), for a 1-D launch
// of any shape. With Vector V > 1 a grid-stride loop walks vectors of V
// elements, VectorsPerThread of them per thread and iteration, ntid apart,
// all loaded (ld.global.v4.f32, v2.f64, …) before any is computed (one
// st.global.vN each, no division; a vector past the end loads the last
// one and stores nothing); then a second grid-stride loop takes the n mod
// V tail element by element. With V = 1 only the second loop runs.
//
// Indexes are 32-bit unless Index64 (the first index and the step are
// computed in 64 bits and the step clamped to 2³¹, so huge grids cannot
// wrap them). A contiguous input is read at base + i·size; a strided or
// Random input decomposes i over dims (div/mul/sub per dimension, the only
// divisions) and dots the indexes with its strides. Loads are plain
// ld.global: out may alias an input element for element.
func (g *gen) elementwise() {
	p := g.p
	out, n64 := g.reg(clsB64), g.reg(clsB64)
	g.emit("ld.param.u64 %s, [out]", out)
	g.emit("cvta.to.global.u64 %s, %s", out, out)
	g.emit("ld.param.u64 %s, [n]", n64)
	g.loadParams()

	tid, ntid, ctaid, nctaid := g.threadIDs()
	// First index and step in 64 bits: ctaid·ntid may exceed 2³² on huge
	// grids even when n does not.
	gtid, tid64, step64 := g.reg(clsB64), g.reg(clsB64), g.reg(clsB64)
	g.emit("mul.wide.u32 %s, %s, %s", gtid, ctaid, ntid)
	g.emit("cvt.u64.u32 %s, %s", tid64, tid)
	g.emit("add.s64 %s, %s, %s", gtid, gtid, tid64)
	g.emit("mul.wide.u32 %s, %s, %s", step64, nctaid, ntid)
	step := g.stepIdx(step64)
	outT := p.OutType()
	done := g.label("done")

	start64 := gtid
	if g.vec > 1 {
		g.vectorLoop(out, n64, tid64, ntid, ctaid, nctaid, outT)
		// The tail: elements nv·V … n-1, fewer than V of them.
		nv64 := g.reg(clsB64)
		g.emit("shr.u64 %s, %s, %d", nv64, n64, log2(g.vec))
		start64 = g.reg(clsB64)
		g.emit("shl.b64 %s, %s, %d", start64, nv64, log2(g.vec))
		g.emit("add.s64 %s, %s, %s", start64, start64, gtid)
	}
	pr := g.reg(clsPred)
	g.emit("setp.ge.u64 %s, %s, %s", pr, start64, n64)
	g.emit("@%s bra %s", pr, done)
	n := g.narrowIdx(n64)
	i := g.counter(start64)
	loop := g.label("loop")
	g.emitLabel(loop)
	e := g.newElem(i, nil)
	r := g.value(e)
	if p.OutStrided {
		g.storeStrided(out, e, outT, r)
	} else {
		g.store(out, i, outT, r)
	}
	g.emit("add.%s %s, %s, %s", g.it(), i, i, step)
	more := g.reg(clsPred)
	g.emit("setp.lt.%s %s, %s, %s", g.it(), more, i, n)
	g.emit("@%s bra %s", more, loop)
	g.emitLabel(done)
	g.emit("ret")
}

func log2(v int) int {
	n := 0
	for v > 1 {
		v >>= 1
		n++
	}
	return n
}

// vectorLoop is elementwise's loop over whole vectors: thread tid of block
// b takes vectors c·U·ntid + tid + j·ntid (j < U = VectorsPerThread) for
// chunks c = b, b + nctaid, … while its first is below nv = n/V. Where a
// later one is not (the last chunk), it loads the last vector instead and
// stores nothing: every load stays in bounds and no code is duplicated.
func (g *gen) vectorLoop(out, n64, tid64, ntid, ctaid, nctaid string, outT dtype.DType) {
	const u = VectorsPerThread
	nv64 := g.reg(clsB64)
	g.emit("shr.u64 %s, %s, %d", nv64, n64, log2(g.vec))
	// chunk = U·ntid ≤ 2^32 (ntid ≤ 1024): the products in one wide
	// multiplication each.
	first64, step64, chunk := g.reg(clsB64), g.reg(clsB64), g.reg(clsB32)
	g.emit("shl.b32 %s, %s, %d", chunk, ntid, log2(u))
	g.emit("mul.wide.u32 %s, %s, %s", first64, ctaid, chunk)
	g.emit("add.s64 %s, %s, %s", first64, first64, tid64)
	g.emit("mul.wide.u32 %s, %s, %s", step64, nctaid, chunk)
	skip := g.label("vec_end")
	pr := g.reg(clsPred)
	g.emit("setp.ge.u64 %s, %s, %s", pr, first64, nv64)
	g.emit("@%s bra %s", pr, skip)
	nv := g.narrowIdx(nv64)
	last := g.idxReg()
	g.emit("sub.%s %s, %s, 1", g.it(), last, nv)
	stride := ntid
	if g.idx64 {
		stride = g.u64(ntid)
	}
	step := g.stepIdx(step64)
	v := g.counter(first64)
	loop := g.label("vec_loop")
	g.emitLabel(loop)
	idx := make([]string, u)
	in := make([]string, u) // the predicate that vector j is in bounds (j ≥ 1)
	idx[0] = v
	for j := 1; j < u; j++ {
		r := g.idxReg()
		g.emit("add.%s %s, %s, %s", g.it(), r, idx[j-1], stride)
		in[j] = g.reg(clsPred)
		g.emit("setp.lt.%s %s, %s, %s", g.it(), in[j], r, nv)
		idx[j] = g.idxReg()
		g.emit("min.%s %s, %s, %s", g.it(), idx[j], r, last)
	}
	lanes := make([][]map[int]string, u)
	for j := range lanes {
		lanes[j] = g.vecLoad(idx[j])
	}
	res := make([][]string, u)
	for j := range res {
		res[j] = make([]string, g.vec)
		for k := range res[j] {
			res[j][k] = g.value(g.newElem("", lanes[j][k]))
		}
	}
	for j := range res {
		a := g.reg(clsB64)
		g.emit("add.s64 %s, %s, %s", a, out, g.vecByteOff(idx[j], outT.Size()))
		g.vecStore(a, outT, res[j], in[j])
	}
	g.emit("add.%s %s, %s, %s", g.it(), v, v, step)
	more := g.reg(clsPred)
	g.emit("setp.lt.%s %s, %s, %s", g.it(), more, v, nv)
	g.emit("@%s bra %s", more, loop)
	g.emitLabel(skip)
}

// u64 is a u32 register widened to a fresh u64 register.
func (g *gen) u64(r string) string {
	w := g.reg(clsB64)
	g.emit("cvt.u64.u32 %s, %s", w, r)
	return w
}
