package ptxgen

// elementwise emits out[i] = value(i) for i in [0, n): a grid-stride loop
// over vectors of V elements when Vector > 1, then a grid-stride loop over
// the remaining elements (all of them when V = 1).
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
		nv64 := g.reg(clsB64)
		g.emit("shr.u64 %s, %s, %d", nv64, n64, log2(g.vec))
		skip := g.label("vec_end")
		pr := g.reg(clsPred)
		g.emit("setp.ge.u64 %s, %s, %s", pr, gtid, nv64)
		g.emit("@%s bra %s", pr, skip)
		nv := g.narrowIdx(nv64)
		v := g.counter(gtid)
		loop := g.label("vec_loop")
		g.emitLabel(loop)
		lanes := g.vecLoad(v)
		res := make([]string, g.vec)
		for j := range res {
			res[j] = g.value(g.newElem("", lanes[j]))
		}
		off := g.vecByteOff(v, outT.Size())
		a := g.reg(clsB64)
		g.emit("add.s64 %s, %s, %s", a, out, off)
		g.emit("st.global%s.%s [%s], %s", vecSuffix(g.vec), memType(outT), a, regList(res))
		g.emit("add.%s %s, %s, %s", g.it(), v, v, step)
		more := g.reg(clsPred)
		g.emit("setp.lt.%s %s, %s, %s", g.it(), more, v, nv)
		g.emit("@%s bra %s", more, loop)
		g.emitLabel(skip)
		// The tail: elements nv·V … n-1, fewer than V of them.
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
