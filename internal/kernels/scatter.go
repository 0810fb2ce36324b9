package kernels

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/gpuarr/gpuarr/device"
	"github.com/gpuarr/gpuarr/device/dtype"
	"github.com/gpuarr/gpuarr/device/hostkernel"
	"github.com/gpuarr/gpuarr/internal/indexcheck"
	"github.com/gpuarr/gpuarr/internal/lifetime"
	"github.com/gpuarr/gpuarr/internal/tracking"
)

// The scatter kernel: Put (x[p(idx[j])] = v[j]) and IndexAdd (x[…,
// p(idx[j]), …] += src[…, j, …], with atomics). x is seen as [outer, n,
// inner] around the indexed axis and the source as [outer, m, inner], in
// the gather's two layouts:
//
//	scatterCols (inner = 1)   rows = outer, cols = m:
//	            x[r, p(idx[c])] ⊕= src[r, c]
//	scatterRows (inner > 1)   rows = outer·m, cols = inner:
//	            x[r / m, p(idx[r mod m]), c] ⊕= src[r, c]
//
// Parameters: x, idx, src, rows, cols, m, n, inner (u64), slot. A bad
// index (ModeRaise) is recorded and its element skipped.
const (
	scatterCols = iota
	scatterRows
)

// Scatter operations.
const (
	scatterPut = iota
	scatterAdd
)

// variant: a = element type (its size for Put), b = index type, c = mode,
// d = layout, e = operation.
func scatterVariant(t dtype.DType, it dtype.DType, mode, layout, op int) variant {
	a := int32(t)
	if op == scatterPut {
		a = int32(t.Size()) // Put moves bits
	}
	return variant{kind: kScatter, a: a, b: int32(it), c: int32(mode), d: int32(layout), e: int32(op)}
}

func init() {
	generators[kScatter] = generator{name: "scatter", ptx: scatterPTX, host: scatterHost}
}

func scatterPTX(v variant, entry, header string) string {
	it, mode, layout, op := dtype.DType(v.b), int(v.c), int(v.d), int(v.e)
	size, t := int(v.a), dtype.Invalid
	if op == scatterAdd {
		t = dtype.DType(v.a)
		size = t.Size()
	}
	g := newPTX(entry)
	x, idx, src := g.global("x"), g.global("idx"), g.global("src")
	rows, cols, m, n, inner := g.param("u64", "rows"), g.param("u64", "cols"), g.param("u64", "m"), g.param("u64", "n"), g.param("u64", "inner")
	slot := g.param("u64", "slot")
	l := g.rows2D(rows)
	r, first, stride, nextRow := l.R, l.First, l.Stride, l.Next
	srow := g.r64()
	g.op("mul.lo.u64 %s, %s, %s", srow, r, cols)
	c := g.r64()
	g.op("mov.u64 %s, %s", c, first)
	colLoop := g.label("col")
	var drow, rowBad string
	if layout == scatterRows {
		o, jj := g.r64(), g.r64()
		g.op("div.u64 %s, %s, %s", o, r, m)
		g.op("mul.lo.u64 %s, %s, %s", jj, o, m)
		g.op("sub.u64 %s, %s, %s", jj, r, jj)
		j := g.loadIndex(g.addr(idx, jj, it.Size()), it, "")
		p, bad := g.resolveIndex(j, it, n, mode, slot, jj, "")
		drow, rowBad = g.r64(), bad
		g.op("mad.lo.u64 %s, %s, %s, %s", drow, o, n, p)
		g.op("mul.lo.u64 %s, %s, %s", drow, drow, inner)
	} else {
		drow = g.r64()
		g.op("mul.lo.u64 %s, %s, %s", drow, r, n)
	}
	g.at(colLoop)
	pc := g.pred()
	g.op("setp.ge.u64 %s, %s, %s", pc, c, cols)
	g.op("@%s bra %s", pc, nextRow)
	si, di := g.r64(), g.r64()
	g.op("add.u64 %s, %s, %s", si, srow, c)
	ok := ""
	if layout == scatterRows {
		g.op("add.u64 %s, %s, %s", di, drow, c)
		if rowBad != "" {
			ok = g.pred()
			g.op("not.pred %s, %s", ok, rowBad)
		}
	} else {
		j := g.loadIndex(g.addr(idx, c, it.Size()), it, "")
		p, bad := g.resolveIndex(j, it, n, mode, slot, c, "")
		g.op("add.u64 %s, %s, %s", di, drow, p)
		if bad != "" {
			ok = g.pred()
			g.op("not.pred %s, %s", ok, bad)
		}
	}
	val := g.loadElem(g.addr(src, si, size), size, ok)
	dst := g.addr(x, di, size)
	if op == scatterPut {
		g.storeElem(dst, size, val, ok)
	} else {
		g.atomicAdd(t, dst, val[0], ok)
	}
	g.op("add.u64 %s, %s, %s", c, c, stride)
	g.op("bra %s", colLoop)
	g.closeRows(l)
	return g.module(header)
}

// atomicAdd adds v (the element's bits as loadElem loaded them) to the
// element of type t at addr, atomically (under guard when not empty).
// Types without an atomic add of their width (8 and 16 bits) use a
// compare-and-swap loop on the aligned 32-bit word holding them: its other
// bytes are swapped back unchanged (a concurrent store to them fails the
// swap, which retries), and the word lies inside the array's allocation,
// whose blocks the pools align and round to whole words.
func (g *ptx) atomicAdd(t dtype.DType, addr, v, guard string) {
	pre := ""
	if guard != "" {
		pre = "@" + guard + " "
	}
	switch t {
	case dtype.Float32:
		f := g.reg(clsF32)
		g.op("mov.b32 %s, %s", f, v)
		g.op("%sred.global.add.f32 [%s], %s", pre, addr, f)
		return
	case dtype.Float64:
		f := g.reg(clsF64)
		g.op("mov.b64 %s, %s", f, v)
		g.op("%sred.global.add.f64 [%s], %s", pre, addr, f)
		return
	case dtype.Int32, dtype.Uint32:
		g.op("%sred.global.add.u32 [%s], %s", pre, addr, v)
		return
	case dtype.Int64, dtype.Uint64:
		g.op("%sred.global.add.u64 [%s], %s", pre, addr, v)
		return
	}
	// 8 or 16 bits: CAS on the aligned word.
	skip := g.label("cas_skip")
	if guard != "" {
		g.op("@!%s bra %s", guard, skip)
	}
	word, sh := g.r64(), g.r64()
	g.op("and.b64 %s, %s, -4", word, addr)
	g.op("and.b64 %s, %s, 3", sh, addr)
	g.op("shl.b64 %s, %s, 3", sh, sh)
	sh32 := g.r32()
	g.op("cvt.u32.u64 %s, %s", sh32, sh)
	fieldMask := "255"
	if t.Size() == 2 {
		fieldMask = "65535"
	}
	mk := g.r32()
	g.op("mov.b32 %s, %s", mk, fieldMask)
	g.op("shl.b32 %s, %s, %s", mk, mk, sh32)
	old := g.r32()
	g.op("ld.volatile.global.u32 %s, [%s]", old, word)
	loop := g.label("cas")
	g.at(loop)
	field, sum, nw, got := g.r32(), g.r32(), g.r32(), g.r32()
	g.op("shr.b32 %s, %s, %s", field, old, sh32)
	g.op("add.u32 %s, %s, %s", sum, field, v)
	g.op("shl.b32 %s, %s, %s", sum, sum, sh32)
	g.op("and.b32 %s, %s, %s", sum, sum, mk)
	notMk := g.r32()
	g.op("not.b32 %s, %s", notMk, mk)
	g.op("and.b32 %s, %s, %s", nw, old, notMk)
	g.op("or.b32 %s, %s, %s", nw, nw, sum)
	g.op("atom.global.cas.b32 %s, [%s], %s, %s", got, word, old, nw)
	again := g.pred()
	g.op("setp.ne.u32 %s, %s, %s", again, got, old)
	g.op("mov.b32 %s, %s", old, got)
	g.op("@%s bra %s", again, loop)
	g.at(skip)
}

func scatterHost(v variant) hostkernel.Kernel {
	it, mode, layout, op := dtype.DType(v.b), int(v.c), int(v.d), int(v.e)
	size, t := int(v.a), dtype.Invalid
	if op == scatterAdd {
		t = dtype.DType(v.a)
		size = t.Size()
	}
	return func(l *hostkernel.Launch) error {
		a := &l.Args
		rows, cols, m, n, inner := a.U64(3), a.U64(4), a.U64(5), a.U64(6), a.U64(7)
		xLen, idxLen := rows*n, cols
		if layout == scatterRows {
			xLen, idxLen = rows/max(m, 1)*n*inner, m
		}
		vw := views{l: l}
		x := vw.bytes(a.Ptr(0), xLen, uint64(size))
		idx := vw.bytes(a.Ptr(1), idxLen, uint64(it.Size()))
		src := vw.bytes(a.Ptr(2), rows*cols, uint64(size))
		slot := vw.slot(a.Ptr(8))
		if vw.err != nil {
			return vw.err
		}
		// In order, one goroutine: duplicates resolve as NumPy's
		// sequential loops do.
		for r := uint64(0); r < rows; r++ {
			for c := uint64(0); c < cols; c++ {
				pos := int64(c)
				if layout == scatterRows {
					pos = int64(r % m)
				}
				j := readInt(idx, int(pos), it)
				p, bad := resolveHost(j, it, int64(n), mode)
				if bad {
					recordBad(slot, pos, j)
					continue
				}
				di := uint64(int64(r*n) + p)
				if layout == scatterRows {
					di = (r/m*n+uint64(p))*inner + c
				}
				si := r*cols + c
				if op == scatterPut {
					moveElem(x, int(di), src, int(si), size)
				} else {
					addElem(t, x, int(di), src, int(si))
				}
			}
		}
		return nil
	}
}

// addElem adds element si of src to element di of dst (type t, wrapping
// integers, float arithmetic in t).
func addElem(t dtype.DType, dst []byte, di int, src []byte, si int) {
	le := binary.LittleEndian
	switch t {
	case dtype.Int8, dtype.Uint8:
		dst[di] += src[si]
	case dtype.Int16, dtype.Uint16:
		le.PutUint16(dst[2*di:], le.Uint16(dst[2*di:])+le.Uint16(src[2*si:]))
	case dtype.Int32, dtype.Uint32:
		le.PutUint32(dst[4*di:], le.Uint32(dst[4*di:])+le.Uint32(src[4*si:]))
	case dtype.Int64, dtype.Uint64:
		le.PutUint64(dst[8*di:], le.Uint64(dst[8*di:])+le.Uint64(src[8*si:]))
	case dtype.Float32:
		s := math.Float32frombits(le.Uint32(dst[4*di:])) + math.Float32frombits(le.Uint32(src[4*si:]))
		le.PutUint32(dst[4*di:], math.Float32bits(s))
	case dtype.Float64:
		s := math.Float64frombits(le.Uint64(dst[8*di:])) + math.Float64frombits(le.Uint64(src[8*si:]))
		le.PutUint64(dst[8*di:], math.Float64bits(s))
	default:
		panic(fmt.Sprintf("kernels: add of %s", t))
	}
}

// Scatter is one Put or IndexAdd: X seen as [Outer, N, Inner], M indices
// of type IdxType, Src as [Outer, M, Inner].
type Scatter struct {
	X, Idx, Src *lifetime.Handle
	T, IdxType  dtype.DType
	Mode        int
	Add         bool
	Outer, N    int
	M, Inner    int
	Site        indexcheck.Site
	// Deterministic: repeated indices resolve in index order (Put: the
	// last value lands; IndexAdd: the values add in order), by a sort.
	Deterministic bool
}

// Run queues the scatter on s (X is read and written).
func (a *Scatter) Run(call string, s *device.Stream) error {
	layout, rows, cols := scatterCols, a.Outer, a.M
	if a.Inner > 1 {
		layout, rows, cols = scatterRows, a.Outer*a.M, a.Inner
	}
	if rows*cols == 0 {
		return nil
	}
	op := scatterPut
	if a.Add {
		op = scatterAdd
		if !canAtomicAdd(a.T) {
			return errArgument(call, "IndexAdd of %s elements is not supported", a.T)
		}
	}
	if a.Deterministic {
		return a.deterministic(call, s, op)
	}
	k, err := kernel(s.Device(), scatterVariant(a.T, a.IdxType, a.Mode, layout, op))
	if err != nil {
		return wrap(call, err)
	}
	cfg := grid2D(s.Device(), cols, rows, gatherBlock, 1)
	o := lifetime.Claim{Call: call}
	o.Add(a.Idx, tracking.Read, s)
	o.Add(a.Src, tracking.Read, s)
	o.Add(a.X, tracking.ReadWrite, s)
	return launchChecked(call, s, &o, a.Mode == ModeRaise, a.Site, func(slot device.Ptr) error {
		return s.Launch(k, cfg, a.X.Ptr(), a.Idx.Ptr(), a.Src.Ptr(), uint64(rows), uint64(cols), uint64(a.M),
			uint64(a.N), uint64(a.Inner), slot)
	})
}

// canAtomicAdd reports whether the scatter adds elements of type t.
func canAtomicAdd(t dtype.DType) bool { return t.IsInt() || t == dtype.Float32 || t == dtype.Float64 }
