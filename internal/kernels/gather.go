package kernels

import (
	"github.com/gpuarr/gpuarr/device"
	"github.com/gpuarr/gpuarr/device/dtype"
	"github.com/gpuarr/gpuarr/device/hostkernel"
	"github.com/gpuarr/gpuarr/internal/indexcheck"
	"github.com/gpuarr/gpuarr/internal/lifetime"
	"github.com/gpuarr/gpuarr/internal/tracking"
)

// The gather kernel: Take and TakeAlongAxis. The source x is seen as
// [outer, n, inner] around the indexed axis; the output as rows × cols.
//
//	gatherCols   (Take, inner = 1)    rows = outer, cols = m:
//	             out[r, c] = x[r, p(idx[c])]
//	gatherRows   (Take, inner > 1)    rows = outer·m, cols = inner:
//	             out[r, c] = x[r / m, p(idx[r mod m]), c], each row one
//	             index and one contiguous copy
//	gatherAlong  (TakeAlongAxis)      rows = outer, cols = m·inner:
//	             out[r, c] = x[r, p(idx[r, c]), c mod inner]
//
// p resolves an index by the mode (resolveIndex). Parameters: out, x,
// idx, rows, cols, m, n, inner (u64), slot (the check's slot, or 0).
// Blocks of gatherBlock threads cover columns along x and rows along y
// (grid-stride both ways); cols and along take gatherUnroll columns per
// thread per step, their loads issued together.
const (
	gatherCols = iota
	gatherRows
	gatherAlong
)

const (
	gatherBlock  = 256
	gatherUnroll = 4
)

// variant: a = element size, b = index type, c = mode, d = layout.
func gatherVariant(size int, it dtype.DType, mode, layout int) variant {
	return variant{kind: kGather, a: int32(size), b: int32(it), c: int32(mode), d: int32(layout)}
}

func init() {
	generators[kGather] = generator{name: "gather", ptx: gatherPTX, host: gatherHost}
}

func gatherPTX(v variant, entry, header string) string {
	size, it, mode, layout := int(v.a), dtype.DType(v.b), int(v.c), int(v.d)
	g := newPTX(entry)
	out, x, idx := g.global("out"), g.global("x"), g.global("idx")
	rows, cols, m, n, inner := g.param("u64", "rows"), g.param("u64", "cols"), g.param("u64", "m"), g.param("u64", "n"), g.param("u64", "inner")
	slot := g.param("u64", "slot")
	l := g.rows2D(rows)
	r, first, stride, nextRow := l.R, l.First, l.Stride, l.Next
	orow := g.r64() // element offset of the row in out
	g.op("mul.lo.u64 %s, %s, %s", orow, r, cols)
	c := g.r64()
	g.op("mov.u64 %s, %s", c, first)
	colLoop := g.label("col")

	switch layout {
	case gatherRows:
		o, jj := g.r64(), g.r64()
		g.op("div.u64 %s, %s, %s", o, r, m)
		g.op("mul.lo.u64 %s, %s, %s", jj, o, m)
		g.op("sub.u64 %s, %s, %s", jj, r, jj)
		j := g.loadIndex(g.addr(idx, jj, it.Size()), it, "")
		p, bad := g.resolveIndex(j, it, n, mode, slot, jj, "")
		src := g.r64() // element offset of the source row
		g.op("mad.lo.u64 %s, %s, %s, %s", src, o, n, p)
		g.op("mul.lo.u64 %s, %s, %s", src, src, inner)
		g.at(colLoop)
		pc := g.pred()
		g.op("setp.ge.u64 %s, %s, %s", pc, c, cols)
		g.op("@%s bra %s", pc, nextRow)
		si, di := g.r64(), g.r64()
		g.op("add.u64 %s, %s, %s", si, src, c)
		g.op("add.u64 %s, %s, %s", di, orow, c)
		ok := ""
		if bad != "" {
			ok = g.pred()
			g.op("not.pred %s, %s", ok, bad)
		}
		val := g.loadElem(g.addr(x, si, size), size, ok)
		g.storeElem(g.addr(out, di, size), size, val, "")
		g.op("add.u64 %s, %s, %s", c, c, stride)
		g.op("bra %s", colLoop)
	default:
		xrow := g.r64() // element offset of the row in x
		g.op("mul.lo.u64 %s, %s, %s", xrow, r, n)
		g.at(colLoop)
		pc := g.pred()
		g.op("setp.ge.u64 %s, %s, %s", pc, c, cols)
		g.op("@%s bra %s", pc, nextRow)
		var cs, valid, js [gatherUnroll]string
		for k := range gatherUnroll {
			cs[k], valid[k] = g.r64(), g.pred()
			if k == 0 {
				g.op("mov.u64 %s, %s", cs[k], c)
			} else {
				g.op("add.u64 %s, %s, %s", cs[k], cs[k-1], stride)
			}
			g.op("setp.lt.u64 %s, %s, %s", valid[k], cs[k], cols)
		}
		for k := range gatherUnroll {
			ii := cs[k]
			if layout == gatherAlong {
				ii = g.r64()
				g.op("add.u64 %s, %s, %s", ii, orow, cs[k])
			}
			js[k] = g.loadIndex(g.addr(idx, ii, it.Size()), it, valid[k])
		}
		var vals [gatherUnroll]elemRegs
		for k := range gatherUnroll {
			pos := cs[k]
			if layout == gatherAlong {
				pos = g.r64()
				g.op("add.u64 %s, %s, %s", pos, orow, cs[k])
			}
			p, bad := g.resolveIndex(js[k], it, n, mode, slot, pos, valid[k])
			si := g.r64()
			if layout == gatherAlong {
				// (r·n + p)·inner + c mod inner
				i := g.r64()
				g.op("rem.u64 %s, %s, %s", i, cs[k], inner)
				g.op("add.u64 %s, %s, %s", si, xrow, p)
				g.op("mad.lo.u64 %s, %s, %s, %s", si, si, inner, i)
			} else {
				g.op("add.u64 %s, %s, %s", si, xrow, p)
			}
			ok := valid[k]
			if bad != "" {
				ok = g.pred()
				nb := g.pred()
				g.op("not.pred %s, %s", nb, bad)
				g.op("and.pred %s, %s, %s", ok, valid[k], nb)
			}
			vals[k] = g.loadElem(g.addr(x, si, size), size, ok)
		}
		for k := range gatherUnroll {
			di := g.r64()
			g.op("add.u64 %s, %s, %s", di, orow, cs[k])
			g.storeElem(g.addr(out, di, size), size, vals[k], valid[k])
		}
		g.op("add.u64 %s, %s, %s", c, cs[gatherUnroll-1], stride)
		g.op("bra %s", colLoop)
	}
	g.closeRows(l)
	return g.module(header)
}

func gatherHost(v variant) hostkernel.Kernel {
	size, it, mode, layout := int(v.a), dtype.DType(v.b), int(v.c), int(v.d)
	return func(l *hostkernel.Launch) error {
		a := &l.Args
		rows, cols, m, n, inner := a.U64(3), a.U64(4), a.U64(5), a.U64(6), a.U64(7)
		xLen, idxLen := rows*n, cols
		switch layout {
		case gatherRows:
			xLen, idxLen = rows/max(m, 1)*n*inner, m
		case gatherAlong:
			xLen, idxLen = rows*n*inner, rows*cols
		}
		vw := views{l: l}
		out := vw.bytes(a.Ptr(0), rows*cols, uint64(size))
		x := vw.bytes(a.Ptr(1), xLen, uint64(size))
		idx := vw.bytes(a.Ptr(2), idxLen, uint64(it.Size()))
		slot := vw.slot(a.Ptr(8))
		if vw.err != nil {
			return vw.err
		}
		l.ParallelFor(rows*cols, func(lo, hi uint64) {
			for t := lo; t < hi; t++ {
				r, c := t/cols, t%cols
				var pos, src int64
				switch layout {
				case gatherCols:
					pos = int64(c)
				case gatherRows:
					pos = int64(r % m)
				default:
					pos = int64(t)
				}
				j := readInt(idx, int(pos), it)
				p, bad := resolveHost(j, it, int64(n), mode)
				if bad {
					recordBad(slot, pos, j)
					zeroElem(out, int(t), size)
					continue
				}
				switch layout {
				case gatherCols:
					src = int64(r*n) + p
				case gatherRows:
					src = (int64(r/m*n)+p)*int64(inner) + int64(c)
				default:
					src = (int64(r*n)+p)*int64(inner) + int64(c%inner)
				}
				moveElem(out, int(t), x, int(src), size)
			}
		})
		return nil
	}
}

// Gather is one Take or TakeAlongAxis: x seen as [Outer, N, Inner], M
// indices (Take) or Outer·M·Inner (Along) of type IdxType, into Out.
type Gather struct {
	Out, X, Idx *lifetime.Handle
	IdxType     dtype.DType
	ElemSize    int
	Mode        int
	Along       bool
	Outer, N    int
	M, Inner    int
	Site        indexcheck.Site
}

// Run queues the gather on s, claiming the arrays like any operation;
// with ModeRaise the indices are checked on the device (indexcheck).
func (a *Gather) Run(call string, s *device.Stream) error {
	layout, rows, cols := gatherCols, a.Outer, a.M
	switch {
	case a.Along:
		layout, rows, cols = gatherAlong, a.Outer, a.M*a.Inner
	case a.Inner > 1:
		layout, rows, cols = gatherRows, a.Outer*a.M, a.Inner
	}
	if rows*cols == 0 {
		return nil
	}
	k, err := kernel(s.Device(), gatherVariant(a.ElemSize, a.IdxType, a.Mode, layout))
	if err != nil {
		return wrap(call, err)
	}
	cfg := grid2D(s.Device(), cols, rows, gatherBlock, gatherUnroll)
	if layout == gatherRows {
		cfg = grid2D(s.Device(), cols, rows, gatherBlock, 1)
	}
	o := lifetime.Claim{Call: call}
	o.Add(a.X, tracking.Read, s)
	o.Add(a.Idx, tracking.Read, s)
	o.Add(a.Out, tracking.Write, s)
	return launchChecked(call, s, &o, a.Mode == ModeRaise, a.Site, func(slot device.Ptr) error {
		return s.Launch(k, cfg, a.Out.Ptr(), a.X.Ptr(), a.Idx.Ptr(), uint64(rows), uint64(cols), uint64(a.M),
			uint64(a.N), uint64(a.Inner), slot)
	})
}
