package kernels

import (
	"encoding/binary"
	"math/bits"

	"github.com/gpuarr/gpuarr/device"
	"github.com/gpuarr/gpuarr/device/dtype"
	"github.com/gpuarr/gpuarr/device/hostkernel"
	"github.com/gpuarr/gpuarr/internal/lifetime"
	"github.com/gpuarr/gpuarr/internal/tracking"
)

// TopK of one long line by radix selection, without sorting the line.
// The order is the sort's (keyOf: ascending keys are the sort order,
// NaNs last, Descending for the largest), ties broken by position, so the
// k picked elements are the k smallest (key, position) pairs and come out
// exactly as the first k of a stable sort.
//
//  1. Select passes (kTopKPass, phase 0), 8 bits of the key each, from
//     the top: each block counts, in shared memory, the digit of every
//     element whose higher key bits equal the prefix found so far, and
//     adds its counts to a global histogram; the last block to finish
//     scans the histogram and keeps the digit whose bucket holds the r-th
//     element (r: how many of the k are still to find there), so after
//     the last pass the prefix is K*, the k-th smallest key, and r how
//     many elements equal to K* are taken.
//  2. When fewer than all the elements equal to K* are taken, the same
//     passes over the positions of those elements (phase 1) find I*, the
//     position of the r-th of them.
//  3. Collect (kTopKCollect): every element with key < K*, or key = K*
//     and position ≤ I*, takes a slot by an atomic counter: exactly k.
//  4. Finish (kTopKFinish, one block): each candidate's rank among the k
//     by (key, position) is its place in the output.
//
// The state (topkStateBytes, zeroed before the first pass) holds the
// prefix, r, I*, the blocks' finish counter, the candidates' counter and
// the histogram; the last block of each pass leaves the histogram and the
// counter zero for the next. Each pass reads the line once.
func init() {
	generators[kTopKPass] = generator{name: "topk_pass", ptx: topkPassPTX, host: topkPassHost}
	generators[kTopKCollect] = generator{name: "topk_collect", ptx: topkCollectPTX, host: topkCollectHost}
	generators[kTopKFinish] = generator{name: "topk_finish", ptx: topkFinishPTX, host: topkFinishHost}
}

// TopKSelectMax is the largest k the selection handles (the finishing
// block ranks the candidates in shared memory).
const TopKSelectMax = 1024

// The state's layout, in bytes.
const (
	tkPrefix       = 0  // u64: the key prefix, then K*
	tkRank         = 8  // u64: r
	tkIdxPrefix    = 16 // u64: the position prefix, then I*
	tkDone         = 24 // u32: blocks finished in this pass
	tkTiesAll      = 32 // u64: 1 when every element equal to K* is taken
	tkCount        = 40 // u64: candidates collected
	tkHist         = 64 // 256 × u32
	topkStateBytes = tkHist + 256*4
	topkBlock      = 256
	topkUnroll     = 4
)

// topkKey64 loads element i of x (type t) and returns its key as a u64.
func (g *ptx) topkKey64(raw string, t dtype.DType, desc bool) string {
	k := g.emitKeyOf(raw, t, desc)
	if 8*t.Size() == 64 {
		return k
	}
	return g.wide(k)
}

// topkElems loads, for u < topkUnroll, element base + u·stride (+ lane)
// of x clamped to n-1 (so every load is in range): the positions, their
// validity (< n) and the keys. All the loads come before the keys.
func (g *ptx) topkElems(x, base, stride, n, nm1 string, t dtype.DType, desc bool) (pos, valid, keys []string) {
	raws := make([]string, topkUnroll)
	pos, valid, keys = make([]string, topkUnroll), make([]string, topkUnroll), make([]string, topkUnroll)
	for u := range topkUnroll {
		pos[u], valid[u] = g.r64(), g.pred()
		if u == 0 {
			g.op("mov.u64 %s, %s", pos[u], base)
		} else {
			g.op("add.u64 %s, %s, %s", pos[u], pos[u-1], stride)
		}
		g.op("setp.lt.u64 %s, %s, %s", valid[u], pos[u], n)
		ic := g.r64()
		g.op("min.u64 %s, %s, %s", ic, pos[u], nm1)
		raws[u] = g.loadRawKey(g.addr(x, ic, t.Size()), t, "")
	}
	for u := range topkUnroll {
		keys[u] = g.topkKey64(raws[u], t, desc)
	}
	return pos, valid, keys
}

// topkPassPTX is one select pass: params x, n (u64), st, k (u64), shift
// (u32: the digit's lowest bit). Variant: a = element type, b = desc,
// c = phase (0 key digits, 1 position digits of the elements equal to
// K*). Blocks of topkBlock threads, any grid.
func topkPassPTX(v variant, entry, header string) string {
	t, desc, phase := dtype.DType(v.a), v.b != 0, v.c
	w := 8 * t.Size()
	g := newPTX(entry)
	x, n, st := g.global("x"), g.param("u64", "n"), g.global("st")
	k, shift := g.param("u64", "k"), g.param("u32", "shift")
	hist := g.sharedAddr(g.sharedArray("gpuarr_topk_hist", 4, 256*4))
	wsum := g.sharedAddr(g.sharedArray("gpuarr_topk_wsum", 4, 4*topkBlock/32))
	lastSh := g.sharedAddr(g.sharedArray("gpuarr_topk_last", 4, 4))
	tid := g.special("tid.x")
	lane, warp, laneLt := g.r32(), g.r32(), g.special("lanemask_lt")
	g.op("and.b32 %s, %s, 31", lane, tid)
	g.op("shr.u32 %s, %s, 5", warp, tid)
	end := g.label("end")
	if phase == 1 {
		all, p := g.r64(), g.pred()
		g.op("ld.global.u64 %s, [%s+%d]", all, st, tkTiesAll)
		g.op("setp.ne.u64 %s, %s, 0", p, all)
		g.op("@%s bra %s", p, end)
	}
	tid4 := g.r32()
	g.op("shl.b32 %s, %s, 2", tid4, tid)
	hAddr := g.r32()
	g.op("add.u32 %s, %s, %s", hAddr, hist, tid4)
	zero := g.r32()
	g.op("mov.u32 %s, 0", zero)
	g.op("st.shared.u32 [%s], %s", hAddr, zero)
	g.op("bar.sync 0")

	prefix, kStar := g.r64(), g.r64()
	s8 := g.r32()
	g.op("add.u32 %s, %s, 8", s8, shift)
	if phase == 0 {
		g.op("ld.global.u64 %s, [%s+%d]", prefix, st, tkPrefix)
	} else {
		g.op("ld.global.u64 %s, [%s+%d]", kStar, st, tkPrefix)
		g.op("ld.global.u64 %s, [%s+%d]", prefix, st, tkIdxPrefix)
	}
	ph := g.r64()
	g.op("shr.b64 %s, %s, %s", ph, prefix, s8)
	// r, read before any block can change it (the last block's threads
	// store the new one).
	r := g.r64()
	g.op("ld.global.u64 %s, [%s+%d]", r, st, tkRank)

	// The loop: warp-uniform (its collectives need every lane), each lane
	// topkUnroll elements a step.
	cx, ncx := g.special("ctaid.x"), g.special("nctaid.x")
	wbase, stride, step := g.r64(), g.r64(), g.r64()
	g.op("mul.wide.u32 %s, %s, %d", wbase, cx, topkBlock)
	g.op("add.u64 %s, %s, %s", wbase, wbase, g.wide(tid))
	g.op("mul.wide.u32 %s, %s, %d", stride, ncx, topkBlock)
	g.op("mul.lo.u64 %s, %s, %d", step, stride, topkUnroll)
	lane64 := g.wide(lane)
	g.op("sub.u64 %s, %s, %s", wbase, wbase, lane64)
	nm1 := g.r64()
	g.op("sub.u64 %s, %s, 1", nm1, n)
	loop, flush := g.label("loop"), g.label("flush")
	g.at(loop)
	pOut := g.pred()
	g.op("setp.ge.u64 %s, %s, %s", pOut, wbase, n)
	g.op("@%s bra %s", pOut, flush)
	i0 := g.r64()
	g.op("add.u64 %s, %s, %s", i0, wbase, lane64)
	pos, valid, keys := g.topkElems(x, i0, stride, n, nm1, t, desc)
	for u := range topkUnroll {
		match := g.pred()
		src := keys[u]
		if phase == 1 {
			src = pos[u]
		}
		hi := g.r64()
		g.op("shr.b64 %s, %s, %s", hi, src, s8)
		g.setpCombine("eq", "and", "u64", match, hi, ph, valid[u])
		if phase == 1 {
			g.setpCombine("eq", "and", "u64", match, keys[u], kStar, match)
		}
		d64, d := g.r64(), g.r32()
		g.op("shr.b64 %s, %s, %s", d64, src, shift)
		g.op("cvt.u32.u64 %s, %s", d, d64)
		g.op("and.b32 %s, %s, 255", d, d)
		g.op("selp.b32 %s, %s, 256, %s", d, d, match)
		m, lt, c := g.r32(), g.r32(), g.r32()
		g.op("match.any.sync.b32 %s, %s, -1", m, d)
		g.op("and.b32 %s, %s, %s", lt, m, laneLt)
		lead := g.pred()
		g.setpCombine("eq", "and", "u32", lead, lt, "0", match)
		g.op("popc.b32 %s, %s", c, m)
		a := g.r32()
		g.op("shl.b32 %s, %s, 2", a, d)
		g.op("add.u32 %s, %s, %s", a, a, hist)
		g.op("@%s red.shared.add.u32 [%s], %s", lead, a, c)
	}
	g.op("add.u64 %s, %s, %s", wbase, wbase, step)
	g.op("bra %s", loop)

	// The block's counts to the histogram; the last block picks the digit.
	g.at(flush)
	g.op("bar.sync 0")
	c := g.r32()
	g.op("ld.shared.u32 %s, [%s]", c, hAddr)
	nz := g.pred()
	g.op("setp.ne.u32 %s, %s, 0", nz, c)
	gh := g.r64()
	g.op("add.u64 %s, %s, %d", gh, st, tkHist)
	g.op("add.u64 %s, %s, %s", gh, gh, g.wide(tid4))
	g.op("@%s red.global.add.u32 [%s], %s", nz, gh, c)
	g.op("membar.gl")
	g.op("bar.sync 0")
	t0 := g.pred()
	g.op("setp.eq.u32 %s, %s, 0", t0, tid)
	old, last := g.r32(), g.r32()
	one := g.r32()
	g.op("mov.u32 %s, 1", one)
	g.op("@%s atom.global.add.u32 %s, [%s+%d], %s", t0, old, st, tkDone, one)
	nb := g.r32()
	g.op("sub.u32 %s, %s, 1", nb, ncx)
	isLast := g.pred()
	g.op("setp.eq.u32 %s, %s, %s", isLast, old, nb)
	g.op("selp.u32 %s, 1, 0, %s", last, isLast)
	g.op("@%s st.shared.u32 [%s], %s", t0, lastSh, last)
	g.op("bar.sync 0")
	lf := g.r32()
	g.op("ld.shared.u32 %s, [%s]", lf, lastSh)
	notLast := g.pred()
	g.op("setp.eq.u32 %s, %s, 0", notLast, lf)
	g.op("@%s bra %s", notLast, end)

	g.op("membar.gl")
	cnt := g.r32()
	g.op("ld.volatile.global.u32 %s, [%s]", cnt, gh)
	g.op("st.global.u32 [%s], %s", gh, zero)
	incl := g.warpScan(cnt, lane)
	l31 := g.pred()
	g.op("setp.eq.u32 %s, %s, 31", l31, lane)
	wa := g.r32()
	g.op("shl.b32 %s, %s, 2", wa, warp)
	g.op("add.u32 %s, %s, %s", wa, wa, wsum)
	g.op("@%s st.shared.u32 [%s], %s", l31, wa, incl)
	g.op("bar.sync 0")
	for w2 := range topkBlock / 32 {
		s, before := g.r32(), g.pred()
		g.op("ld.shared.u32 %s, [%s+%d]", s, wsum, 4*w2)
		g.op("setp.lt.u32 %s, %d, %s", before, w2, warp)
		g.op("@%s add.u32 %s, %s, %s", before, incl, incl, s)
	}
	excl := g.r32()
	g.op("sub.u32 %s, %s, %s", excl, incl, cnt)
	if phase == 0 {
		first := g.pred()
		g.op("setp.eq.u32 %s, %s, %d", first, shift, w-8)
		g.op("selp.b64 %s, %s, %s, %s", r, k, r, first)
	}
	e64, i64 := g.wide(excl), g.wide(incl)
	sel := g.pred()
	g.op("setp.lt.u64 %s, %s, %s", sel, e64, r)
	g.setpCombine("le", "and", "u64", sel, r, i64, sel)
	nr, np, dig := g.r64(), g.r64(), g.wide(tid)
	g.op("sub.u64 %s, %s, %s", nr, r, e64)
	g.op("shl.b64 %s, %s, %s", dig, dig, shift)
	g.op("or.b64 %s, %s, %s", np, prefix, dig)
	at := tkPrefix
	if phase == 1 {
		at = tkIdxPrefix
	}
	g.op("@%s st.global.u64 [%s+%d], %s", sel, st, at, np)
	g.op("@%s st.global.u64 [%s+%d], %s", sel, st, tkRank, nr)
	if phase == 0 {
		// After the last key pass: are all the elements equal to K* taken?
		lastPass, all := g.pred(), g.pred()
		g.setpCombine("eq", "and", "u32", lastPass, shift, "0", sel)
		g.op("setp.eq.u64 %s, %s, %s", all, g.wide(cnt), nr)
		fl := g.r64()
		g.op("selp.u64 %s, 1, 0, %s", fl, all)
		g.op("@%s st.global.u64 [%s+%d], %s", lastPass, st, tkTiesAll, fl)
	}
	g.op("@%s st.global.u32 [%s+%d], %s", t0, st, tkDone, zero)
	g.at(end)
	return g.module(header)
}

// topkCollectPTX writes the k picked elements' keys and positions (u64
// each, in no order): params x, n (u64), st, keys, pos, k (u64).
// Variant: a = element type, b = desc. Any geometry.
func topkCollectPTX(v variant, entry, header string) string {
	t, desc := dtype.DType(v.a), v.b != 0
	g := newPTX(entry)
	x, n, st := g.global("x"), g.param("u64", "n"), g.global("st")
	ck, cp, k := g.global("keys"), g.global("pos"), g.param("u64", "k")
	kStar, iStar, all := g.r64(), g.r64(), g.r64()
	g.op("ld.global.u64 %s, [%s+%d]", kStar, st, tkPrefix)
	g.op("ld.global.u64 %s, [%s+%d]", iStar, st, tkIdxPrefix)
	g.op("ld.global.u64 %s, [%s+%d]", all, st, tkTiesAll)
	allP := g.pred()
	g.op("setp.ne.u64 %s, %s, 0", allP, all)
	one := g.one64()
	tid, ntid := g.wide(g.special("tid.x")), g.wide(g.special("ntid.x"))
	cx, ncx := g.wide(g.special("ctaid.x")), g.wide(g.special("nctaid.x"))
	i, stride, step := g.r64(), g.r64(), g.r64()
	g.op("mad.lo.u64 %s, %s, %s, %s", i, cx, ntid, tid)
	g.op("mul.lo.u64 %s, %s, %s", stride, ncx, ntid)
	g.op("mul.lo.u64 %s, %s, %d", step, stride, topkUnroll)
	nm1 := g.r64()
	g.op("sub.u64 %s, %s, 1", nm1, n)
	loop, done := g.label("loop"), g.label("done")
	g.at(loop)
	pOut := g.pred()
	g.op("setp.ge.u64 %s, %s, %s", pOut, i, n)
	g.op("@%s bra %s", pOut, done)
	pos, valid, keys := g.topkElems(x, i, stride, n, nm1, t, desc)
	for u := range topkUnroll {
		less, tie, take := g.pred(), g.pred(), g.pred()
		g.op("setp.lt.u64 %s, %s, %s", less, keys[u], kStar)
		g.op("setp.le.u64 %s, %s, %s", tie, pos[u], iStar)
		g.op("or.pred %s, %s, %s", tie, tie, allP)
		g.setpCombine("eq", "and", "u64", tie, keys[u], kStar, tie)
		g.op("or.pred %s, %s, %s", take, less, tie)
		g.op("and.pred %s, %s, %s", take, take, valid[u])
		skip := g.label("skip")
		g.op("@!%s bra %s", take, skip)
		slot, ok := g.r64(), g.pred()
		g.op("atom.global.add.u64 %s, [%s+%d], %s", slot, st, tkCount, one)
		g.op("setp.lt.u64 %s, %s, %s", ok, slot, k)
		g.op("@%s st.global.u64 [%s], %s", ok, g.addr(ck, slot, 8), keys[u])
		g.op("@%s st.global.u64 [%s], %s", ok, g.addr(cp, slot, 8), pos[u])
		g.at(skip)
	}
	g.op("add.u64 %s, %s, %s", i, i, step)
	g.op("bra %s", loop)
	g.at(done)
	return g.module(header)
}

// topkFinishPTX ranks the k candidates by (key, position) and writes
// each at its rank: its value (the key decoded, as Sort's values) and its
// position (int64). Params: keys, pos, vals, idx, k (u64, at most
// TopKSelectMax). Variant: a = element type, b = desc. One block of
// topkBlock threads.
func topkFinishPTX(v variant, entry, header string) string {
	t, desc := dtype.DType(v.a), v.b != 0
	w := 8 * t.Size()
	g := newPTX(entry)
	ck, cp, vals, idx, k := g.global("keys"), g.global("pos"), g.global("vals"), g.global("idx"), g.param("u64", "k")
	sk := g.sharedAddr(g.sharedArray("gpuarr_topk_keys", 8, 8*TopKSelectMax))
	sp := g.sharedAddr(g.sharedArray("gpuarr_topk_pos", 8, 8*TopKSelectMax))
	tid := g.wide(g.special("tid.x"))
	shAt := func(base, j string) string {
		o, a := g.r32(), g.r32()
		g.op("cvt.u32.u64 %s, %s", o, j)
		g.op("shl.b32 %s, %s, 3", o, o)
		g.op("add.u32 %s, %s, %s", a, base, o)
		return a
	}
	forEach := func(body func(j string)) {
		j := g.r64()
		g.op("mov.u64 %s, %s", j, tid)
		loop, done := g.label("each"), g.label("each_done")
		g.at(loop)
		p := g.pred()
		g.op("setp.ge.u64 %s, %s, %s", p, j, k)
		g.op("@%s bra %s", p, done)
		body(j)
		g.op("add.u64 %s, %s, %d", j, j, topkBlock)
		g.op("bra %s", loop)
		g.at(done)
	}
	forEach(func(j string) {
		kv, pv := g.r64(), g.r64()
		g.op("ld.global.u64 %s, [%s]", kv, g.addr(ck, j, 8))
		g.op("ld.global.u64 %s, [%s]", pv, g.addr(cp, j, 8))
		g.op("st.shared.u64 [%s], %s", shAt(sk, j), kv)
		g.op("st.shared.u64 [%s], %s", shAt(sp, j), pv)
	})
	g.op("bar.sync 0")
	forEach(func(j string) {
		kj, pj := g.r64(), g.r64()
		g.op("ld.shared.u64 %s, [%s]", kj, shAt(sk, j))
		g.op("ld.shared.u64 %s, [%s]", pj, shAt(sp, j))
		rank, m := g.r64(), g.r64()
		g.op("mov.u64 %s, 0", rank)
		g.op("mov.u64 %s, 0", m)
		loop, done := g.label("rank"), g.label("rank_done")
		g.at(loop)
		p := g.pred()
		g.op("setp.ge.u64 %s, %s, %s", p, m, k)
		g.op("@%s bra %s", p, done)
		km, pm := g.r64(), g.r64()
		g.op("ld.shared.u64 %s, [%s]", km, shAt(sk, m))
		g.op("ld.shared.u64 %s, [%s]", pm, shAt(sp, m))
		before := g.pred()
		g.op("setp.lt.u64 %s, %s, %s", before, pm, pj)
		g.setpCombine("eq", "and", "u64", before, km, kj, before)
		less := g.pred()
		g.setpCombine("lt", "or", "u64", less, km, kj, before)
		g.op("@%s add.u64 %s, %s, 1", less, rank, rank)
		g.op("add.u64 %s, %s, 1", m, m)
		g.op("bra %s", loop)
		g.at(done)
		kk := kj
		if w < 64 {
			kk = g.r32()
			g.op("cvt.u32.u64 %s, %s", kk, kj)
		}
		raw := g.emitDecode(kk, t, desc)
		g.storeElem(g.addr(vals, rank, t.Size()), t.Size(), elemRegs{raw}, "")
		g.op("st.global.u64 [%s], %s", g.addr(idx, rank, 8), pj)
	})
	return g.module(header)
}

// setpCombine is setp.cmp.bop.typ d, a, b, c: d = (a cmp b) bop c.
func (g *ptx) setpCombine(cmp, bop, typ, d, a, b, c string) {
	p := g.pred()
	g.op("setp.%s.%s %s, %s, %s", cmp, typ, p, a, b)
	g.op("%s.pred %s, %s, %s", bop, d, p, c)
}

// The twins: the whole launch at once, with the same effect on memory
// (the state included).

func topkPassHost(v variant) hostkernel.Kernel {
	t, desc, phase := dtype.DType(v.a), v.b != 0, v.c
	size, w := t.Size(), 8*t.Size()
	return func(l *hostkernel.Launch) error {
		args := &l.Args
		n, k, shift := args.U64(1), args.U64(3), uint(args.U32(4))
		vw := views{l: l}
		x := vw.bytes(args.Ptr(0), n, uint64(size))
		st := vw.bytes(args.Ptr(2), topkStateBytes, 1)
		if vw.err != nil {
			return vw.err
		}
		le := binary.LittleEndian
		if phase == 1 && le.Uint64(st[tkTiesAll:]) != 0 {
			return nil
		}
		prefix := le.Uint64(st[tkPrefix:])
		kStar := prefix
		if phase == 1 {
			prefix = le.Uint64(st[tkIdxPrefix:])
		}
		var hist [256]uint64
		for i := range n {
			key := keyOf(readBits(x, i, size), t, desc)
			src := key
			if phase == 1 {
				if key != kStar {
					continue
				}
				src = i
			}
			if shr64(src, shift+8) == shr64(prefix, shift+8) {
				hist[src>>shift&255]++
			}
		}
		r := le.Uint64(st[tkRank:])
		if phase == 0 && int(shift) == w-8 {
			r = k
		}
		var below uint64
		for d, c := range hist {
			if r <= below+c {
				np := prefix | uint64(d)<<shift
				nr := r - below
				if phase == 0 {
					le.PutUint64(st[tkPrefix:], np)
					if shift == 0 {
						all := uint64(0)
						if c == nr {
							all = 1
						}
						le.PutUint64(st[tkTiesAll:], all)
					}
				} else {
					le.PutUint64(st[tkIdxPrefix:], np)
				}
				le.PutUint64(st[tkRank:], nr)
				break
			}
			below += c
		}
		return nil
	}
}

// shr64 is x >> s, 0 for s ≥ 64 (PTX's shr).
func shr64(x uint64, s uint) uint64 {
	if s >= 64 {
		return 0
	}
	return x >> s
}

func topkCollectHost(v variant) hostkernel.Kernel {
	t, desc := dtype.DType(v.a), v.b != 0
	size := t.Size()
	return func(l *hostkernel.Launch) error {
		args := &l.Args
		n, k := args.U64(1), args.U64(5)
		vw := views{l: l}
		x := vw.bytes(args.Ptr(0), n, uint64(size))
		st := vw.bytes(args.Ptr(2), topkStateBytes, 1)
		ck := vw.bytes(args.Ptr(3), k, 8)
		cp := vw.bytes(args.Ptr(4), k, 8)
		if vw.err != nil {
			return vw.err
		}
		le := binary.LittleEndian
		kStar, iStar, all := le.Uint64(st[tkPrefix:]), le.Uint64(st[tkIdxPrefix:]), le.Uint64(st[tkTiesAll:]) != 0
		count := le.Uint64(st[tkCount:])
		for i := range n {
			key := keyOf(readBits(x, i, size), t, desc)
			if key < kStar || key == kStar && (all || i <= iStar) {
				if count < k {
					le.PutUint64(ck[8*count:], key)
					le.PutUint64(cp[8*count:], i)
				}
				count++
			}
		}
		le.PutUint64(st[tkCount:], count)
		return nil
	}
}

func topkFinishHost(v variant) hostkernel.Kernel {
	t, desc := dtype.DType(v.a), v.b != 0
	size := t.Size()
	return func(l *hostkernel.Launch) error {
		args := &l.Args
		k := args.U64(4)
		vw := views{l: l}
		ck := vw.bytes(args.Ptr(0), k, 8)
		cp := vw.bytes(args.Ptr(1), k, 8)
		vals := vw.bytes(args.Ptr(2), k, uint64(size))
		idx := vw.bytes(args.Ptr(3), k, 8)
		if vw.err != nil {
			return vw.err
		}
		le := binary.LittleEndian
		for j := range k {
			kj, pj := le.Uint64(ck[8*j:]), le.Uint64(cp[8*j:])
			rank := uint64(0)
			for m := range k {
				km, pm := le.Uint64(ck[8*m:]), le.Uint64(cp[8*m:])
				if km < kj || km == kj && pm < pj {
					rank++
				}
			}
			writeBits(vals, rank, size, decodeKey(kj, t, desc))
			le.PutUint64(idx[8*rank:], pj)
		}
		return nil
	}
}

// TopK picks the K first elements, in the sort order (Desc: Sort's
// Descending), of the N elements of X (contiguous, type T): their values
// into Vals (T) and their positions into Idx (int64), both K long. K is
// in [1, TopKSelectMax] and N at most MaxSortElements.
type TopK struct {
	X, Vals, Idx *lifetime.Handle
	T            dtype.DType
	N, K         int
	Desc         bool
}

// Run queues the selection on s: a memset of its state, a pass per byte
// of the key, a pass per byte of the positions (each returning at once
// unless elements equal to the k-th are left out), the collection and
// the ranking. Its temporaries come from the pool on s.
func (a *TopK) Run(call string, s *device.Stream) error {
	w, err := keyBits(a.T)
	if err != nil {
		return errArgument(call, "%v", err)
	}
	if a.K < 1 || a.K > TopKSelectMax || a.N < a.K || a.N > MaxSortElements {
		return errArgument(call, "selecting %d of %d elements", a.K, a.N)
	}
	desc := int32(0)
	if a.Desc {
		desc = 1
	}
	dev := s.Device()
	var ks [3]*device.Kernel
	for p := range 2 {
		if ks[p], err = kernel(dev, variant{kind: kTopKPass, a: int32(a.T), b: desc, c: int32(p)}); err != nil {
			return wrap(call, err)
		}
	}
	collect, err := kernel(dev, variant{kind: kTopKCollect, a: int32(a.T), b: desc})
	if err != nil {
		return wrap(call, err)
	}
	finish, err := kernel(dev, variant{kind: kTopKFinish, a: int32(a.T), b: desc})
	if err != nil {
		return wrap(call, err)
	}
	st, err := lifetime.Temp(call, s, dtype.Uint8, []int{topkStateBytes + 16*a.K})
	if err != nil {
		return err
	}
	defer st.Done()
	o := lifetime.Claim{Call: call}
	o.Add(a.X, tracking.Read, s)
	o.Add(a.Vals, tracking.Write, s)
	o.Add(a.Idx, tracking.Write, s)
	o.Add(st, tracking.Write, s)
	if err := o.Begin(true); err != nil {
		return err
	}
	defer o.End()
	sp := st.Ptr()
	ck, cp := sp+topkStateBytes, sp+topkStateBytes+device.Ptr(8*a.K)
	n, k := uint64(a.N), uint64(a.K)
	cfg := grid1D(dev, a.N, topkBlock, topkUnroll)
	if err := s.Memset8(sp, 0, topkStateBytes); err != nil {
		return wrap(call, err)
	}
	for shift := w - 8; shift >= 0; shift -= 8 {
		if err := s.Launch(ks[0], cfg, a.X.Ptr(), n, sp, k, uint32(shift)); err != nil {
			return wrap(call, err)
		}
	}
	pw := max(8, (bits.Len64(n-1)+7)/8*8)
	for shift := pw - 8; shift >= 0; shift -= 8 {
		if err := s.Launch(ks[1], cfg, a.X.Ptr(), n, sp, k, uint32(shift)); err != nil {
			return wrap(call, err)
		}
	}
	if err := s.Launch(collect, cfg, a.X.Ptr(), n, sp, ck, cp, k); err != nil {
		return wrap(call, err)
	}
	one := device.LaunchConfig{Grid: device.Dim3{X: 1}, Block: device.Dim3{X: topkBlock}}
	return wrap(call, s.Launch(finish, one, ck, cp, a.Vals.Ptr(), a.Idx.Ptr(), k))
}
