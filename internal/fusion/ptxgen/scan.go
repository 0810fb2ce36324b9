package ptxgen

import (
	"fmt"
	"slices"
	"strings"

	"github.com/gpuarr/gpuarr/device/dtype"
	"github.com/gpuarr/gpuarr/internal/fusion/expr"
)

// Scan kernels (expr.Scan): a single-pass scan with decoupled look-back.
//
// A block of scanBlock threads (scanWarps warps) takes tiles of
// expr.Scan.Tile elements from a counter in the state, one after another
// until none is left, so tiles start in order and a block only ever waits
// for tiles that running blocks hold. A block asks for its next tile once
// the current one's inclusive prefix is published (the answer arrives
// while it stores the tile's elements), not earlier: a tile taken long
// before it starts keeps every later tile's look-back waiting for it.
// Warp w of the tile owns its 32·items elements (items = tile/scanBlock)
// as items rounds of 32
// consecutive ones (coalesced). It first computes every round's values
// (the program; straight-line code, so all the tile's loads are in flight
// at once), then scans each round on its own with shfl.sync.up (a
// compaction counts its flags with a ballot and popc instead) and carries
// the rounds' totals in order. Warp totals go through shared memory to
// warp 0, which scans them, publishes the tile's aggregate, looks back
// over the predecessors' descriptors 32 at a time (each lane one tile,
// combining aggregates up to the first inclusive prefix) and publishes
// the tile's inclusive prefix. Each warp then adds its prefix and writes
// its elements. Rows: each value carries a row-start flag and values
// combine as segmented pairs (a flag on the right keeps the right value),
// so rows of any length share the tiles; a look-back stops at the first
// row start too. A single row of 4- or 8-byte values takes the transposed
// path instead (blockedScan below): each lane scans consecutive elements
// in registers and the warp scan runs once per lane, not per element.
//
// A descriptor is one 16-byte {status, value} word stored and loaded
// whole (see lookBack), so the look-back needs no fence.
const (
	scanBlock = 256
	scanWarps = scanBlock / 32
)

// GenerateScan returns the module of scan s over program p (see
// expr.Scan): header, math functions, one .entry named s.EntryName(p).
func GenerateScan(p *expr.Program, s expr.Scan, header string) (string, error) {
	if err := s.Validate(p); err != nil {
		return "", fmt.Errorf("ptxgen: %w", err)
	}
	g := newGen(p)
	if s.Op == expr.ScanCompact {
		g.markUsed(int(s.Flag))
	}
	sg := &scanGen{gen: g, s: s, vt: p.ValueType(), acc: expr.ScanAcc(s.Op, p.ValueType()), tile: s.Tile(p)}
	sg.items = sg.tile / scanBlock
	sg.kernel()
	var b strings.Builder
	if err := g.writePrelude(&b, header, s.EntryName(p)); err != nil {
		return "", err
	}
	g.writeNamedEntry(&b, s.EntryName(p), s.Params(p), fmt.Sprintf("%s (exclusive %t, segmented %t, strided out %t, positions %t)\n%s",
		s.Op, s.Exclusive, s.Segmented, s.StridedOut, s.Positions, p))
	return b.String(), nil
}

// markUsed marks instruction i and what it reads as used (a compaction's
// flag), and the inputs they read.
func (g *gen) markUsed(i int) {
	if g.used[i] {
		return
	}
	g.used[i] = true
	in := g.p.Code[i]
	for _, a := range []int32{in.A, in.B, in.C}[:in.Op.Arity()] {
		g.markUsed(int(a))
	}
	if in.Op == expr.OpInput || in.Op == expr.OpRandom {
		g.usesIn[in.Aux] = true
	}
}

// writeNamedEntry is writeEntry with the entry's name and parameters given.
func (g *gen) writeNamedEntry(b *strings.Builder, name string, params []expr.Param, comment string) {
	for _, s := range g.shared {
		fmt.Fprintf(b, "\n%s", s)
	}
	fmt.Fprintf(b, "\n// %s\n.visible .entry %s(\n", strings.ReplaceAll(strings.TrimSpace(comment), "\n", "\n// "), name)
	for i, prm := range params {
		sep := ","
		if i == len(params)-1 {
			sep = ""
		}
		fmt.Fprintf(b, "\t.param .%s %s%s\n", paramPTX(prm.T), prm.Name, sep)
	}
	b.WriteString(")\n{\n")
	for c := range numClasses {
		if g.nregs[c] > 0 {
			fmt.Fprintf(b, "\t.reg %s %s<%d>;\n", classDecl[c], classPrefix[c], g.nregs[c]+1)
		}
	}
	b.WriteString(g.body.String())
	b.WriteString("}\n")
}

type scanGen struct {
	*gen
	s       expr.Scan
	vt, acc dtype.DType
	tile    int    // elements per tile (expr.Scan.Tile)
	items   int    // elements per thread: tile / scanBlock
	lane    string // u32
	laneLt  string // %lanemask_lt, u32
}

// scanPair is a scanned value: a row-start flag (segmented scans only) and an
// accumulator.
type scanPair struct{ h, a string }

func (g *scanGen) segmented() bool { return g.s.Segmented }

// identity returns a fresh register holding the accumulator's identity.
func (g *scanGen) identity() string {
	r := g.regT(g.acc)
	g.emit("mov.%s %s, %s", bits(g.acc), r, g.identityImm())
	return r
}

func (g *scanGen) identityImm() string {
	id := expr.ScanIdentity(g.s.Op, g.acc)
	switch g.acc {
	case dtype.Float32:
		return fmt.Sprintf("0f%08X", uint32(id))
	case dtype.Float64:
		return fmt.Sprintf("0d%016X", id)
	}
	return intImmediate(g.acc, id)
}

// op combines two accumulators, left (earlier) and right.
func (g *scanGen) op(left, right string) string {
	t := g.acc
	switch g.s.Op {
	case expr.ScanSum, expr.ScanCompact:
		d := g.regT(t)
		if t.IsFloat() {
			g.emit("add.rn.%s %s, %s, %s", ty(t), d, left, right)
		} else {
			g.emit("add.%s %s, %s, %s", ty(t), d, left, right)
		}
		return d
	case expr.ScanProd:
		d := g.regT(t)
		if t.IsFloat() {
			g.emit("mul.rn.%s %s, %s, %s", ty(t), d, left, right)
		} else {
			g.emit("mul.lo.%s %s, %s, %s", ty(t), d, left, right)
		}
		return d
	}
	return g.minMax(g.s.Op == expr.ScanMin, t, left, right)
}

// arith is the scan's operation as one instruction's opcode (add or mul
// of the accumulator type), or "" for Max and Min.
func (g *scanGen) arith() string {
	t := g.acc
	switch g.s.Op {
	case expr.ScanSum, expr.ScanCompact:
		if t.IsFloat() {
			return "add.rn." + ty(t)
		}
		return "add." + ty(t)
	case expr.ScanProd:
		if t.IsFloat() {
			return "mul.rn." + ty(t)
		}
		return "mul.lo." + ty(t)
	}
	return ""
}

// combine returns left ⊕ right: with segments, a flagged right keeps its
// value. under, when not empty, guards the combination (else right stays).
func (g *scanGen) combine(left, right scanPair, under string) scanPair {
	if under != "" && !g.segmented() {
		if f := g.arith(); f != "" {
			// One predicated instruction, no select.
			out := scanPair{a: g.regT(g.acc)}
			g.emit("mov.%s %s, %s", bits(g.acc), out.a, right.a)
			g.emit("@%s %s %s, %s, %s", under, f, out.a, left.a, out.a)
			return out
		}
	}
	c := g.op(left.a, right.a)
	out := scanPair{a: g.regT(g.acc)}
	take := under
	if g.segmented() {
		nh := g.reg(clsPred)
		g.emit("not.pred %s, %s", nh, right.h)
		if take == "" {
			take = nh
		} else {
			t2 := g.reg(clsPred)
			g.emit("and.pred %s, %s, %s", t2, take, nh)
			take = t2
		}
		out.h = g.reg(clsPred)
		if under == "" {
			g.emit("or.pred %s, %s, %s", out.h, left.h, right.h)
		} else {
			lh := g.reg(clsPred)
			g.emit("and.pred %s, %s, %s", lh, left.h, under)
			g.emit("or.pred %s, %s, %s", out.h, lh, right.h)
		}
	}
	if take == "" {
		g.emit("mov.%s %s, %s", bits(g.acc), out.a, c)
	} else {
		g.emit("selp.%s %s, %s, %s, %s", bits(g.acc), out.a, c, right.a, take)
	}
	return out
}

// shflT shuffles r of type t (mode up, down or idx; arg the offset or the
// source lane) over the full warp. Predicates travel as 0/1.
func (g *scanGen) shflT(mode string, t dtype.DType, r string, arg string) string {
	c := "0"
	if mode != "up" {
		c = "31"
	}
	one := func(src string) string {
		d := g.reg(clsB32)
		g.emit("shfl.sync.%s.b32 %s, %s, %s, %s, -1", mode, d, src, arg, c)
		return d
	}
	switch {
	case t == dtype.Bool:
		u := g.reg(clsB32)
		g.emit("selp.u32 %s, 1, 0, %s", u, r)
		v := one(u)
		p := g.reg(clsPred)
		g.emit("setp.ne.u32 %s, %s, 0", p, v)
		return p
	case t.Size() == 8:
		lo, hi := g.reg(clsB32), g.reg(clsB32)
		g.emit("mov.b64 {%s, %s}, %s", lo, hi, r)
		lo2, hi2 := one(lo), one(hi)
		d := g.regT(t)
		g.emit("mov.b64 %s, {%s, %s}", d, lo2, hi2)
		return d
	case t == dtype.Float32:
		u := g.reg(clsB32)
		g.emit("mov.b32 %s, %s", u, r)
		v := one(u)
		d := g.regT(t)
		g.emit("mov.b32 %s, %s", d, v)
		return d
	}
	return one(r)
}

func (g *scanGen) shflPair(mode string, x scanPair, arg string) scanPair {
	y := scanPair{a: g.shflT(mode, g.acc, x.a, arg)}
	if g.segmented() {
		y.h = g.shflT(mode, dtype.Bool, x.h, arg)
	}
	return y
}

// toBits64 and fromBits64 move an accumulator to and from a u64 (the
// descriptors' words).
func (g *scanGen) toBits64(r string) string {
	d := g.reg(clsB64)
	switch {
	case g.acc.Size() == 8:
		g.emit("mov.b64 %s, %s", d, r)
	case g.acc == dtype.Float32:
		u := g.reg(clsB32)
		g.emit("mov.b32 %s, %s", u, r)
		g.emit("cvt.u64.u32 %s, %s", d, u)
	default:
		g.emit("cvt.u64.u32 %s, %s", d, r)
	}
	return d
}

func (g *scanGen) fromBits64(r string) string {
	d := g.regT(g.acc)
	switch {
	case g.acc.Size() == 8:
		g.emit("mov.b64 %s, %s", d, r)
	case g.acc == dtype.Float32:
		u := g.reg(clsB32)
		g.emit("cvt.u32.u64 %s, %s", u, r)
		g.emit("mov.b32 %s, %s", d, u)
	default:
		g.emit("cvt.u32.u64 %s, %s", d, r)
	}
	return d
}

// flagBits is a scanPair's flag as a u64 in the high half of a status word.
func (g *scanGen) flagBits(h string) string {
	if !g.segmented() {
		return "0"
	}
	d := g.reg(clsB64)
	g.emit("selp.b64 %s, 4294967296, 0, %s", d, h)
	return d
}

func (g *scanGen) falsePred() string {
	p := g.reg(clsPred)
	g.emit("setp.ne.u32 %s, %s, %s", p, g.lane, g.lane)
	return p
}

// kernel emits the whole scan.
func (g *scanGen) kernel() {
	param := func(name string) string {
		r := g.reg(clsB64)
		g.emit("ld.param.u64 %s, [%s]", r, name)
		return r
	}
	out, n, rowLen, inner, state, capacity := param("out"), param("n"), param("len"), param("inner"), param("state"), param("cap")
	g.emit("cvta.to.global.u64 %s, %s", out, out)
	g.emit("cvta.to.global.u64 %s, %s", state, state)
	g.shared = append(g.shared,
		".shared .align 8 .b8 gpuarr_scan_tile[8];",
		fmt.Sprintf(".shared .align 8 .b8 gpuarr_scan_wagg[%d];", 8*scanWarps),
		fmt.Sprintf(".shared .align 4 .b8 gpuarr_scan_wflag[%d];", 4*scanWarps),
		fmt.Sprintf(".shared .align 8 .b8 gpuarr_scan_wpre[%d];", 8*scanWarps),
		fmt.Sprintf(".shared .align 4 .b8 gpuarr_scan_wpflag[%d];", 4*scanWarps))
	g.loadParams()

	tid := g.reg(clsB32)
	g.emit("mov.u32 %s, %%tid.x", tid)
	g.lane, g.laneLt = g.reg(clsB32), g.reg(clsB32)
	warp := g.reg(clsB32)
	g.emit("and.b32 %s, %s, 31", g.lane, tid)
	g.emit("shr.u32 %s, %s, 5", warp, tid)
	g.emit("mov.u32 %s, %%lanemask_lt", g.laneLt)
	tid0, lane0 := g.reg(clsPred), g.reg(clsPred)
	g.emit("setp.eq.u32 %s, %s, 0", tid0, tid)
	g.emit("setp.eq.u32 %s, %s, 0", lane0, g.lane)

	// Tiles from the counter, one after another: the block takes its first
	// one here and each next one when the current one's inclusive prefix
	// is out (tid 0 asks after the look-back and stores the answer in
	// shared memory after the tile's elements, before the loop's last
	// barrier).
	tiles := g.reg(clsB64)
	g.emit("add.u64 %s, %s, %d", tiles, n, g.tile-1)
	g.emit("div.u64 %s, %s, %d", tiles, tiles, g.tile)
	tileSh := g.reg(clsB32)
	g.emit("mov.u32 %s, gpuarr_scan_tile", tileSh)
	t0, one := g.reg(clsB64), g.reg(clsB64)
	g.emit("mov.u64 %s, 1", one)
	g.emit("@%s atom.global.add.u64 %s, [%s], %s", tid0, t0, state, one)
	g.emit("@%s st.shared.u64 [%s], %s", tid0, tileSh, t0)
	g.emit("bar.sync 0")
	tileLoop, exit := g.label("scan_tile"), g.label("scan_exit")
	g.emitLabel(tileLoop)
	tile := g.reg(clsB64)
	g.emit("ld.shared.u64 %s, [%s]", tile, tileSh)
	over := g.reg(clsPred)
	g.emit("setp.ge.u64 %s, %s, %s", over, tile, tiles)
	g.emit("@%s bra %s", over, exit)
	next := g.reg(clsB64)

	// This warp's first element, and each round's.
	base := g.reg(clsB64)
	w64, l64 := g.reg(clsB64), g.reg(clsB64)
	g.emit("cvt.u64.u32 %s, %s", w64, warp)
	g.emit("cvt.u64.u32 %s, %s", l64, g.lane)
	g.emit("mul.lo.u64 %s, %s, %d", base, tile, g.tile)
	g.emit("mad.lo.u64 %s, %s, %d, %s", base, w64, 32*g.items, base)
	g.emit("add.u64 %s, %s, %s", base, base, l64)

	compact := g.s.Op == expr.ScanCompact
	type round struct {
		t     string   // element index (u64)
		valid string   // t < n
		start string   // a row starts here (segmented)
		a     string   // the element's accumulator (the identity past n)
		p     scanPair // scanned within the warp, earlier rounds combined
		value string   // the element's value (compactions)
		flag  string   // the element's flag (compactions)
		excl  string   // selected elements before this one in the round (compactions, u64)
		total scanPair // the round's total
	}
	var rounds []round
	var bt *blockedTile
	last := g.reg(clsB64)
	g.emit("sub.u64 %s, %s, 1", last, n)
	var carry scanPair
	if g.blocked() {
		bt = g.blockedScan(base, n, last, warp)
		carry = bt.total
	} else {
		rounds = make([]round, g.items)
		// Every round's value first, with no branch: an element past the end
		// computes the last element's value (its index clamped to n-1, so it
		// reads only what that element reads) and then counts as the identity.
		// All the tile's loads are then in flight together.
		for r := range rounds {
			rd := &rounds[r]
			rd.t, rd.valid = g.reg(clsB64), g.reg(clsPred)
			g.emit("add.u64 %s, %s, %d", rd.t, base, 32*r)
			g.emit("setp.lt.u64 %s, %s, %s", rd.valid, rd.t, n)
			ti := g.reg(clsB64)
			g.emit("min.u64 %s, %s, %s", ti, rd.t, last)
			idx := ti
			if !g.idx64 {
				idx = g.reg(clsB32)
				g.emit("cvt.u32.u64 %s, %s", idx, ti)
			}
			e := g.newElem(idx, nil)
			v := g.value(e)
			if compact {
				rd.value = g.regT(g.vt)
				g.emit("mov.%s %s, %s", bits(g.vt), rd.value, v)
				rd.flag = g.reg(clsPred)
				g.emit("and.pred %s, %s, %s", rd.flag, e.vals[g.s.Flag], rd.valid)
				continue
			}
			rd.a = g.regT(g.acc)
			g.emit("selp.%s %s, %s, %s, %s", bits(g.acc), rd.a, g.cast(g.vt, g.acc, v), g.identityImm(), rd.valid)
			if g.segmented() {
				// t mod len == 0, for elements in range.
				rem := g.reg(clsB64)
				g.emit("rem.u64 %s, %s, %s", rem, rd.t, rowLen)
				st := g.reg(clsPred)
				g.emit("setp.eq.u64 %s, %s, 0", st, rem)
				rd.start = g.reg(clsPred)
				g.emit("and.pred %s, %s, %s", rd.start, st, rd.valid)
			}
		}

		// Each round scanned on its own (independent chains), then the rounds'
		// totals carried in order. A compaction counts its flags with a ballot.
		for r := range rounds {
			rd := &rounds[r]
			if compact {
				m, lt, c := g.reg(clsB32), g.reg(clsB32), g.reg(clsB32)
				g.emit("vote.sync.ballot.b32 %s, %s, -1", m, rd.flag)
				g.emit("and.b32 %s, %s, %s", lt, m, g.laneLt)
				g.emit("popc.b32 %s, %s", c, lt)
				rd.excl = g.reg(clsB64)
				g.emit("cvt.u64.u32 %s, %s", rd.excl, c)
				tc := g.reg(clsB32)
				g.emit("popc.b32 %s, %s", tc, m)
				rd.total = scanPair{a: g.reg(clsB64)}
				g.emit("cvt.u64.u32 %s, %s", rd.total.a, tc)
				continue
			}
			p := scanPair{a: rd.a, h: rd.start}
			for d := 1; d < 32; d *= 2 {
				o := g.shflPair("up", p, fmt.Sprint(d))
				in := g.reg(clsPred)
				g.emit("setp.ge.u32 %s, %s, %d", in, g.lane, d)
				p = g.combine(o, p, in)
			}
			rd.p = p
			rd.total = g.shflPair("idx", p, "31")
		}
		// carry: the warp's rounds before r combined; then the warp's total.
		carry = rounds[0].total
		for r := 1; r < len(rounds); r++ {
			rd := &rounds[r]
			if compact {
				g.emit("add.u64 %s, %s, %s", rd.excl, rd.excl, carry.a)
			} else {
				rd.p = g.combine(carry, rd.p, "")
			}
			carry = g.combine(carry, rd.total, "")
		}
	}

	// Warp totals to shared memory; warp 0 scans them and looks back.
	wagg, wflag := g.reg(clsB32), g.reg(clsB32)
	g.emit("mov.u32 %s, gpuarr_scan_wagg", wagg)
	g.emit("mov.u32 %s, gpuarr_scan_wflag", wflag)
	wpre, wpflag := g.reg(clsB32), g.reg(clsB32)
	g.emit("mov.u32 %s, gpuarr_scan_wpre", wpre)
	g.emit("mov.u32 %s, gpuarr_scan_wpflag", wpflag)
	slot8 := func(arr, i string) string {
		o, a := g.reg(clsB32), g.reg(clsB32)
		g.emit("shl.b32 %s, %s, 3", o, i)
		g.emit("add.u32 %s, %s, %s", a, arr, o)
		return a
	}
	slot4 := func(arr, i string) string {
		o, a := g.reg(clsB32), g.reg(clsB32)
		g.emit("shl.b32 %s, %s, 2", o, i)
		g.emit("add.u32 %s, %s, %s", a, arr, o)
		return a
	}
	g.emit("@%s st.shared.u64 [%s], %s", lane0, slot8(wagg, warp), g.toBits64(carry.a))
	if g.segmented() {
		fu := g.reg(clsB32)
		g.emit("selp.u32 %s, 1, 0, %s", fu, carry.h)
		g.emit("@%s st.shared.u32 [%s], %s", lane0, slot4(wflag, warp), fu)
	}
	g.emit("bar.sync 0")

	notWarp0 := g.reg(clsPred)
	g.emit("setp.ne.u32 %s, %s, 0", notWarp0, warp)
	afterLB := g.label("scan_after_lookback")
	g.emit("@%s bra %s", notWarp0, afterLB)
	{
		inW := g.reg(clsPred)
		g.emit("setp.lt.u32 %s, %s, %d", inW, g.lane, scanWarps)
		x := scanPair{a: g.identity()}
		bitsR := g.reg(clsB64)
		g.emit("mov.b64 %s, 0", bitsR)
		g.emit("@%s ld.shared.u64 %s, [%s]", inW, bitsR, slot8(wagg, g.lane))
		ga := g.fromBits64(bitsR)
		g.emit("@%s mov.%s %s, %s", inW, bits(g.acc), x.a, ga)
		if g.segmented() {
			fu := g.reg(clsB32)
			g.emit("mov.u32 %s, 0", fu)
			g.emit("@%s ld.shared.u32 %s, [%s]", inW, fu, slot4(wflag, g.lane))
			x.h = g.reg(clsPred)
			g.emit("setp.ne.u32 %s, %s, 0", x.h, fu)
		}
		incl := x
		for d := 1; d < scanWarps; d *= 2 {
			o := g.shflPair("up", incl, fmt.Sprint(d))
			in := g.reg(clsPred)
			g.emit("setp.ge.u32 %s, %s, %d", in, g.lane, d)
			incl = g.combine(o, incl, in)
		}
		excl := g.shflPair("up", incl, "1")
		id := scanPair{a: g.identity()}
		if g.segmented() {
			id.h = g.falsePred()
		}
		g.emit("@%s mov.%s %s, %s", lane0, bits(g.acc), excl.a, id.a)
		if g.segmented() {
			g.emit("@%s mov.pred %s, %s", lane0, excl.h, id.h)
		}
		tileAgg := g.shflPair("idx", incl, fmt.Sprint(scanWarps-1))

		prefix := g.lookBack(state, tile, tileAgg, lane0)
		g.emit("@%s atom.global.add.u64 %s, [%s], %s", tid0, next, state, one)
		wp := g.combine(prefix, excl, "")
		g.emit("@%s st.shared.u64 [%s], %s", inW, slot8(wpre, g.lane), g.toBits64(wp.a))
		if g.segmented() {
			fu := g.reg(clsB32)
			g.emit("selp.u32 %s, 1, 0, %s", fu, wp.h)
			g.emit("@%s st.shared.u32 [%s], %s", inW, slot4(wpflag, g.lane), fu)
		}
	}
	g.emitLabel(afterLB)
	g.emit("bar.sync 0")

	// This warp's prefix, then the elements.
	pb := g.reg(clsB64)
	g.emit("ld.shared.u64 %s, [%s]", pb, slot8(wpre, warp))
	P := scanPair{a: g.fromBits64(pb)}
	if g.segmented() {
		fu := g.reg(clsB32)
		g.emit("ld.shared.u32 %s, [%s]", fu, slot4(wpflag, warp))
		P.h = g.reg(clsPred)
		g.emit("setp.ne.u32 %s, %s, 0", P.h, fu)
	}
	if bt != nil {
		g.blockedStore(bt, P, out, base, n)
	} else {
		var prevLast scanPair
		for r := range rounds {
			rd := &rounds[r]
			// The element's index again (cheaper than keeping it live).
			rd.t, rd.valid = g.reg(clsB64), g.reg(clsPred)
			g.emit("add.u64 %s, %s, %d", rd.t, base, 32*r)
			g.emit("setp.lt.u64 %s, %s, %s", rd.valid, rd.t, n)
			if compact {
				k := g.reg(clsB64)
				g.emit("add.u64 %s, %s, %s", k, P.a, rd.excl)
				g.storeSelected(out, capacity, k, rd.t, rd.value, rd.flag)
				continue
			}
			I := g.combine(P, rd.p, "")
			res := I.a
			if g.s.Exclusive {
				up := g.shflPair("up", I, "1")
				from := P
				if r > 0 {
					from = prevLast
				}
				g.emit("@%s mov.%s %s, %s", lane0, bits(g.acc), up.a, from.a)
				res = up.a
				if g.segmented() {
					// At a row start the exclusive value is the identity.
					id := g.identity()
					sel := g.regT(g.acc)
					g.emit("selp.%s %s, %s, %s, %s", bits(g.acc), sel, id, res, rd.start)
					res = sel
				}
				prevLast = g.shflPair("idx", I, "31")
			}
			v := g.cast(g.acc, g.vt, res)
			off := rd.t
			if g.s.StridedOut {
				// t = (o·inner + i)·len + j  →  (o·len + j)·inner + i
				row, j, o, i := g.reg(clsB64), g.reg(clsB64), g.reg(clsB64), g.reg(clsB64)
				g.emit("div.u64 %s, %s, %s", row, rd.t, rowLen)
				g.emit("mul.lo.u64 %s, %s, %s", j, row, rowLen)
				g.emit("sub.u64 %s, %s, %s", j, rd.t, j)
				g.emit("div.u64 %s, %s, %s", o, row, inner)
				g.emit("mul.lo.u64 %s, %s, %s", i, o, inner)
				g.emit("sub.u64 %s, %s, %s", i, row, i)
				off = g.reg(clsB64)
				g.emit("mad.lo.u64 %s, %s, %s, %s", off, o, rowLen, j)
				g.emit("mad.lo.u64 %s, %s, %s, %s", off, off, inner, i)
			}
			a := g.addrAt(out, off, g.vt.Size())
			g.emit("@%s st.global.%s [%s], %s", rd.valid, memType(g.vt), a, v)
		}
	}
	g.emit("@%s st.shared.u64 [%s], %s", tid0, tileSh, next)
	g.emit("bar.sync 0")
	g.emit("bra %s", tileLoop)
	g.emitLabel(exit)
	g.emit("ret")
}

// addrAt is base + i·size for a u64 index.
func (g *scanGen) addrAt(base, i string, size int) string {
	off, a := g.reg(clsB64), g.reg(clsB64)
	g.emit("mul.lo.u64 %s, %s, %d", off, i, size)
	g.emit("add.s64 %s, %s, %s", a, base, off)
	return a
}

// storeSelected writes a selected element (flag) at its exclusive count k
// when k < cap: its value, or its position t.
func (g *scanGen) storeSelected(out, capacity, k, t, value, flag string) {
	inCap, ok := g.reg(clsPred), g.reg(clsPred)
	g.emit("setp.lt.u64 %s, %s, %s", inCap, k, capacity)
	g.emit("and.pred %s, %s, %s", ok, flag, inCap)
	if g.s.Positions {
		a := g.addrAt(out, k, 8)
		g.emit("@%s st.global.u64 [%s], %s", ok, a, t)
		return
	}
	a := g.addrAt(out, k, g.vt.Size())
	g.emit("@%s st.global.%s [%s], %s", ok, memType(g.vt), a, value)
}

// lookBack (warp 0, every lane) publishes the tile's aggregate, finds its
// exclusive prefix from the predecessors' descriptors and publishes its
// inclusive prefix; it returns the prefix (the same in every lane).
//
// A descriptor is one 16-byte word, {status, value}, stored and loaded
// whole (st/ld.volatile.v2.u64 at a 16-byte aligned address, one memory
// transaction, as CUB's tile status words for 8-byte values are): a
// reader sees a status with its own value, so no fence orders them.
func (g *scanGen) lookBack(state, tile string, agg scanPair, lane0 string) scanPair {
	desc := func(t string) string {
		a := g.reg(clsB64)
		g.emit("mad.lo.u64 %s, %s, %d, %s", a, t, expr.ScanDescBytes, state)
		g.emit("add.u64 %s, %s, %d", a, a, expr.ScanHeaderBytes)
		return a
	}
	publish := func(d string, v scanPair, status int) {
		sw := g.reg(clsB64)
		if g.segmented() {
			g.emit("or.b64 %s, %s, %d", sw, g.flagBits(v.h), status)
		} else {
			g.emit("mov.b64 %s, %d", sw, status)
		}
		g.emit("@%s st.volatile.global.v2.u64 [%s], {%s, %s}", lane0, d, sw, g.toBits64(v.a))
	}
	me := desc(tile)
	first := g.reg(clsPred)
	g.emit("setp.eq.u64 %s, %s, 0", first, tile)
	prefix := scanPair{a: g.identity()}
	if g.segmented() {
		prefix.h = g.falsePred()
	}
	done := g.label("lb_done")
	g.emit("@%s bra %s", first, done)
	publish(me, agg, 1)

	j := g.reg(clsB64)
	g.emit("sub.s64 %s, %s, 1", j, tile)
	l64 := g.reg(clsB64)
	g.emit("cvt.u64.u32 %s, %s", l64, g.lane)
	idBits := g.toBits64(g.identity())
	loop, spin := g.label("lb_loop"), g.label("lb_spin")
	g.emitLabel(loop)
	tj := g.reg(clsB64)
	g.emit("sub.s64 %s, %s, %s", tj, j, l64)
	neg := g.reg(clsPred)
	g.emit("setp.lt.s64 %s, %s, 0", neg, tj)
	d := g.reg(clsB64)
	g.emit("mad.lo.u64 %s, %s, %d, %s", d, tj, expr.ScanDescBytes, state)
	g.emit("add.u64 %s, %s, %d", d, d, expr.ScanHeaderBytes)
	sw, vb := g.reg(clsB64), g.reg(clsB64)
	g.emitLabel(spin)
	// Before the first tile: an empty inclusive prefix.
	g.emit("mov.b64 %s, 2", sw)
	g.emit("mov.b64 %s, %s", vb, idBits)
	g.emit("@!%s ld.volatile.global.v2.u64 {%s, %s}, [%s]", neg, sw, vb, d)
	st := g.reg(clsB64)
	g.emit("and.b64 %s, %s, 255", st, sw)
	ready, all := g.reg(clsPred), g.reg(clsPred)
	g.emit("setp.ne.u64 %s, %s, 0", ready, st)
	g.emit("vote.sync.all.pred %s, %s, -1", all, ready)
	g.emit("@!%s bra %s", all, spin)
	isInc := g.reg(clsPred)
	g.emit("setp.eq.u64 %s, %s, 2", isInc, st)
	x := scanPair{a: g.fromBits64(vb)}
	if g.segmented() {
		hi := g.reg(clsB64)
		g.emit("shr.u64 %s, %s, 32", hi, sw)
		x.h = g.reg(clsPred)
		g.emit("setp.ne.u64 %s, %s, 0", x.h, hi)
	}
	incMask := g.reg(clsB32)
	g.emit("vote.sync.ballot.b32 %s, %s, -1", incMask, isInc)
	// Lanes past the nearest inclusive prefix do not count.
	nearer, beyond := g.reg(clsB32), g.reg(clsPred)
	g.emit("and.b32 %s, %s, %s", nearer, incMask, g.laneLt)
	g.emit("setp.ne.u32 %s, %s, 0", beyond, nearer)
	g.emit("@%s mov.%s %s, %s", beyond, bits(g.acc), x.a, g.identityImm())
	if g.segmented() {
		g.emit("@%s mov.pred %s, 0", beyond, x.h)
	}
	// Ordered reduction: lane l holds tile j-l; older tiles (higher
	// lanes) combine on the left.
	for dd := 1; dd < 32; dd *= 2 {
		o := g.shflPair("down", x, fmt.Sprint(dd))
		in := g.reg(clsPred)
		g.emit("setp.lt.u32 %s, %s, %d", in, g.lane, 32-dd)
		x = g.combine(o, x, in)
	}
	w := g.shflPair("idx", x, "0")
	np := g.combine(w, prefix, "")
	g.emit("mov.%s %s, %s", bits(g.acc), prefix.a, np.a)
	stop := g.reg(clsPred)
	g.emit("setp.ne.u32 %s, %s, 0", stop, incMask)
	if g.segmented() {
		g.emit("mov.pred %s, %s", prefix.h, np.h)
		g.emit("or.pred %s, %s, %s", stop, stop, prefix.h)
	}
	g.emit("sub.s64 %s, %s, 32", j, j)
	g.emit("@!%s bra %s", stop, loop)

	g.emitLabel(done)
	publish(me, g.combine(prefix, agg, ""), 2)
	return prefix
}

// The transposed path (blocked): a scan of one row whose values are 4 or
// 8 bytes. Each warp computes its values as usual (rounds of 32
// consecutive elements, coalesced) and passes them through shared memory
// so that each lane holds items consecutive ones; the lane scans them
// in registers, one warp scan combines the lanes' totals, and the results
// go back through shared memory to leave in coalesced rounds. The warp
// scan then runs once per items elements instead of once per element.
//
// Each warp owns a region of shared memory: 32·items words of the
// value type, one word of padding after every 32 (4-byte values) or 16
// (8-byte values) words, so that both the round-wise and the lane-wise
// accesses hit distinct banks.

// blockedTile is a warp's part of a tile on the transposed path: each
// lane's items results before the warp's prefix, and the warp's
// total.
type blockedTile struct {
	r      []string
	total  scanPair
	region string // u32: the warp's shared region
	rounds string // u32: the lane's word of round 0 in the region
	own    string // u32: the lane's first own word in the region
}

func (g *scanGen) blocked() bool { return g.s.Wide(g.p) }

// xposeShift is log2 of the words between paddings; xposeRegion is a
// warp's region in bytes.
func (g *scanGen) xposeShift() int {
	if g.vt.Size() == 8 {
		return 4
	}
	return 5
}

func (g *scanGen) xposeRegion() int {
	words := 32 * g.items
	return (words + words>>g.xposeShift()) * g.vt.Size()
}

// xposeBases sets the lane's two addresses in the warp's region: of word
// lane (its rounds' words follow at xposeRound offsets) and of word
// lane·items (its own elements' words follow, consecutive).
func (g *scanGen) xposeBases(bt *blockedTile) {
	sh, size := g.xposeShift(), g.vt.Size()
	bt.rounds, bt.own = g.reg(clsB32), g.reg(clsB32)
	for _, c := range []struct {
		d    string
		mult int
	}{{bt.rounds, 1}, {bt.own, g.items}} {
		w, p := g.reg(clsB32), g.reg(clsB32)
		g.emit("mul.lo.u32 %s, %s, %d", w, g.lane, c.mult)
		g.emit("shr.u32 %s, %s, %d", p, w, sh)
		g.emit("add.u32 %s, %s, %s", p, p, w)
		g.emit("mad.lo.u32 %s, %s, %d, %s", c.d, p, size, bt.region)
	}
}

// xposeRound is the byte offset of round r's word from the lane's
// (32·r more words, and their padding: 32·r is a multiple of the
// padding's period).
func (g *scanGen) xposeRound(r int) int {
	w := 32 * r
	return (w + w>>g.xposeShift()) * g.vt.Size()
}

// blockedScan computes the warp's values (base: the lane's first element,
// u64; last = n-1), transposes them and scans them within the warp.
func (g *scanGen) blockedScan(base, n, last, warp string) *blockedTile {
	const name = "gpuarr_scan_xpose"
	if !slices.ContainsFunc(g.shared, func(s string) bool { return strings.Contains(s, name) }) {
		g.shared = append(g.shared, fmt.Sprintf(".shared .align 8 .b8 %s[%d];", name, scanWarps*g.xposeRegion()))
	}
	bt := &blockedTile{region: g.reg(clsB32)}
	g.emit("mov.u32 %s, %s", bt.region, name)
	g.emit("mad.lo.u32 %s, %s, %d, %s", bt.region, warp, g.xposeRegion(), bt.region)
	g.xposeBases(bt)
	mt, size := memType(g.vt), g.vt.Size()

	// The warp's previous tile is out of the region.
	g.emit("bar.warp.sync -1")
	for r := range g.items {
		t, ti := g.reg(clsB64), g.reg(clsB64)
		g.emit("add.u64 %s, %s, %d", t, base, 32*r)
		g.emit("min.u64 %s, %s, %s", ti, t, last)
		idx := ti
		if !g.idx64 {
			idx = g.reg(clsB32)
			g.emit("cvt.u32.u64 %s, %s", idx, ti)
		}
		v := g.value(g.newElem(idx, nil))
		g.emit("st.shared.%s [%s+%d], %s", mt, bt.rounds, g.xposeRound(r), v)
	}
	g.emit("bar.warp.sync -1")

	// Lane l's elements: the warp's first + l·items + j.
	first, l64 := g.reg(clsB64), g.reg(clsB64)
	g.emit("cvt.u64.u32 %s, %s", l64, g.lane)
	g.emit("mad.lo.u64 %s, %s, %d, %s", first, l64, g.items-1, base)
	s := make([]scanPair, g.items)
	for j := range g.items {
		v := g.regT(g.vt)
		g.emit("ld.shared.%s %s, [%s+%d]", mt, v, bt.own, size*j)
		e, valid := g.reg(clsB64), g.reg(clsPred)
		g.emit("add.u64 %s, %s, %d", e, first, j)
		g.emit("setp.lt.u64 %s, %s, %s", valid, e, n)
		a := g.regT(g.acc)
		g.emit("selp.%s %s, %s, %s, %s", bits(g.acc), a, g.cast(g.vt, g.acc, v), g.identityImm(), valid)
		s[j] = scanPair{a: a}
		if j > 0 {
			s[j] = g.combine(s[j-1], s[j], "")
		}
	}
	incl := s[g.items-1]
	for d := 1; d < 32; d *= 2 {
		o := g.shflPair("up", incl, fmt.Sprint(d))
		in := g.reg(clsPred)
		g.emit("setp.ge.u32 %s, %s, %d", in, g.lane, d)
		incl = g.combine(o, incl, in)
	}
	bt.total = g.shflPair("idx", incl, "31")
	ex := g.shflPair("up", incl, "1")
	lane0 := g.reg(clsPred)
	g.emit("setp.eq.u32 %s, %s, 0", lane0, g.lane)
	g.emit("@%s mov.%s %s, %s", lane0, bits(g.acc), ex.a, g.identityImm())
	bt.r = make([]string, g.items)
	for j := range g.items {
		switch {
		case !g.s.Exclusive:
			bt.r[j] = g.combine(ex, s[j], "").a
		case j == 0:
			bt.r[j] = ex.a
		default:
			bt.r[j] = g.combine(ex, s[j-1], "").a
		}
	}
	return bt
}

// blockedStore combines the warp's prefix P with the lanes' results and
// writes them, back through shared memory, in coalesced rounds.
func (g *scanGen) blockedStore(bt *blockedTile, P scanPair, out, base, n string) {
	mt, size := memType(g.vt), g.vt.Size()
	for j := range g.items {
		o := g.combine(P, scanPair{a: bt.r[j]}, "")
		g.emit("st.shared.%s [%s+%d], %s", mt, bt.own, size*j, g.cast(g.acc, g.vt, o.a))
	}
	g.emit("bar.warp.sync -1")
	for r := range g.items {
		v := g.regT(g.vt)
		g.emit("ld.shared.%s %s, [%s+%d]", mt, v, bt.rounds, g.xposeRound(r))
		t, valid := g.reg(clsB64), g.reg(clsPred)
		g.emit("add.u64 %s, %s, %d", t, base, 32*r)
		g.emit("setp.lt.u64 %s, %s, %s", valid, t, n)
		g.emit("@%s st.global.%s [%s], %s", valid, mt, g.addrAt(out, t, g.vt.Size()), v)
	}
}
