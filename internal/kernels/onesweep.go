package kernels

import (
	"fmt"
	"sync"

	"github.com/gpuarr/gpuarr/device"
	"github.com/gpuarr/gpuarr/device/dtype"
	"github.com/gpuarr/gpuarr/device/hostkernel"
	"github.com/gpuarr/gpuarr/internal/lifetime"
	"github.com/gpuarr/gpuarr/internal/tracking"
)

// The one-sweep radix sort: the radix sort of one long row (Sort.Rows
// == 1), a least-significant-digit sort whose passes each read the keys
// once.
//
//	histogram  one kernel reads the keys once and counts the digits of
//	           every pass (passes × 256 counts: per-block counts in shared
//	           memory, added to the global table atomically);
//	pass       one kernel per digit: a block takes tiles of
//	           sortBlock·items elements from a tile counter, one after
//	           another, ranks a tile stably by digit (rank), publishes each
//	           digit's count in the tile's status words, finds each digit's
//	           count in the tiles before it by decoupled look-back, and
//	           writes the tile out through shared memory, each digit's
//	           elements at the digit's start (an exclusive scan of the
//	           pass's 256 counts, done once per block) plus its count in
//	           the tiles before.
//
// A tile's status word for digit d is one 32-bit word: a flag in the top
// two bits (0 not yet published, osAggregate: the tile's own count,
// osInclusive: the count in this tile and every one before) and the count
// in the low 30 bits, stored and loaded whole (st/ld.volatile), so a
// reader sees a flag with its own count and no fence orders them (as the
// scan's descriptors, package ptxgen). The counts fit 30 bits: the
// one-sweep sort takes fewer than onesweepMax elements. Thread d of a
// block looks back for digit d alone: it adds the aggregates of the tiles
// before until it meets an inclusive count. Tiles are taken in order
// after the previous tile's look-back, so a block only ever waits for
// tiles that running blocks hold, each of which publishes its aggregates
// before it waits on anything.
//
// The status words start at zero (the caller clears them before each
// pass); the tile counter of each pass starts at zero and ends at tiles
// plus the number of blocks (each block's last request finds no tile).
const (
	osAggregate = 1 << 30
	osInclusive = 2 << 30
	osCountMask = 1<<30 - 1
	// onesweepMax bounds the one-sweep sort's elements (the status
	// words' counts).
	onesweepMax = 1 << 30
	// onesweepItems is the default elements per thread of a pass's tile
	// and onesweepBlocksPerSM the default blocks per multiprocessor (the
	// fastest of 8/5, 8/4, 16/4 and 16/3 for 2^26 float32 keys on an
	// H100: BENCHMARKS.md).
	onesweepItems       = 16
	onesweepBlocksPerSM = 3
)

// The one-sweep sort's switches, for benchmarks (read when a sort is
// queued; set them before sorting, not while a sort is being queued).
var (
	// SortOnesweep selects the one-sweep radix sort for one long row
	// (true); false takes the reduce-then-scan passes (radix) instead.
	SortOnesweep = true
	// SortOnesweepItems is the elements per thread of a pass's tile: 1,
	// 2, 4, 8 or 16 (another value counts as 8; 64-bit keys take at most
	// 8, for the tile's shared memory).
	SortOnesweepItems = onesweepItems
	// SortOnesweepBlocksPerSM is the blocks per multiprocessor of a
	// pass's grid, which its kernel is compiled to fit at once
	// (.minnctapersm: registers).
	SortOnesweepBlocksPerSM = onesweepBlocksPerSM
)

// onesweepConfig is the passes' items per thread and blocks per
// multiprocessor for w-bit keys.
func onesweepConfig(w int) (items, perSM int) {
	items = SortOnesweepItems
	switch items {
	case 1, 2, 4, 8, 16:
	default:
		items = onesweepItems
	}
	if w == 64 {
		items = min(items, 8)
	}
	return items, max(1, SortOnesweepBlocksPerSM)
}

func init() {
	generators[kRadixHist] = generator{name: "radix_hist", ptx: radixHistPTX, host: radixHistHost}
	generators[kOnesweep] = generator{name: "radix_onesweep", ptx: onesweepPTX, host: onesweepHost}
}

// radixHistPTX counts the digits of every pass of the keys: params keys
// (values of the element type), counts (u32, passes × 256, digit d of pass
// p at p·256 + d; added to), n. Variant: a = element type, b = flags
// (sfDesc). Grid-stride over tiles of sortTile elements.
func radixHistPTX(v variant, entry, header string) string {
	g := newSortGen(entry, dtype.DType(v.a), int(v.b)|sfRawIn, sortItems)
	keys, counts := g.global("keys"), g.global("counts")
	n := g.param("u64", "n")
	passes := g.w / 8
	g.tid = g.special("tid.x")
	hist := g.sharedAddr(g.sharedArray("radix_hist", 16, 4*passes*radixBins))
	zero := g.r32()
	g.op("mov.u32 %s, 0", zero)
	mine := g.at32(hist, g.tid, 4)
	for p := range passes {
		g.op("st.shared.u32 [%s+%d], %s", mine, 4*radixBins*p, zero)
	}
	g.op("bar.sync 0")
	tile := g.wide(g.special("ctaid.x"))
	stride := g.wide(g.special("nctaid.x"))
	tiles := g.r64()
	g.op("add.u64 %s, %s, %d", tiles, n, sortTile-1)
	g.op("shr.u64 %s, %s, %d", tiles, tiles, log2(sortTile))
	t64 := g.wide(g.tid)
	one := g.r32()
	g.op("mov.u32 %s, 1", one)
	loop, done := g.label("tile"), g.label("tiles_done")
	g.at(loop)
	p := g.pred()
	g.op("setp.ge.u64 %s, %s, %s", p, tile, tiles)
	g.op("@%s bra %s", p, done)
	ks := make([]string, sortItems)
	valid := make([]string, sortItems)
	for r := range sortItems {
		e := g.r64()
		g.op("mad.lo.u64 %s, %s, %d, %s", e, tile, sortTile, t64)
		g.op("add.u64 %s, %s, %d", e, e, r*sortBlock)
		valid[r] = g.pred()
		g.op("setp.lt.u64 %s, %s, %s", valid[r], e, n)
		ks[r] = g.loadKey(keys, e, valid[r])
	}
	for r := range sortItems {
		for pass := range passes {
			d := g.emitDigit(ks[r], g.w, 8*pass)
			a := g.at32(hist, d, 4)
			g.op("@%s red.shared.add.u32 [%s+%d], %s", valid[r], a, 4*radixBins*pass, one)
		}
	}
	g.op("add.u64 %s, %s, %s", tile, tile, stride)
	g.op("bra %s", loop)
	g.at(done)
	g.op("bar.sync 0")
	for pass := range passes {
		c, nz := g.r32(), g.pred()
		g.op("ld.shared.u32 %s, [%s+%d]", c, mine, 4*radixBins*pass)
		g.op("setp.ne.u32 %s, %s, 0", nz, c)
		i := g.r64()
		g.op("add.u64 %s, %s, %d", i, t64, radixBins*pass)
		g.op("@%s red.global.add.u32 [%s], %s", nz, g.addr(counts, i, 4), c)
	}
	return g.module(header)
}

// onesweepPTX is one pass of the one-sweep sort: params keys_in, vals_in,
// keys_out, vals_out, hist (the pass's 256 digit counts, u32), counter
// (u32, zero), status (u32, tiles × 256, zero), n, L (n: the row's
// length, for sfValsFinal), shift. Variant: a = element type, b = flags
// (as the downsweep's, without sfSegDigit), c = items per thread, d =
// blocks per multiprocessor to fit (0: no directive).
func onesweepPTX(v variant, entry, header string) string {
	g := newSortGen(entry, dtype.DType(v.a), int(v.b), int(v.c))
	g.tuning = fmt.Sprintf(".maxntid %d, 1, 1", sortBlock)
	if v.d > 0 {
		g.tuning += fmt.Sprintf("\n.minnctapersm %d", v.d)
	}
	keysIn, valsIn, keysOut, valsOut := g.global("keys_in"), g.global("vals_in"), g.global("keys_out"), g.global("vals_out")
	histP, counter, status := g.global("hist"), g.global("counter"), g.global("status")
	n, rowLen, shift := g.param("u64", "n"), g.param("u32", "L"), g.param("u32", "shift")
	g.setup(true)
	tileSize := sortBlock * g.items
	goff := g.sharedAddr(g.sharedArray("sort_goff", 16, 4*radixBins))
	tileSh := g.sharedAddr(g.sharedArray("sort_next", 16, 4))
	myGoff := g.at32(goff, g.tid, 4)
	t64 := g.wide(g.tid)
	tid0 := g.pred()
	g.op("setp.eq.u32 %s, %s, 0", tid0, g.tid)

	// Thread d: digit d's first output position, an exclusive scan of the
	// pass's counts over the block (once per block).
	hc := g.r32()
	g.op("ld.global.u32 %s, [%s]", hc, g.addr(histP, t64, 4))
	incl := g.warpScan(hc, g.lane)
	last := g.pred()
	g.op("setp.eq.u32 %s, %s, 31", last, g.lane)
	g.op("@%s st.shared.u32 [%s], %s", last, g.at32(g.sh.wsum, g.warp, 4), incl)
	// The first tile.
	one, t0 := g.r32(), g.r32()
	g.op("mov.u32 %s, 1", one)
	g.op("@%s atom.global.add.u32 %s, [%s], %s", tid0, t0, counter, one)
	g.op("@%s st.shared.u32 [%s], %s", tid0, tileSh, t0)
	g.op("bar.sync 0")
	gstart := g.r32()
	g.op("sub.u32 %s, %s, %s", gstart, incl, hc)
	for w := range sortWarps - 1 {
		v, before := g.r32(), g.pred()
		g.op("ld.shared.u32 %s, [%s+%d]", v, g.sh.wsum, 4*w)
		g.op("setp.gt.u32 %s, %s, %d", before, g.warp, w)
		g.op("@%s add.u32 %s, %s, %s", before, gstart, gstart, v)
	}
	// The ranking rewrites wsum only after its first barrier, which every
	// thread reaches after reading it here.

	tiles := g.r64()
	g.op("add.u64 %s, %s, %d", tiles, n, tileSize-1)
	g.op("div.u64 %s, %s, %d", tiles, tiles, tileSize)
	needVals := g.has(sfVals)
	w64 := g.wide(g.warp)
	l64 := g.wide(g.lane)
	loop, exit := g.label("tile"), g.label("tiles_done")
	g.at(loop)
	tile32 := g.r32()
	g.op("ld.shared.u32 %s, [%s]", tile32, tileSh)
	tile := g.wide(tile32)
	p := g.pred()
	g.op("setp.ge.u64 %s, %s, %s", p, tile, tiles)
	g.op("@%s bra %s", p, exit)
	base := g.r64()
	g.op("mul.lo.u64 %s, %s, %d", base, tile, tileSize)
	count := g.r64()
	g.op("sub.u64 %s, %s, %s", count, n, base)
	g.op("min.u64 %s, %s, %d", count, count, tileSize)
	count32 := g.r32()
	g.op("cvt.u32.u64 %s, %s", count32, count)
	keys := make([]string, g.items)
	vals := make([]string, g.items)
	digits := make([]string, g.items)
	valid := make([]string, g.items)
	for r := range g.items {
		e := g.r64()
		g.op("mad.lo.u64 %s, %s, %d, %s", e, w64, 32*g.items, base)
		g.op("add.u64 %s, %s, %s", e, e, l64)
		g.op("add.u64 %s, %s, %d", e, e, 32*r)
		valid[r] = g.pred()
		g.op("setp.lt.u64 %s, %s, %s", valid[r], e, n)
		keys[r] = g.loadKey(keysIn, e, valid[r])
		if needVals {
			vals[r] = g.loadVal(valsIn, e, valid[r])
		}
		digits[r] = g.keyDigit(keys[r], shift)
	}
	dest := g.rank(digits, valid)

	// Publish digit d's count in this tile: inclusive for the first tile,
	// else an aggregate.
	cnt := g.r32()
	g.op("ld.shared.u32 %s, [%s]", cnt, g.at32(g.sh.dcount, g.tid, 4))
	si := g.r64()
	g.op("mad.lo.u64 %s, %s, %d, %s", si, tile, radixBins, t64)
	me := g.addr(status, si, 4)
	first := g.pred()
	g.op("setp.eq.u32 %s, %s, 0", first, tile32)
	word := g.r32()
	g.op("selp.b32 %s, %s, %s, %s", word, hex(osInclusive), hex(osAggregate), first)
	g.op("or.b32 %s, %s, %s", word, word, cnt)
	g.op("st.volatile.global.u32 [%s], %s", me, word)

	// The tile into shared memory in digit order (while the predecessors
	// publish).
	for r := range g.items {
		g.storeKeyShared(dest[r], keys[r], valid[r])
		if needVals {
			g.op("@%s st.shared.u32 [%s], %s", valid[r], g.at32(g.sh.vals, dest[r], 4), vals[r])
		}
	}

	// Look back for digit d: add the aggregates of the tiles before up
	// to the first inclusive count.
	prefix := g.r32()
	g.op("mov.u32 %s, 0", prefix)
	lbDone := g.label("lb_done")
	g.op("@%s bra %s", first, lbDone)
	j := g.r64()
	g.op("mov.u64 %s, %s", j, si)
	lb, spin := g.label("lb"), g.label("lb_spin")
	g.at(lb)
	g.op("sub.u64 %s, %s, %d", j, j, radixBins)
	a := g.addr(status, j, 4)
	sw, fl := g.r32(), g.r32()
	g.at(spin)
	g.op("ld.volatile.global.u32 %s, [%s]", sw, a)
	g.op("shr.u32 %s, %s, 30", fl, sw)
	pending, inc := g.pred(), g.pred()
	g.op("setp.eq.u32 %s, %s, 0", pending, fl)
	g.op("@%s bra %s", pending, spin)
	c := g.r32()
	g.op("and.b32 %s, %s, %s", c, sw, hex(osCountMask))
	g.op("add.u32 %s, %s, %s", prefix, prefix, c)
	g.op("setp.eq.u32 %s, %s, 2", inc, fl)
	g.op("@!%s bra %s", inc, lb)
	g.op("add.u32 %s, %s, %s", word, prefix, cnt)
	g.op("or.b32 %s, %s, %s", word, word, hex(osInclusive))
	g.op("st.volatile.global.u32 [%s], %s", me, word)
	g.at(lbDone)

	// Position i of the sorted tile goes to goff[d] + i: the digit's
	// start, plus its count in the tiles before, less its first position
	// in the tile (modulo 2³²).
	ds := g.r32()
	g.op("ld.shared.u32 %s, [%s]", ds, g.at32(g.sh.dstart, g.tid, 4))
	o := g.r32()
	g.op("add.u32 %s, %s, %s", o, gstart, prefix)
	g.op("sub.u32 %s, %s, %s", o, o, ds)
	g.op("st.shared.u32 [%s], %s", myGoff, o)
	g.op("bar.sync 0")
	// The next tile, once every digit's look-back is done; every thread
	// read the current one before the ranking's barriers.
	next := g.r32()
	g.op("@%s atom.global.add.u32 %s, [%s], %s", tid0, next, counter, one)
	g.op("@%s st.shared.u32 [%s], %s", tid0, tileSh, next)

	i := g.r32()
	g.op("mov.u32 %s, %s", i, g.tid)
	wl, wdone := g.label("write"), g.label("write_done")
	g.at(wl)
	pw := g.pred()
	g.op("setp.ge.u32 %s, %s, %s", pw, i, count32)
	g.op("@%s bra %s", pw, wdone)
	k := g.loadKeyShared(i, "")
	var val string
	if needVals {
		val = g.r32()
		g.op("ld.shared.u32 %s, [%s]", val, g.at32(g.sh.vals, i, 4))
	}
	d := g.keyDigit(k, shift)
	gp := g.r32()
	g.op("ld.shared.u32 %s, [%s]", gp, g.at32(goff, d, 4))
	g.op("add.u32 %s, %s, %s", gp, gp, i)
	g.writeOut(keysOut, valsOut, g.wide(gp), k, val, rowLen)
	g.op("add.u32 %s, %s, %d", i, i, sortBlock)
	g.op("bra %s", wl)
	g.at(wdone)
	g.op("bar.sync 0")
	g.op("bra %s", loop)
	g.at(exit)
	return g.module(header)
}

// The twins.

func radixHistHost(v variant) hostkernel.Kernel {
	t, flags := dtype.DType(v.a), int(v.b)|sfRawIn
	return func(l *hostkernel.Launch) error {
		a := &l.Args
		n := a.U64(2)
		src, err := sortInputs(l, t, flags, a.Ptr(0), 0, n)
		if err != nil {
			return err
		}
		passes := uint64(src.w / 8)
		counts, err := hostkernel.View[uint32](l, a.Ptr(1), passes*radixBins)
		if err != nil {
			return err
		}
		var mu sync.Mutex
		l.ParallelFor(n, func(lo, hi uint64) {
			hist := make([]uint32, passes*radixBins)
			for e := lo; e < hi; e++ {
				k := src.key(e)
				for p := range passes {
					hist[p*radixBins+k>>(8*p)&255]++
				}
			}
			mu.Lock()
			for i, c := range hist {
				counts[i] += c
			}
			mu.Unlock()
		})
		return nil
	}
}

func onesweepHost(v variant) hostkernel.Kernel {
	t, flags, items := dtype.DType(v.a), int(v.b), uint64(v.c)
	return func(l *hostkernel.Launch) error {
		a := &l.Args
		n, rowLen, shift := a.U64(7), a.U32(8), a.U32(9)
		tileSize := sortBlock * items
		tiles := (n + tileSize - 1) / tileSize
		src, err := sortInputs(l, t, flags, a.Ptr(0), a.Ptr(1), n)
		if err != nil {
			return err
		}
		out, err := sortOutputs(l, t, flags, a.Ptr(2), a.Ptr(3), n)
		if err != nil {
			return err
		}
		hist, err := hostkernel.View[uint32](l, a.Ptr(4), radixBins)
		if err != nil {
			return err
		}
		counter, err := hostkernel.View[uint32](l, a.Ptr(5), 1)
		if err != nil {
			return err
		}
		status, err := hostkernel.View[uint32](l, a.Ptr(6), tiles*radixBins)
		if err != nil {
			return err
		}
		var start [radixBins]uint32
		run := uint32(0)
		for d := range radixBins {
			start[d] = run
			run += hist[d]
		}
		digit := func(e uint64) uint32 { return uint32(src.key(e) >> shift & 255) }
		// Each tile's counts (a chunk of elements takes the tiles that
		// start in it), then each digit's inclusive counts over the tiles.
		eachTile := func(body func(tile, lo, hi uint64)) {
			l.ParallelFor(n, func(lo, hi uint64) {
				for tile := (lo + tileSize - 1) / tileSize; tile*tileSize < hi; tile++ {
					body(tile, tile*tileSize, min((tile+1)*tileSize, n))
				}
			})
		}
		eachTile(func(tile, lo, hi uint64) {
			st := status[tile*radixBins : (tile+1)*radixBins]
			clear(st)
			for e := lo; e < hi; e++ {
				st[digit(e)]++
			}
		})
		for d := range uint64(radixBins) {
			incl := uint32(0)
			for tile := range tiles {
				incl += status[tile*radixBins+d]
				status[tile*radixBins+d] = incl
			}
		}
		eachTile(func(tile, lo, hi uint64) {
			st := status[tile*radixBins : (tile+1)*radixBins]
			var own, pos [radixBins]uint32
			for e := lo; e < hi; e++ {
				own[digit(e)]++
			}
			for d := range radixBins {
				pos[d] = start[d] + st[d] - own[d]
			}
			for e := lo; e < hi; e++ {
				d := digit(e)
				out.write(uint64(pos[d]), src, e, rowLen)
				pos[d]++
			}
		})
		for i := range status {
			status[i] |= osInclusive
		}
		blocks := max(l.Grid.X, 1) * max(l.Grid.Y, 1) * max(l.Grid.Z, 1)
		counter[0] += uint32(tiles) + blocks
		return nil
	}
}

// onesweepCounters is the words of the state that hold the passes' tile
// counters (one per pass, at most 8 passes).
const onesweepCounters = 16

// onesweep queues the one-sweep sort of one row of n elements (n <
// onesweepMax): the histogram, then one kernel per pass; its temporaries
// (the pass buffers and one state of passes × 256 counts, the tile
// counters and one pass's status words, cleared before each pass) come
// from the pool on s.
func (a *Sort) onesweep(call string, s *device.Stream) error {
	w, _ := keyBits(a.T)
	n := a.L
	passes := w / 8
	items, perSM := onesweepConfig(w)
	tileSize := sortBlock * items
	tiles := (n + tileSize - 1) / tileSize
	blocks := min(tiles, max(1, s.Device().Info().Multiprocessors)*perSM)
	needVals := a.OutIdx != nil

	tmp := sortTemps{call: call, s: s}
	defer tmp.done()
	temp := tmp.get
	keyBuf, valBuf, err := tmp.passBuffers(w, n, passes, needVals)
	if err != nil {
		return err
	}
	histWords := passes * radixBins
	statusWords := tiles * radixBins
	state, err := temp(dtype.Uint32, histWords+onesweepCounters+statusWords)
	if err != nil {
		return err
	}
	histAt := func(pass int) device.Ptr { return state.Ptr().Add(uint64(4 * pass * radixBins)) }
	counterAt := func(pass int) device.Ptr { return state.Ptr().Add(uint64(4 * (histWords + pass))) }
	status := state.Ptr().Add(uint64(4 * (histWords + onesweepCounters)))
	dev := s.Device()

	// The histogram of every pass.
	descFlag := 0
	if a.Desc {
		descFlag = sfDesc
	}
	hk, err := kernel(dev, variant{kind: kRadixHist, a: int32(a.T), b: int32(descFlag)})
	if err != nil {
		return wrap(call, err)
	}
	o := lifetime.Claim{Call: call}
	o.Add(a.Keys, tracking.Read, s)
	o.Add(state, tracking.Write, s)
	if err := o.Begin(true); err != nil {
		return err
	}
	err = s.Memset32(state.Ptr(), 0, uint64(histWords+onesweepCounters+statusWords))
	if err == nil {
		hcfg := device.LaunchConfig{Grid: device.Dim3{X: uint32(blocks)}, Block: device.Dim3{X: sortBlock}}
		err = s.Launch(hk, hcfg, a.Keys.Ptr(), state.Ptr(), uint64(n))
	}
	o.End()
	if err != nil {
		return wrap(call, err)
	}

	cfg := device.LaunchConfig{Grid: device.Dim3{X: uint32(blocks)}, Block: device.Dim3{X: sortBlock}}
	ptr := func(h *lifetime.Handle) device.Ptr {
		if h == nil {
			return 0
		}
		return h.Ptr()
	}
	for pass := range passes {
		flags := descFlag
		io, ioFlags := a.passBuffers(pass, passes, keyBuf, valBuf, needVals)
		flags |= ioFlags
		keysIn, valsIn, keysOut, valsOut := io[0], io[1], io[2], io[3]
		k, err := kernel(dev, variant{kind: kOnesweep, a: int32(a.T), b: int32(flags), c: int32(items), d: int32(perSM)})
		if err != nil {
			return wrap(call, err)
		}
		o := lifetime.Claim{Call: call}
		o.Add(keysIn, tracking.Read, s)
		if valsIn != nil {
			o.Add(valsIn, tracking.Read, s)
		}
		if keysOut != nil {
			o.Add(keysOut, tracking.Write, s)
		}
		if valsOut != nil {
			o.Add(valsOut, tracking.Write, s)
		}
		o.Add(state, tracking.ReadWrite, s)
		if err := o.Begin(true); err != nil {
			return err
		}
		if pass > 0 {
			err = s.Memset32(status, 0, uint64(statusWords))
		}
		if err == nil {
			err = s.Launch(k, cfg, ptr(keysIn), ptr(valsIn), ptr(keysOut), ptr(valsOut), histAt(pass), counterAt(pass), status,
				uint64(n), uint32(n), uint32(8*pass))
		}
		o.End()
		if err != nil {
			return wrap(call, err)
		}
	}
	return nil
}
