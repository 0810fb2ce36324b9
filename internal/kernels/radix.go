package kernels

import (
	"fmt"

	"github.com/gpuarr/gpuarr/device/dtype"
)

// The radix sort's kernels: a least-significant-digit sort, 8 bits per
// pass, each pass reduce-then-scan:
//
//	upsweep    each block counts the digits of its run of tiles into a
//	           table of 256 × blocks counts (digit-major);
//	scan       an exclusive scan of the table (package fusion's scan)
//	           gives each block its first output position per digit;
//	downsweep  each block ranks every tile of its run stably by digit in
//	           shared memory and writes it out through shared memory, so
//	           the elements of one digit leave as runs of consecutive
//	           addresses.
//
// The ranking (rank): warp w of a tile holds its sortItems rounds of 32
// consecutive elements; in each round matchDigit groups the lanes of
// one digit, the lowest of them adds the group's size to the warp's
// counter of that digit, and each lane's rank is the counter before plus
// its peers below it. Then thread d of the block turns digit d's warp
// counters into the warp's first position (the digit's start, plus the
// warps before). Ranks follow element order within a digit: stable.
//
// The same ranking sorts whole rows in shared memory (the block sort:
// every pass of a key in one kernel, one row per block), which serves the
// rows a block can hold.
const (
	sortBlock = 256
	sortWarps = sortBlock / 32
	sortItems = 8
	sortTile  = sortBlock * sortItems
	radixBins = 256
)

// Sort kernel flags (variant.b).
const (
	sfRawIn       = 1 << iota // keys in are values of the element type (keyOf on load)
	sfDesc                    // descending
	sfSegDigit                // the digit is of the element's row (position / L), not of its key
	sfVals                    // u32 positions travel with the keys
	sfGenVals                 // positions are generated (the element's index), not loaded
	sfKeysOut                 // write keys (transformed)
	sfKeysDecoded             // write keys decoded to the element type (with sfKeysOut)
	sfValsOut                 // write positions (u32)
	sfValsFinal               // write positions as int64 indices within the row (position mod L)
)

// sortShared is the shared memory of the ranking and the tile it sorts.
type sortShared struct {
	wcnt, dstart, dcount, wsum, keys, vals string // 32-bit shared addresses
}

// sortGen writes a sort kernel.
type sortGen struct {
	*ptx
	t      dtype.DType // element type (its key width)
	w      int         // key bits
	flags  int
	items  int
	sh     sortShared
	tid    string // u32
	warp   string
	lane   string
	laneLt string
}

func (g *sortGen) has(f int) bool { return g.flags&f != 0 }

func newSortGen(entry string, t dtype.DType, flags, items int) *sortGen {
	g := &sortGen{ptx: newPTX(entry), t: t, w: 8 * t.Size(), flags: flags, items: items}
	return g
}

// radixBlocksPerSM is how many blocks of the radix passes each
// multiprocessor runs: the grid has that many per multiprocessor, and the
// kernels tell ptxas to fit that many at once (registers), so the grid is
// one wave (a block left for a second wave would double a pass's time).
const radixBlocksPerSM = 5

// radixTuning are the radix passes' performance directives.
var radixTuning = fmt.Sprintf(".maxntid %d, 1, 1\n.minnctapersm %d", sortBlock, radixBlocksPerSM)

// setup reads the thread's coordinates and declares the shared arrays
// (keys and vals for tiles of sortBlock·items elements).
func (g *sortGen) setup(tile bool) {
	g.tid = g.special("tid.x")
	g.lane, g.warp = g.r32(), g.r32()
	g.op("and.b32 %s, %s, 31", g.lane, g.tid)
	g.op("shr.u32 %s, %s, 5", g.warp, g.tid)
	g.laneLt = g.special("lanemask_lt")
	g.sh.wcnt = g.sharedAddr(g.sharedArray("sort_wcnt", 16, 4*sortWarps*radixBins))
	g.sh.dstart = g.sharedAddr(g.sharedArray("sort_dstart", 16, 4*radixBins))
	g.sh.dcount = g.sharedAddr(g.sharedArray("sort_dcount", 16, 4*radixBins))
	g.sh.wsum = g.sharedAddr(g.sharedArray("sort_wsum", 16, 4*sortWarps))
	if tile {
		n := sortBlock * g.items
		g.sh.keys = g.sharedAddr(g.sharedArray("sort_keys", 16, n*max(g.w/8, 1)))
		g.sh.vals = g.sharedAddr(g.sharedArray("sort_vals", 16, n*4))
	}
}

// at32 is a shared address: base + i·size (i a u32 register).
func (g *sortGen) at32(base, i string, size int) string {
	a := g.r32()
	g.op("mad.lo.u32 %s, %s, %d, %s", a, i, size, base)
	return a
}

// wcntAt is the address of warp w's counter of digit d.
func (g *sortGen) wcntAt(w, d string) string {
	i := g.r32()
	g.op("mad.lo.u32 %s, %s, %d, %s", i, w, radixBins, d)
	return g.at32(g.sh.wcnt, i, 4)
}

// rank returns each round's position in the tile's stable digit order
// (u32), for the valid rounds; it leaves each digit's first position in
// dstart and its count in dcount, and ends after a bar.sync.
func (g *sortGen) rank(digits, valid []string) []string {
	// Clear the warps' counters.
	zero := g.r32()
	g.op("mov.u32 %s, 0", zero)
	for i := range sortWarps {
		j := g.r32()
		g.op("add.u32 %s, %s, %d", j, g.tid, i*sortBlock)
		g.op("st.shared.u32 [%s], %s", g.at32(g.sh.wcnt, j, 4), zero)
	}
	g.op("bar.sync 0")
	local := make([]string, len(digits))
	for r, d := range digits {
		dm, lower, rk := g.r32(), g.r32(), g.r32()
		g.op("selp.b32 %s, %s, 256, %s", dm, d, valid[r])
		peers := g.matchDigit(dm)
		g.op("and.b32 %s, %s, %s", lower, peers, g.laneLt)
		g.op("popc.b32 %s, %s", rk, lower)
		leader, lw := g.pred(), g.pred()
		g.op("setp.eq.u32 %s, %s, 0", leader, lower)
		g.op("and.pred %s, %s, %s", lw, leader, valid[r])
		a := g.wcntAt(g.warp, d)
		base := g.r32()
		g.op("mov.u32 %s, 0", base)
		g.op("@%s ld.shared.u32 %s, [%s]", valid[r], base, a)
		g.op("bar.warp.sync -1")
		cnt, nb := g.r32(), g.r32()
		g.op("popc.b32 %s, %s", cnt, peers)
		g.op("add.u32 %s, %s, %s", nb, base, cnt)
		g.op("@%s st.shared.u32 [%s], %s", lw, a, nb)
		g.op("bar.warp.sync -1")
		local[r] = g.r32()
		g.op("add.u32 %s, %s, %s", local[r], base, rk)
	}
	g.op("bar.sync 0")
	// Thread d: digit d's warp counters become exclusive prefixes.
	run := g.r32()
	g.op("mov.u32 %s, 0", run)
	var addrs [sortWarps]string
	for w := range sortWarps {
		wr := g.r32()
		g.op("mov.u32 %s, %d", wr, w)
		addrs[w] = g.wcntAt(wr, g.tid)
		c := g.r32()
		g.op("ld.shared.u32 %s, [%s]", c, addrs[w])
		g.op("st.shared.u32 [%s], %s", addrs[w], run)
		g.op("add.u32 %s, %s, %s", run, run, c)
	}
	g.op("st.shared.u32 [%s], %s", g.at32(g.sh.dcount, g.tid, 4), run)
	// Exclusive scan of the digits' counts over the block.
	incl := g.warpScan(run, g.lane)
	last := g.pred()
	g.op("setp.eq.u32 %s, %s, 31", last, g.lane)
	g.op("@%s st.shared.u32 [%s], %s", last, g.at32(g.sh.wsum, g.warp, 4), incl)
	g.op("bar.sync 0")
	wpre := g.r32()
	g.op("mov.u32 %s, 0", wpre)
	for w := range sortWarps - 1 {
		v, before := g.r32(), g.pred()
		g.op("ld.shared.u32 %s, [%s+%d]", v, g.sh.wsum, 4*w)
		g.op("setp.gt.u32 %s, %s, %d", before, g.warp, w)
		g.op("@%s add.u32 %s, %s, %s", before, wpre, wpre, v)
	}
	excl := g.r32()
	g.op("sub.u32 %s, %s, %s", excl, incl, run)
	g.op("add.u32 %s, %s, %s", excl, excl, wpre)
	g.op("st.shared.u32 [%s], %s", g.at32(g.sh.dstart, g.tid, 4), excl)
	for w := range sortWarps {
		c := g.r32()
		g.op("ld.shared.u32 %s, [%s]", c, addrs[w])
		g.op("add.u32 %s, %s, %s", c, c, excl)
		g.op("st.shared.u32 [%s], %s", addrs[w], c)
	}
	g.op("bar.sync 0")
	dest := make([]string, len(digits))
	for r, d := range digits {
		dest[r] = g.r32()
		g.op("mov.u32 %s, 0", dest[r])
		a := g.wcntAt(g.warp, d)
		g.op("@%s ld.shared.u32 %s, [%s]", valid[r], dest[r], a)
		g.op("add.u32 %s, %s, %s", dest[r], dest[r], local[r])
	}
	return dest
}

// matchDigit returns, in each lane, the mask of the warp's lanes whose dm
// equals its own (match.any.sync's result) for dm in 0..256 (a digit, or
// 256 for a lane without an element), built from nine ballots, one per
// bit of dm: on sm_90 that is cheaper than match.any.sync (BENCHMARKS.md).
func (g *sortGen) matchDigit(dm string) string {
	peers := g.r32()
	g.op("mov.b32 %s, -1", peers)
	for b := range 9 {
		t, p, bal := g.r32(), g.pred(), g.r32()
		g.op("and.b32 %s, %s, %d", t, dm, 1<<b)
		g.op("setp.ne.u32 %s, %s, 0", p, t)
		g.op("vote.sync.ballot.b32 %s, %s, -1", bal, p)
		g.op("@!%s not.b32 %s, %s", p, bal, bal)
		g.op("and.b32 %s, %s, %s", peers, peers, bal)
	}
	return peers
}

// keyShared stores or loads a key in the shared tile at position i.
func (g *sortGen) storeKeyShared(i, k, guard string) {
	mt := keyMemType(g.w)
	a := g.at32(g.sh.keys, i, g.w/8)
	pre := ""
	if guard != "" {
		pre = "@" + guard + " "
	}
	g.op("%sst.shared.%s [%s], %s", pre, mt, a, k)
}

func (g *sortGen) loadKeyShared(i, guard string) string {
	k := g.reg(keyReg(g.w))
	pre := ""
	if guard != "" {
		g.op("mov.%s %s, 0", keyType(g.w), k)
		pre = "@" + guard + " "
	}
	g.op("%sld.shared.%s %s, [%s]", pre, keyMemType(g.w), k, g.at32(g.sh.keys, i, g.w/8))
	return k
}

// segDigit is the digit of position v's row: (v / L) >> shift & 255.
func (g *sortGen) segDigit(v, rowLen, shift string) string {
	q, d := g.r32(), g.r32()
	g.op("div.u32 %s, %s, %s", q, v, rowLen)
	g.op("shr.b32 %s, %s, %s", d, q, shift)
	g.op("and.b32 %s, %s, 255", d, d)
	return d
}

// keyDigit is key k's digit at a shift held in a register.
func (g *sortGen) keyDigit(k, shift string) string {
	d := g.r32()
	if g.w == 64 {
		s := g.r64()
		g.op("shr.b64 %s, %s, %s", s, k, shift)
		g.op("cvt.u32.u64 %s, %s", d, s)
		g.op("and.b32 %s, %s, 255", d, d)
		return d
	}
	g.op("bfe.u32 %s, %s, %s, 8", d, k, shift)
	return d
}

// loadKey loads element e's key from keys (raw values with sfRawIn).
func (g *sortGen) loadKey(keys, e, guard string) string {
	if g.has(sfRawIn) {
		raw := g.loadRawKey(g.addr(keys, e, g.t.Size()), g.t, guard)
		return g.emitKeyOf(raw, g.t, g.has(sfDesc))
	}
	r := g.loadElem(g.addr(keys, e, g.w/8), g.w/8, guard)
	return r[0]
}

// radixUpsweepPTX: params keys, vals, counts, n, tpb, nblocks, L, shift.
func radixUpsweepPTX(v variant, entry, header string) string {
	g := newSortGen(entry, dtype.DType(v.a), int(v.b), sortItems)
	g.tuning = radixTuning
	keys, vals, counts := g.global("keys"), g.global("vals"), g.global("counts")
	n, tpb, nblocks, rowLen, shift := g.param("u64", "n"), g.param("u64", "tpb"), g.param("u64", "nblocks"), g.param("u32", "L"), g.param("u32", "shift")
	g.setup(false)
	hist := g.sh.dcount // the block's counts
	zero := g.r32()
	g.op("mov.u32 %s, 0", zero)
	g.op("st.shared.u32 [%s], %s", g.at32(hist, g.tid, 4), zero)
	g.op("bar.sync 0")
	b := g.wide(g.special("ctaid.x"))
	tiles := g.r64()
	g.op("add.u64 %s, %s, %d", tiles, n, sortTile-1)
	g.op("shr.u64 %s, %s, %d", tiles, tiles, log2(sortTile))
	tile, end := g.r64(), g.r64()
	g.op("mul.lo.u64 %s, %s, %s", tile, b, tpb)
	g.op("add.u64 %s, %s, %s", end, tile, tpb)
	g.op("min.u64 %s, %s, %s", end, end, tiles)
	t64 := g.wide(g.tid)
	loop, done := g.label("tile"), g.label("tiles_done")
	g.at(loop)
	p := g.pred()
	g.op("setp.ge.u64 %s, %s, %s", p, tile, end)
	g.op("@%s bra %s", p, done)
	for r := range sortItems {
		e, valid := g.r64(), g.pred()
		g.op("mad.lo.u64 %s, %s, %d, %s", e, tile, sortTile, t64)
		g.op("add.u64 %s, %s, %d", e, e, r*sortBlock)
		g.op("setp.lt.u64 %s, %s, %s", valid, e, n)
		var d string
		if g.has(sfSegDigit) {
			val := g.loadVal(vals, e, valid)
			d = g.segDigit(val, rowLen, shift)
		} else {
			d = g.keyDigit(g.loadKey(keys, e, valid), shift)
		}
		dm, lower, cnt := g.r32(), g.r32(), g.r32()
		g.op("selp.b32 %s, %s, 256, %s", dm, d, valid)
		peers := g.matchDigit(dm)
		g.op("and.b32 %s, %s, %s", lower, peers, g.laneLt)
		lead := g.pred()
		g.op("setp.eq.u32 %s, %s, 0", lead, lower)
		g.op("and.pred %s, %s, %s", lead, lead, valid)
		g.op("popc.b32 %s, %s", cnt, peers)
		g.op("@%s atom.shared.add.u32 %s, [%s], %s", lead, g.r32(), g.at32(hist, d, 4), cnt)
	}
	g.op("add.u64 %s, %s, 1", tile, tile)
	g.op("bra %s", loop)
	g.at(done)
	g.op("bar.sync 0")
	c := g.r32()
	g.op("ld.shared.u32 %s, [%s]", c, g.at32(hist, g.tid, 4))
	ti := g.r64()
	g.op("mad.lo.u64 %s, %s, %s, %s", ti, t64, nblocks, b)
	g.op("st.global.u32 [%s], %s", g.addr(counts, ti, 4), c)
	return g.module(header)
}

// loadVal loads element e's u32 position (or generates it: e).
func (g *sortGen) loadVal(vals, e, guard string) string {
	if g.has(sfGenVals) {
		v := g.r32()
		g.op("cvt.u32.u64 %s, %s", v, e)
		return v
	}
	r := g.loadElem(g.addr(vals, e, 4), 4, guard)
	return r[0]
}

// radixDownsweepPTX: params keysIn, valsIn, keysOut, valsOut, offsets, n,
// tpb, nblocks, L, shift.
func radixDownsweepPTX(v variant, entry, header string) string {
	g := newSortGen(entry, dtype.DType(v.a), int(v.b), sortItems)
	g.tuning = radixTuning
	keysIn, valsIn, keysOut, valsOut, offsets := g.global("keys_in"), g.global("vals_in"), g.global("keys_out"), g.global("vals_out"), g.global("offsets")
	n, tpb, nblocks, rowLen, shift := g.param("u64", "n"), g.param("u64", "tpb"), g.param("u64", "nblocks"), g.param("u32", "L"), g.param("u32", "shift")
	g.setup(true)
	goff := g.sharedAddr(g.sharedArray("sort_goff", 16, 4*radixBins))
	b := g.wide(g.special("ctaid.x"))
	t64 := g.wide(g.tid)
	ti := g.r64()
	g.op("mad.lo.u64 %s, %s, %s, %s", ti, t64, nblocks, b)
	o := g.r32()
	g.op("ld.global.u32 %s, [%s]", o, g.addr(offsets, ti, 4))
	myGoff := g.at32(goff, g.tid, 4)
	g.op("st.shared.u32 [%s], %s", myGoff, o)
	// The shared stores above are read after the ranking's barriers.
	tiles := g.r64()
	g.op("add.u64 %s, %s, %d", tiles, n, sortTile-1)
	g.op("shr.u64 %s, %s, %d", tiles, tiles, log2(sortTile))
	tile, end := g.r64(), g.r64()
	g.op("mul.lo.u64 %s, %s, %s", tile, b, tpb)
	g.op("add.u64 %s, %s, %s", end, tile, tpb)
	g.op("min.u64 %s, %s, %s", end, end, tiles)
	needKeys := g.has(sfKeysOut) || !g.has(sfSegDigit)
	needVals := g.has(sfVals)
	w64 := g.wide(g.warp)
	l64 := g.wide(g.lane)
	loop, done := g.label("tile"), g.label("tiles_done")
	g.at(loop)
	p := g.pred()
	g.op("setp.ge.u64 %s, %s, %s", p, tile, end)
	g.op("@%s bra %s", p, done)
	base := g.r64()
	g.op("mul.lo.u64 %s, %s, %d", base, tile, sortTile)
	count := g.r64()
	g.op("sub.u64 %s, %s, %s", count, n, base)
	g.op("min.u64 %s, %s, %d", count, count, sortTile)
	count32 := g.r32()
	g.op("cvt.u32.u64 %s, %s", count32, count)
	keys := make([]string, sortItems)
	vals := make([]string, sortItems)
	digits := make([]string, sortItems)
	valid := make([]string, sortItems)
	for r := range sortItems {
		e := g.r64()
		g.op("mad.lo.u64 %s, %s, %d, %s", e, w64, 32*sortItems, base)
		g.op("add.u64 %s, %s, %s", e, e, l64)
		g.op("add.u64 %s, %s, %d", e, e, 32*r)
		valid[r] = g.pred()
		g.op("setp.lt.u64 %s, %s, %s", valid[r], e, n)
		if needKeys {
			keys[r] = g.loadKey(keysIn, e, valid[r])
		}
		if needVals {
			vals[r] = g.loadVal(valsIn, e, valid[r])
		}
		if g.has(sfSegDigit) {
			digits[r] = g.segDigit(vals[r], rowLen, shift)
		} else {
			digits[r] = g.keyDigit(keys[r], shift)
		}
	}
	dest := g.rank(digits, valid)
	for r := range sortItems {
		if needKeys {
			g.storeKeyShared(dest[r], keys[r], valid[r])
		}
		if needVals {
			g.op("@%s st.shared.u32 [%s], %s", valid[r], g.at32(g.sh.vals, dest[r], 4), vals[r])
		}
	}
	g.op("bar.sync 0")
	// Out through shared memory: position i of the sorted tile goes to
	// goff[d] + i - dstart[d].
	i := g.r32()
	g.op("mov.u32 %s, %s", i, g.tid)
	wl, wdone := g.label("write"), g.label("write_done")
	g.at(wl)
	pw := g.pred()
	g.op("setp.ge.u32 %s, %s, %s", pw, i, count32)
	g.op("@%s bra %s", pw, wdone)
	var k, val, d string
	if needKeys {
		k = g.loadKeyShared(i, "")
	}
	if needVals {
		val = g.r32()
		g.op("ld.shared.u32 %s, [%s]", val, g.at32(g.sh.vals, i, 4))
	}
	if g.has(sfSegDigit) {
		d = g.segDigit(val, rowLen, shift)
	} else {
		d = g.keyDigit(k, shift)
	}
	gp, ds := g.r32(), g.r32()
	g.op("ld.shared.u32 %s, [%s]", gp, g.at32(goff, d, 4))
	g.op("ld.shared.u32 %s, [%s]", ds, g.at32(g.sh.dstart, d, 4))
	g.op("add.u32 %s, %s, %s", gp, gp, i)
	g.op("sub.u32 %s, %s, %s", gp, gp, ds)
	gp64 := g.wide(gp)
	g.writeOut(keysOut, valsOut, gp64, k, val, rowLen)
	g.op("add.u32 %s, %s, %d", i, i, sortBlock)
	g.op("bra %s", wl)
	g.at(wdone)
	g.op("bar.sync 0")
	c := g.r32()
	g.op("ld.shared.u32 %s, [%s]", c, g.at32(g.sh.dcount, g.tid, 4))
	g.op("ld.shared.u32 %s, [%s]", o, myGoff)
	g.op("add.u32 %s, %s, %s", o, o, c)
	g.op("st.shared.u32 [%s], %s", myGoff, o)
	g.op("bar.sync 0")
	g.op("add.u64 %s, %s, 1", tile, tile)
	g.op("bra %s", loop)
	g.at(done)
	return g.module(header)
}

// writeOut stores a sorted element at output position gp (u64): its key
// (transformed or decoded) and its position (u32, or int64 mod L).
func (g *sortGen) writeOut(keysOut, valsOut, gp, k, val, rowLen string) {
	if g.has(sfKeysOut) {
		if g.has(sfKeysDecoded) {
			raw := g.emitDecode(k, g.t, g.has(sfDesc))
			g.storeElem(g.addr(keysOut, gp, g.t.Size()), g.t.Size(), elemRegs{raw}, "")
		} else {
			g.storeElem(g.addr(keysOut, gp, g.w/8), g.w/8, elemRegs{k}, "")
		}
	}
	switch {
	case g.has(sfValsFinal):
		j := g.r32()
		g.op("rem.u32 %s, %s, %s", j, val, rowLen)
		g.op("st.global.u64 [%s], %s", g.addr(valsOut, gp, 8), g.wide(j))
	case g.has(sfValsOut):
		g.op("st.global.u32 [%s], %s", g.addr(valsOut, gp, 4), val)
	}
}

// blockSortPTX sorts whole rows, one per block (grid-stride): params
// keys (raw), keys_out (decoded, or 0), idx_out (int64, or 0), rows, L.
// Variant: a = element type, b = flags (sfDesc, sfKeysOut, sfValsFinal),
// c = items (rows of up to sortBlock·items elements).
func blockSortPTX(v variant, entry, header string) string {
	g := newSortGen(entry, dtype.DType(v.a), int(v.b)|sfRawIn|sfVals, int(v.c))
	keysIn, keysOut, idxOut := g.global("keys"), g.global("keys_out"), g.global("idx_out")
	rows, rowLen64 := g.param("u64", "rows"), g.param("u64", "L")
	rowLen := g.r32()
	g.op("cvt.u32.u64 %s, %s", rowLen, rowLen64)
	g.setup(true)
	row := g.wide(g.special("ctaid.x"))
	nrows := g.wide(g.special("nctaid.x"))
	loop, done := g.label("row"), g.label("rows_done")
	g.at(loop)
	p := g.pred()
	g.op("setp.ge.u64 %s, %s, %s", p, row, rows)
	g.op("@%s bra %s", p, done)
	rowBase := g.r64()
	g.op("mul.lo.u64 %s, %s, %s", rowBase, row, rowLen64)
	keys := make([]string, g.items)
	vals := make([]string, g.items)
	valid := make([]string, g.items)
	js := make([]string, g.items)
	for r := range g.items {
		j := g.r32()
		g.op("mad.lo.u32 %s, %s, %d, %s", j, g.warp, 32*g.items, g.lane)
		g.op("add.u32 %s, %s, %d", j, j, 32*r)
		js[r] = j
		valid[r] = g.pred()
		g.op("setp.lt.u32 %s, %s, %s", valid[r], j, rowLen)
		e := g.r64()
		g.op("add.u64 %s, %s, %s", e, rowBase, g.wide(j))
		keys[r] = g.loadKey(keysIn, e, valid[r])
		vals[r] = g.r32()
		g.op("mov.u32 %s, %s", vals[r], j)
	}
	passes := g.w / 8
	for pass := range passes {
		digits := make([]string, g.items)
		for r := range g.items {
			digits[r] = g.emitDigit(keys[r], g.w, 8*pass)
		}
		dest := g.rank(digits, valid)
		for r := range g.items {
			g.storeKeyShared(dest[r], keys[r], valid[r])
			g.op("@%s st.shared.u32 [%s], %s", valid[r], g.at32(g.sh.vals, dest[r], 4), vals[r])
		}
		g.op("bar.sync 0")
		if pass == passes-1 {
			break
		}
		for r := range g.items {
			keys[r] = g.loadKeyShared(js[r], valid[r])
			g.op("@%s ld.shared.u32 %s, [%s]", valid[r], vals[r], g.at32(g.sh.vals, js[r], 4))
		}
		g.op("bar.sync 0")
	}
	// Out, coalesced.
	i := g.r32()
	g.op("mov.u32 %s, %s", i, g.tid)
	wl, wdone := g.label("write"), g.label("write_done")
	g.at(wl)
	pw := g.pred()
	g.op("setp.ge.u32 %s, %s, %s", pw, i, rowLen)
	g.op("@%s bra %s", pw, wdone)
	gp := g.r64()
	g.op("add.u64 %s, %s, %s", gp, rowBase, g.wide(i))
	if g.has(sfKeysOut) {
		k := g.loadKeyShared(i, "")
		raw := g.emitDecode(k, g.t, g.has(sfDesc))
		g.storeElem(g.addr(keysOut, gp, g.t.Size()), g.t.Size(), elemRegs{raw}, "")
	}
	if g.has(sfValsFinal) {
		val := g.r32()
		g.op("ld.shared.u32 %s, [%s]", val, g.at32(g.sh.vals, i, 4))
		g.op("st.global.u64 [%s], %s", g.addr(idxOut, gp, 8), g.wide(val))
	}
	g.op("add.u32 %s, %s, %d", i, i, sortBlock)
	g.op("bra %s", wl)
	g.at(wdone)
	g.op("bar.sync 0")
	g.op("add.u64 %s, %s, %s", row, row, nrows)
	g.op("bra %s", loop)
	g.at(done)
	return g.module(header)
}

// checkSortType panics on a type the sort kernels cannot key (callers
// refuse those first).
func checkSortType(t dtype.DType) {
	if _, err := keyBits(t); err != nil {
		panic(fmt.Sprintf("kernels: %v", err))
	}
}
