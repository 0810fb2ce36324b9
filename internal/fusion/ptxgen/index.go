package ptxgen

import (
	"fmt"

	"github.com/gpuarr/gpuarr/device/dtype"
	"github.com/gpuarr/gpuarr/internal/fusion/expr"
)

// elem is the code generation state of one element: its flat index and
// what has been computed for it so far.
type elem struct {
	i     string         // flat index, index width
	lanes map[int]string // input values already loaded (vector path)
	vals  []string       // instruction results
	idx   []string       // i decomposed over dims, once needed
	offs  map[int]string // contiguous byte offset per element size
	loads map[int]string // input values loaded for this element
}

func (g *gen) newElem(i string, lanes map[int]string) *elem {
	return &elem{i: i, lanes: lanes, vals: make([]string, len(g.p.Code)), offs: map[int]string{}, loads: map[int]string{}}
}

// value emits the program for e and returns the register of its value.
func (g *gen) value(e *elem) string {
	for i, in := range g.p.Code {
		switch {
		case !g.used[i]:
		case g.invariant[i]:
			e.vals[i] = g.inv[i]
		case in.Op == expr.OpInput:
			e.vals[i] = g.input(e, int(in.Aux))
		case in.Op == expr.OpRandom:
			e.vals[i] = g.random(e, int(in.Aux))
		case in.Op == expr.OpIota:
			e.vals[i] = g.iota(e, int(in.Aux))
		default:
			e.vals[i] = g.op(in, e.vals)
		}
	}
	return e.vals[len(e.vals)-1]
}

// byteOff is i × size as a u64 byte offset.
func (g *gen) byteOff(e *elem, size int) string {
	if r, ok := e.offs[size]; ok {
		return r
	}
	r := g.reg(clsB64)
	if g.idx64 {
		g.emit("shl.b64 %s, %s, %d", r, e.i, log2(size))
	} else {
		g.emit("mul.wide.u32 %s, %s, %d", r, e.i, size)
	}
	e.offs[size] = r
	return r
}

// decompose splits e's flat index over dims, row-major (last fastest).
func (g *gen) decompose(e *elem) []string {
	if e.idx != nil || g.p.Rank == 0 {
		return e.idx
	}
	r := g.p.Rank
	e.idx = make([]string, r)
	it := g.it()
	rem := e.i
	for d := r - 1; d > 0; d-- {
		q, prod, id := g.idxReg(), g.idxReg(), g.idxReg()
		g.emit("div.%s %s, %s, %s", it, q, rem, g.dims[d])
		g.emit("mul.lo.%s %s, %s, %s", it, prod, q, g.dims[d])
		g.emit("sub.%s %s, %s, %s", it, id, rem, prod)
		e.idx[d] = id
		rem = q
	}
	e.idx[0] = rem
	return e.idx
}

// elemOffset is Σ idx_d·stride_d of input in, a signed element offset in
// the index width.
func (g *gen) elemOffset(e *elem, in int) string { return g.offsetBy(e, g.strides[in]) }

// offsetBy is Σ idx_d·strides_d for e, a signed element offset in the
// index width.
func (g *gen) offsetBy(e *elem, strides []string) string {
	idx := g.decompose(e)
	st := "s32"
	if g.idx64 {
		st = "s64"
	}
	off := g.idxReg()
	if len(idx) == 0 {
		g.emit("mov.%s %s, 0", st, off)
		return off
	}
	g.emit("mul.lo.%s %s, %s, %s", st, off, idx[0], strides[0])
	for d := 1; d < len(idx); d++ {
		next := g.idxReg()
		g.emit("mad.lo.%s %s, %s, %s, %s", st, next, idx[d], strides[d], off)
		off = next
	}
	return off
}

// iota is Iota input in's value for e: its element offset as an s64.
func (g *gen) iota(e *elem, in int) string {
	off := g.elemOffset(e, in)
	if g.idx64 {
		return off
	}
	r := g.reg(clsB64)
	g.emit("cvt.s64.s32 %s, %s", r, off)
	return r
}

// storeStrided writes r (of type t) to out's element for e through the
// out strides.
func (g *gen) storeStrided(base string, e *elem, t dtype.DType, r string) {
	eo := g.offsetBy(e, g.outStrides)
	off := g.reg(clsB64)
	if g.idx64 {
		g.emit("mul.lo.s64 %s, %s, %d", off, eo, t.Size())
	} else {
		g.emit("mul.wide.s32 %s, %s, %d", off, eo, t.Size())
	}
	a := g.reg(clsB64)
	g.emit("add.s64 %s, %s, %s", a, base, off)
	g.stValue(a, t, r)
}

// addr is the global address of input in's element for e.
func (g *gen) addr(e *elem, in int) string {
	t := g.p.Inputs[in].T
	var off string
	if g.p.Inputs[in].Strided {
		eo := g.elemOffset(e, in)
		off = g.reg(clsB64)
		if g.idx64 {
			g.emit("mul.lo.s64 %s, %s, %d", off, eo, t.Size())
		} else {
			g.emit("mul.wide.s32 %s, %s, %d", off, eo, t.Size())
		}
	} else {
		off = g.byteOff(e, t.Size())
	}
	a := g.reg(clsB64)
	g.emit("add.s64 %s, %s, %s", a, g.base[in], off)
	return a
}

// input is input in's value for e (loaded once per element).
func (g *gen) input(e *elem, in int) string {
	if r, ok := e.lanes[in]; ok {
		return r
	}
	if r, ok := e.loads[in]; ok {
		return r
	}
	r := g.load(g.p.Inputs[in].T, g.addr(e, in))
	e.loads[in] = r
	return r
}

// random calls the Philox generator of Random input in with counter =
// the input's element offset for e.
func (g *gen) random(e *elem, in int) string {
	src := g.p.Inputs[in]
	ctr := g.elemOffset(e, in)
	if !g.idx64 {
		c64 := g.reg(clsB64)
		g.emit("cvt.s64.s32 %s, %s", c64, ctr)
		ctr = c64
	}
	kind := "uniform"
	if src.Normal {
		kind = "normal"
	}
	return g.call(fmt.Sprintf("rand_%s_%s", kind, ty(src.T)), src.T, g.base[in], ctr, g.stream[in])
}

// store writes r (of type t) to the element of array base at element index
// i (index width).
func (g *gen) store(base, i string, t dtype.DType, r string) {
	off := g.reg(clsB64)
	if g.idx64 {
		g.emit("shl.b64 %s, %s, %d", off, i, log2(t.Size()))
	} else {
		g.emit("mul.wide.u32 %s, %s, %d", off, i, t.Size())
	}
	a := g.reg(clsB64)
	g.emit("add.s64 %s, %s, %s", a, base, off)
	g.stValue(a, t, r)
}

// vecSuffix is ".v2"/".v4" for n > 1 elements, "" for one.
func vecSuffix(n int) string {
	if n == 1 {
		return ""
	}
	return fmt.Sprintf(".v%d", n)
}

// regList is "{a, b, …}" for several registers, the register for one.
func regList(rs []string) string {
	if len(rs) == 1 {
		return rs[0]
	}
	s := "{"
	for i, r := range rs {
		if i > 0 {
			s += ", "
		}
		s += r
	}
	return s + "}"
}

// vecLoad loads g.vec consecutive elements of every used input at vector
// index v (elements v·V … v·V+V-1) and returns, per lane, the loaded
// registers by input.
func (g *gen) vecLoad(v string) []map[int]string {
	lanes := make([]map[int]string, g.vec)
	for j := range lanes {
		lanes[j] = map[int]string{}
	}
	offs := map[int]string{}
	for in, src := range g.p.Inputs {
		if !g.usesIn[in] {
			continue
		}
		size := src.T.Size()
		off, ok := offs[size]
		if !ok {
			off = g.vecByteOff(v, size)
			offs[size] = off
		}
		a := g.reg(clsB64)
		g.emit("add.s64 %s, %s, %s", a, g.base[in], off)
		if size == 2 {
			for j, r := range g.vecLoad16(src.T, a) {
				lanes[j][in] = r
			}
			continue
		}
		rs := make([]string, g.vec)
		for j := range rs {
			rs[j] = g.regT(src.T)
			lanes[j][in] = rs[j]
		}
		g.emit("ld.global%s.%s %s, [%s]", vecSuffix(g.vec), memType(src.T), regList(rs), a)
	}
	return lanes
}

// vecLoad16 loads g.vec 2-byte elements of type t at a as g.vec/2 32-bit
// words (the low half of each word is the lower element: little-endian)
// and returns them one per register, as a scalar load would leave them:
// zero-extended, or sign-extended for Int16.
func (g *gen) vecLoad16(t dtype.DType, a string) []string {
	ws := make([]string, g.vec/2)
	for k := range ws {
		ws[k] = g.reg(clsB32)
	}
	g.emit("ld.global%s.b32 %s, [%s]", vecSuffix(len(ws)), regList(ws), a)
	shr := "shr.u32"
	if t == dtype.Int16 {
		shr = "shr.s32"
	}
	rs := make([]string, 0, g.vec)
	for _, w := range ws {
		lo, hi := g.reg(clsB32), g.reg(clsB32)
		if t == dtype.Int16 {
			g.emit("cvt.s32.s16 %s, %s", lo, w)
		} else {
			g.emit("and.b32 %s, %s, 65535", lo, w)
		}
		g.emit("%s %s, %s, 16", shr, hi, w)
		rs = append(rs, lo, hi)
	}
	return rs
}

// vecStore writes the g.vec values rs of type t at a with one vector
// store; 2-byte values are packed in pairs into 32-bit words, 1-byte
// values (bool, int8, uint8) by fours (two into one 16-bit store when
// g.vec is 2). With pred, the store is predicated on it.
func (g *gen) vecStore(a string, t dtype.DType, rs []string, pred string) {
	st := "st"
	if pred != "" {
		st = "@" + pred + " st"
	}
	switch t.Size() {
	case 1:
		g.vecStore8(a, t, rs, st)
		return
	case 2:
	default:
		g.emit("%s.global%s.%s [%s], %s", st, vecSuffix(g.vec), memType(t), a, regList(rs))
		return
	}
	ws := make([]string, g.vec/2)
	for k := range ws {
		lo, hi, w := g.reg(clsB32), g.reg(clsB32), g.reg(clsB32)
		g.emit("and.b32 %s, %s, 65535", lo, rs[2*k])
		g.emit("shl.b32 %s, %s, 16", hi, rs[2*k+1])
		g.emit("or.b32 %s, %s, %s", w, lo, hi)
		ws[k] = w
	}
	g.emit("%s.global%s.b32 [%s], %s", st, vecSuffix(len(ws)), a, regList(ws))
}

// vecStore8 packs the 1-byte values rs (predicates for bool, 32-bit
// registers otherwise) into 32-bit words, byte j of a word from value j,
// and stores them with one store.
func (g *gen) vecStore8(a string, t dtype.DType, rs []string, st string) {
	ws := make([]string, (len(rs)+3)/4)
	for k := range ws {
		var w string
		for j := 0; j < 4 && 4*k+j < len(rs); j++ {
			r, b := rs[4*k+j], g.reg(clsB32)
			if t == dtype.Bool {
				g.emit("selp.b32 %s, %d, 0, %s", b, 1<<(8*j), r)
			} else {
				g.emit("and.b32 %s, %s, 255", b, r)
				if j > 0 {
					g.emit("shl.b32 %s, %s, %d", b, b, 8*j)
				}
			}
			if w == "" {
				w = b
				continue
			}
			o := g.reg(clsB32)
			g.emit("or.b32 %s, %s, %s", o, w, b)
			w = o
		}
		ws[k] = w
	}
	if len(rs) == 2 {
		g.emit("%s.global.u16 [%s], %s", st, a, ws[0])
		return
	}
	g.emit("%s.global%s.b32 [%s], %s", st, vecSuffix(len(ws)), a, regList(ws))
}

// vecByteOff is v × V × size as a u64 byte offset.
func (g *gen) vecByteOff(v string, size int) string {
	r := g.reg(clsB64)
	if g.idx64 {
		g.emit("shl.b64 %s, %s, %d", r, v, log2(size*g.vec))
	} else {
		g.emit("mul.wide.u32 %s, %s, %d", r, v, size*g.vec)
	}
	return r
}

// laneIndex is v·V + j in the index width, for positions and elements
// that need a flat index on the vector path.
func (g *gen) laneIndex(v string, j int) string {
	r := g.idxReg()
	g.emit("mad.lo.%s %s, %s, %d, %d", g.it(), r, v, g.vec, j)
	return r
}
