package kernels

import (
	"encoding/binary"

	"github.com/gpuarr/gpuarr/device"
	"github.com/gpuarr/gpuarr/device/dtype"
	"github.com/gpuarr/gpuarr/device/hostkernel"
	"github.com/gpuarr/gpuarr/internal/lifetime"
	"github.com/gpuarr/gpuarr/internal/tracking"
)

// Deterministic scatters (Put and IndexAdd with Deterministic): the
// indices are resolved to positions (a bad one to n, which sorts last),
// sorted stably with their order (the radix sort), and each run of equal
// positions is applied by one thread in index order: Put writes the run's
// last value, IndexAdd adds the run's values one after the other, as
// NumPy's loops do.
//
//	resolve    pos[j] = p(idx[j]) as u32, or n when bad (recorded):
//	           params idx, pos, m, n (u64), slot. Variant: a = index
//	           type, b = mode.
//	ordered    rows (o, k) = outer·m, cols = inner: thread (o, k, c)
//	           applies the run starting (IndexAdd) or ending (Put) at
//	           sorted position k to x[o, pos[k], c]: params x, src,
//	           sorted (u32 positions), perm (int64), rows, cols, m, n
//	           (u64). Variant: a = element type (its size for Put), b =
//	           operation.
func init() {
	generators[kResolve] = generator{name: "resolve", ptx: resolvePTX, host: resolveTwin}
	generators[kOrdered] = generator{name: "ordered", ptx: orderedPTX, host: orderedHost}
}

func resolvePTX(v variant, entry, header string) string {
	it, mode := dtype.DType(v.a), int(v.b)
	g := newPTX(entry)
	idx, pos := g.global("idx"), g.global("pos")
	m, n, slot := g.param("u64", "m"), g.param("u64", "n"), g.param("u64", "slot")
	tid, ntid := g.wide(g.special("tid.x")), g.wide(g.special("ntid.x"))
	cx, ncx := g.wide(g.special("ctaid.x")), g.wide(g.special("nctaid.x"))
	j, stride := g.r64(), g.r64()
	g.op("mad.lo.u64 %s, %s, %s, %s", j, cx, ntid, tid)
	g.op("mul.lo.u64 %s, %s, %s", stride, ncx, ntid)
	loop, done := g.label("idx"), g.label("done")
	g.at(loop)
	p := g.pred()
	g.op("setp.ge.u64 %s, %s, %s", p, j, m)
	g.op("@%s bra %s", p, done)
	x := g.loadIndex(g.addr(idx, j, it.Size()), it, "")
	q, bad := g.resolveIndex(x, it, n, mode, slot, j, "")
	if bad != "" {
		g.op("@%s mov.b64 %s, %s", bad, q, n)
	}
	q32 := g.r32()
	g.op("cvt.u32.u64 %s, %s", q32, q)
	g.op("st.global.u32 [%s], %s", g.addr(pos, j, 4), q32)
	g.op("add.u64 %s, %s, %s", j, j, stride)
	g.op("bra %s", loop)
	g.at(done)
	return g.module(header)
}

func resolveTwin(v variant) hostkernel.Kernel {
	it, mode := dtype.DType(v.a), int(v.b)
	return func(l *hostkernel.Launch) error {
		a := &l.Args
		m, n := a.U64(2), a.U64(3)
		vw := views{l: l}
		idx := vw.bytes(a.Ptr(0), m, uint64(it.Size()))
		pos := vw.bytes(a.Ptr(1), m, 4)
		slot := vw.slot(a.Ptr(4))
		if vw.err != nil {
			return vw.err
		}
		for j := uint64(0); j < m; j++ {
			x := readInt(idx, int(j), it)
			q, bad := resolveHost(x, it, int64(n), mode)
			if bad {
				recordBad(slot, int64(j), x)
				q = int64(n)
			}
			binary.LittleEndian.PutUint32(pos[4*j:], uint32(q))
		}
		return nil
	}
}

func orderedPTX(v variant, entry, header string) string {
	op := int(v.b)
	size, t := int(v.a), dtype.Invalid
	if op == scatterAdd {
		t = dtype.DType(v.a)
		size = t.Size()
	}
	g := newPTX(entry)
	x, src, sorted, perm := g.global("x"), g.global("src"), g.global("sorted"), g.global("perm")
	rows, cols, m, n := g.param("u64", "rows"), g.param("u64", "cols"), g.param("u64", "m"), g.param("u64", "n")
	l := g.rows2D(rows)
	r, first, stride, nextRow := l.R, l.First, l.Stride, l.Next
	o, k := g.r64(), g.r64()
	g.op("div.u64 %s, %s, %s", o, r, m)
	g.op("mul.lo.u64 %s, %s, %s", k, o, m)
	g.op("sub.u64 %s, %s, %s", k, r, k)
	p32 := g.r32()
	g.op("ld.global.u32 %s, [%s]", p32, g.addr(sorted, k, 4))
	p := g.wide(p32)
	skip := g.pred()
	g.op("setp.ge.u64 %s, %s, %s", skip, p, n) // bad indices sort last
	g.op("@%s bra %s", skip, nextRow)
	// Put applies the run's last element; IndexAdd starts at its first.
	nb := g.r64()
	edge := g.pred()
	if op == scatterPut {
		g.op("add.u64 %s, %s, 1", nb, k)
		g.op("setp.lt.u64 %s, %s, %s", edge, nb, m)
	} else {
		g.op("sub.u64 %s, %s, 1", nb, k)
		g.op("setp.ne.u64 %s, %s, 0", edge, k)
	}
	same := g.pred()
	q := g.r32()
	g.op("mov.u32 %s, 0xFFFFFFFF", q)
	g.op("@%s ld.global.u32 %s, [%s]", edge, q, g.addr(sorted, nb, 4))
	g.op("setp.eq.u32 %s, %s, %s", same, q, p32)
	g.op("@%s bra %s", same, nextRow)
	drow := g.r64() // element offset of x's row: (o·n + p)·cols
	g.op("mad.lo.u64 %s, %s, %s, %s", drow, o, n, p)
	g.op("mul.lo.u64 %s, %s, %s", drow, drow, cols)
	c := g.r64()
	g.op("mov.u64 %s, %s", c, first)
	colLoop := g.label("col")
	g.at(colLoop)
	pc := g.pred()
	g.op("setp.ge.u64 %s, %s, %s", pc, c, cols)
	g.op("@%s bra %s", pc, nextRow)
	di := g.r64()
	g.op("add.u64 %s, %s, %s", di, drow, c)
	dst := g.addr(x, di, size)
	// src[o, perm[kk], c] = src[(o·m + perm[kk])·cols + c]
	srcAt := func(kk string) string {
		j := g.r64()
		g.op("ld.global.u64 %s, [%s]", j, g.addr(perm, kk, 8))
		si := g.r64()
		g.op("mad.lo.u64 %s, %s, %s, %s", si, o, m, j)
		g.op("mad.lo.u64 %s, %s, %s, %s", si, si, cols, c)
		return g.addr(src, si, size)
	}
	if op == scatterPut {
		val := g.loadElem(srcAt(k), size, "")
		g.storeElem(dst, size, val, "")
	} else {
		acc := g.loadElem(dst, size, "")[0]
		kk := g.r64()
		g.op("mov.u64 %s, %s", kk, k)
		run, runDone := g.label("run"), g.label("run_done")
		g.at(run)
		v := g.loadElem(srcAt(kk), size, "")[0]
		acc = g.addInto(t, acc, v)
		g.op("add.u64 %s, %s, 1", kk, kk)
		more, in := g.pred(), g.pred()
		g.op("setp.lt.u64 %s, %s, %s", in, kk, m)
		q2 := g.r32()
		g.op("mov.u32 %s, 0xFFFFFFFF", q2)
		g.op("@%s ld.global.u32 %s, [%s]", in, q2, g.addr(sorted, kk, 4))
		g.op("setp.eq.u32 %s, %s, %s", more, q2, p32)
		g.op("@%s bra %s", more, run)
		g.at(runDone)
		g.storeElem(dst, size, elemRegs{acc}, "")
	}
	g.op("add.u64 %s, %s, %s", c, c, stride)
	g.op("bra %s", colLoop)
	g.closeRows(l)
	return g.module(header)
}

// addInto adds v to the accumulator acc (both the bits of a t as
// loadElem holds them) in place and returns acc.
func (g *ptx) addInto(t dtype.DType, acc, v string) string {
	switch t {
	case dtype.Float32:
		a, b := g.reg(clsF32), g.reg(clsF32)
		g.op("mov.b32 %s, %s", a, acc)
		g.op("mov.b32 %s, %s", b, v)
		g.op("add.rn.f32 %s, %s, %s", a, a, b)
		g.op("mov.b32 %s, %s", acc, a)
	case dtype.Float64:
		a, b := g.reg(clsF64), g.reg(clsF64)
		g.op("mov.b64 %s, %s", a, acc)
		g.op("mov.b64 %s, %s", b, v)
		g.op("add.rn.f64 %s, %s, %s", a, a, b)
		g.op("mov.b64 %s, %s", acc, a)
	case dtype.Int64, dtype.Uint64:
		g.op("add.u64 %s, %s, %s", acc, acc, v)
	default: // 8-, 16- and 32-bit integers: the store truncates
		g.op("add.u32 %s, %s, %s", acc, acc, v)
	}
	return acc
}

func orderedHost(v variant) hostkernel.Kernel {
	op := int(v.b)
	size, t := int(v.a), dtype.Invalid
	if op == scatterAdd {
		t = dtype.DType(v.a)
		size = t.Size()
	}
	return func(l *hostkernel.Launch) error {
		a := &l.Args
		rows, cols, m, n := a.U64(4), a.U64(5), a.U64(6), a.U64(7)
		outer := rows / max(m, 1)
		vw := views{l: l}
		x := vw.bytes(a.Ptr(0), outer*n*cols, uint64(size))
		src := vw.bytes(a.Ptr(1), rows*cols, uint64(size))
		sorted := vw.bytes(a.Ptr(2), m, 4)
		perm := vw.bytes(a.Ptr(3), m, 8)
		if vw.err != nil {
			return vw.err
		}
		le := binary.LittleEndian
		for o := uint64(0); o < outer; o++ {
			for k := uint64(0); k < m; k++ {
				p := uint64(le.Uint32(sorted[4*k:]))
				if p >= n {
					continue
				}
				j := le.Uint64(perm[8*k:])
				for c := uint64(0); c < cols; c++ {
					di, si := (o*n+p)*cols+c, (o*m+j)*cols+c
					if op == scatterPut {
						moveElem(x, int(di), src, int(si), size)
					} else {
						addElem(t, x, int(di), src, int(si))
					}
				}
			}
		}
		return nil
	}
}

// deterministic runs the scatter by runs of sorted positions.
func (a *Scatter) deterministic(call string, s *device.Stream, op int) error {
	if a.N > MaxSortElements-1 || a.M > MaxSortElements {
		return errArgument(call, "a deterministic scatter handles up to 2³²-2 positions and 2³²-1 indices")
	}
	res, err := kernel(s.Device(), variant{kind: kResolve, a: int32(a.IdxType), b: int32(a.Mode)})
	if err != nil {
		return wrap(call, err)
	}
	a32 := int32(a.T)
	if op == scatterPut {
		a32 = int32(a.T.Size())
	}
	ord, err := kernel(s.Device(), variant{kind: kOrdered, a: a32, b: int32(op)})
	if err != nil {
		return wrap(call, err)
	}
	var temps []*lifetime.Handle
	defer func() {
		for _, h := range temps {
			h.Done()
		}
	}()
	for _, spec := range []struct {
		t dtype.DType
	}{{dtype.Uint32}, {dtype.Uint32}, {dtype.Int64}} {
		h, err := lifetime.Temp(call, s, spec.t, []int{a.M})
		if err != nil {
			return err
		}
		temps = append(temps, h)
	}
	pos, sorted, perm := temps[0], temps[1], temps[2]
	o := lifetime.Claim{Call: call}
	o.Add(a.Idx, tracking.Read, s)
	o.Add(pos, tracking.Write, s)
	err = launchChecked(call, s, &o, a.Mode == ModeRaise, a.Site, func(slot device.Ptr) error {
		return s.Launch(res, grid1D(s.Device(), a.M, gatherBlock, 1), a.Idx.Ptr(), pos.Ptr(), uint64(a.M), uint64(a.N), slot)
	})
	if err != nil {
		return err
	}
	srt := Sort{Keys: pos, T: dtype.Uint32, Rows: 1, L: a.M, OutKeys: sorted, OutIdx: perm}
	if err := srt.Run(call, s); err != nil {
		return err
	}
	rows, cols := a.Outer*a.M, a.Inner
	cfg := grid2D(s.Device(), cols, rows, gatherBlock, 1)
	o = lifetime.Claim{Call: call}
	o.Add(a.Src, tracking.Read, s)
	o.Add(sorted, tracking.Read, s)
	o.Add(perm, tracking.Read, s)
	o.Add(a.X, tracking.ReadWrite, s)
	if err := o.Begin(true); err != nil {
		return err
	}
	err = s.Launch(ord, cfg, a.X.Ptr(), a.Src.Ptr(), sorted.Ptr(), perm.Ptr(), uint64(rows), uint64(cols), uint64(a.M), uint64(a.N))
	o.End()
	return wrap(call, err)
}
