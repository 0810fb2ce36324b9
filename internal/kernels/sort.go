package kernels

import (
	"encoding/binary"
	"fmt"
	"slices"

	"github.com/gpuarr/gpuarr/device"
	"github.com/gpuarr/gpuarr/device/dtype"
	"github.com/gpuarr/gpuarr/device/hostkernel"
	"github.com/gpuarr/gpuarr/internal/arg"
	"github.com/gpuarr/gpuarr/internal/fusion"
	"github.com/gpuarr/gpuarr/internal/fusion/expr"
	"github.com/gpuarr/gpuarr/internal/lifetime"
	"github.com/gpuarr/gpuarr/internal/tracking"
)

// blockSortMax is the longest row the block sort takes (sortBlock ·
// sortItems elements: one tile in shared memory).
const blockSortMax = sortTile

func init() {
	generators[kRadixUp] = generator{name: "radix_up", ptx: radixUpsweepPTX, host: radixUpsweepHost}
	generators[kRadixDown] = generator{name: "radix_down", ptx: radixDownsweepPTX, host: radixDownsweepHost}
	generators[kBlockSort] = generator{name: "block_sort", ptx: blockSortPTX, host: blockSortHost}
}

// Sort sorts each of Rows rows of L elements of Keys (contiguous, type T)
// stably, ascending or (Desc) descending, NaNs last either way (see
// sortkey.go), writing the sorted values to OutKeys and the positions
// within the row (int64) to OutIdx; either may be nil.
type Sort struct {
	Keys            *lifetime.Handle
	T               dtype.DType
	Rows, L         int
	Desc            bool
	OutKeys, OutIdx *lifetime.Handle
}

// MaxSortElements bounds the elements one sort handles (positions travel
// as 32-bit integers).
const MaxSortElements = 1<<32 - 1

// Run queues the sort on s: one block-sort kernel when a row fits a block
// (up to blockSortMax elements); else, for one row, the one-sweep radix
// sort (onesweep.go); else a radix sort of the whole array whose passes
// cover the key's bytes, then the row number's bytes (its temporaries
// from the pool on s).
func (a *Sort) Run(call string, s *device.Stream) error {
	n := a.Rows * a.L
	if n == 0 || a.OutKeys == nil && a.OutIdx == nil {
		return nil
	}
	if _, err := keyBits(a.T); err != nil {
		return errArgument(call, "%v", err)
	}
	if n > MaxSortElements {
		return fmt.Errorf("gpuarr.%s: %d elements: sorting is limited to 2³²-1 elements at once: %w", call, n, arg.ErrShape)
	}
	if a.L <= blockSortMax {
		return a.blockSort(call, s)
	}
	if a.Rows == 1 && n < onesweepMax && SortOnesweep {
		return a.onesweep(call, s)
	}
	return a.radix(call, s)
}

func (a *Sort) blockSort(call string, s *device.Stream) error {
	items := 1
	for sortBlock*items < a.L {
		items *= 2
	}
	flags := 0
	if a.Desc {
		flags |= sfDesc
	}
	if a.OutKeys != nil {
		flags |= sfKeysOut | sfKeysDecoded
	}
	if a.OutIdx != nil {
		flags |= sfValsFinal
	}
	k, err := kernel(s.Device(), variant{kind: kBlockSort, a: int32(a.T), b: int32(flags), c: int32(items)})
	if err != nil {
		return wrap(call, err)
	}
	cfg := device.LaunchConfig{Grid: device.Dim3{X: uint32(min(a.Rows, 1<<20))}, Block: device.Dim3{X: sortBlock}}
	o := lifetime.Claim{Call: call}
	o.Add(a.Keys, tracking.Read, s)
	ko, io := device.Ptr(0), device.Ptr(0)
	if a.OutKeys != nil {
		o.Add(a.OutKeys, tracking.Write, s)
		ko = a.OutKeys.Ptr()
	}
	if a.OutIdx != nil {
		o.Add(a.OutIdx, tracking.Write, s)
		io = a.OutIdx.Ptr()
	}
	if err := o.Begin(true); err != nil {
		return err
	}
	err = s.Launch(k, cfg, a.Keys.Ptr(), ko, io, uint64(a.Rows), uint64(a.L))
	o.End()
	return wrap(call, err)
}

// radixPlan is one radix sort's passes and buffers.
type radixPlan struct {
	n, rows, rowLen int
	nblocks, tpb    int
	keyPasses       int
	segPasses       int
}

func (a *Sort) radix(call string, s *device.Stream) error {
	w, _ := keyBits(a.T)
	n := a.Rows * a.L
	tiles := (n + sortTile - 1) / sortTile
	nb := min(tiles, max(1, s.Device().Info().Multiprocessors)*radixBlocksPerSM)
	tpb := (tiles + nb - 1) / nb
	nb = (tiles + tpb - 1) / tpb
	p := radixPlan{n: n, rows: a.Rows, rowLen: a.L, nblocks: nb, tpb: tpb, keyPasses: w / 8}
	for r := a.Rows - 1; r > 0; r >>= 8 {
		p.segPasses++
	}
	passes := p.keyPasses + p.segPasses
	needVals := a.OutIdx != nil || p.segPasses > 0

	tmp := sortTemps{call: call, s: s}
	defer tmp.done()
	temp := tmp.get
	keyBuf, valBuf, err := tmp.passBuffers(w, n, passes, needVals)
	if err != nil {
		return err
	}
	counts, err := temp(dtype.Uint32, radixBins*nb)
	if err != nil {
		return err
	}
	offsets, err := temp(dtype.Uint32, radixBins*nb)
	if err != nil {
		return err
	}
	countsLeaf := fusion.Leaf(counts, dtype.Uint32)

	for pass := range passes {
		flags := 0
		if a.Desc {
			flags |= sfDesc
		}
		shift := 8 * pass
		if pass >= p.keyPasses {
			flags |= sfSegDigit
			shift = 8 * (pass - p.keyPasses)
		}
		io, ioFlags := a.passBuffers(pass, passes, keyBuf, valBuf, needVals)
		flags |= ioFlags
		keysIn, valsIn, keysOut, valsOut := io[0], io[1], io[2], io[3]
		if err := p.pass(call, s, a.T, flags, shift, keysIn, valsIn, keysOut, valsOut, counts, offsets, countsLeaf); err != nil {
			return err
		}
	}
	return nil
}

// passBuffers returns radix pass pass's keys and positions in and out
// (keys in, positions in, keys out, positions out; nil where none) and
// the flags they take: the first pass reads the raw keys and generates
// positions, later passes read the previous pass's buffers, passes
// alternate between keyBuf/valBuf's two, and the last writes a's outputs.
func (a *Sort) passBuffers(pass, passes int, keyBuf, valBuf [2]*lifetime.Handle, needVals bool) (io [4]*lifetime.Handle, flags int) {
	io[0] = a.Keys
	if pass == 0 {
		flags |= sfRawIn
		if needVals {
			flags |= sfVals | sfGenVals
		}
	} else {
		io[0] = keyBuf[(pass-1)%2]
		if needVals {
			flags |= sfVals
			io[1] = valBuf[(pass-1)%2]
		}
	}
	if pass < passes-1 {
		flags |= sfKeysOut
		io[2] = keyBuf[pass%2]
		if needVals {
			flags |= sfValsOut
			io[3] = valBuf[pass%2]
		}
		return io, flags
	}
	if a.OutKeys != nil {
		flags |= sfKeysOut | sfKeysDecoded
		io[2] = a.OutKeys
	}
	if a.OutIdx != nil {
		flags |= sfValsFinal
		io[3] = a.OutIdx
	}
	return io, flags
}

// pass runs one digit's upsweep, scan and downsweep.
func (p *radixPlan) pass(call string, s *device.Stream, t dtype.DType, flags, shift int,
	keysIn, valsIn, keysOut, valsOut, counts, offsets *lifetime.Handle, countsLeaf *fusion.Node) error {
	dev := s.Device()
	upFlags := flags & (sfRawIn | sfDesc | sfSegDigit | sfVals | sfGenVals)
	up, err := kernel(dev, variant{kind: kRadixUp, a: int32(t), b: int32(upFlags)})
	if err != nil {
		return wrap(call, err)
	}
	down, err := kernel(dev, variant{kind: kRadixDown, a: int32(t), b: int32(flags)})
	if err != nil {
		return wrap(call, err)
	}
	cfg := device.LaunchConfig{Grid: device.Dim3{X: uint32(p.nblocks)}, Block: device.Dim3{X: sortBlock}}
	ptr := func(h *lifetime.Handle) device.Ptr {
		if h == nil {
			return 0
		}
		return h.Ptr()
	}
	o := lifetime.Claim{Call: call}
	o.Add(keysIn, tracking.Read, s)
	if valsIn != nil {
		o.Add(valsIn, tracking.Read, s)
	}
	o.Add(counts, tracking.Write, s)
	if err := o.Begin(true); err != nil {
		return err
	}
	err = s.Launch(up, cfg, ptr(keysIn), ptr(valsIn), counts.Ptr(), uint64(p.n), uint64(p.tpb), uint64(p.nblocks),
		uint32(p.rowLen), uint32(shift))
	o.End()
	if err != nil {
		return wrap(call, err)
	}
	if err := fusion.Scan(call, expr.ScanSum, true, offsets, countsLeaf, -1, s); err != nil {
		return err
	}
	o = lifetime.Claim{Call: call}
	o.Add(keysIn, tracking.Read, s)
	if valsIn != nil {
		o.Add(valsIn, tracking.Read, s)
	}
	o.Add(offsets, tracking.Read, s)
	if keysOut != nil {
		o.Add(keysOut, tracking.Write, s)
	}
	if valsOut != nil {
		o.Add(valsOut, tracking.Write, s)
	}
	if err := o.Begin(true); err != nil {
		return err
	}
	err = s.Launch(down, cfg, ptr(keysIn), ptr(valsIn), ptr(keysOut), ptr(valsOut), offsets.Ptr(), uint64(p.n),
		uint64(p.tpb), uint64(p.nblocks), uint32(p.rowLen), uint32(shift))
	o.End()
	return wrap(call, err)
}

// The twins.

// sortSource reads the sort kernels' inputs on the host.
type sortSource struct {
	t     dtype.DType
	w     int
	flags int
	keys  []byte
	vals  []byte
}

func (src *sortSource) key(e uint64) uint64 {
	if src.flags&sfRawIn != 0 {
		return keyOf(readBits(src.keys, e, src.t.Size()), src.t, src.flags&sfDesc != 0)
	}
	return readBits(src.keys, e, src.w/8)
}

func (src *sortSource) val(e uint64) uint32 {
	if src.flags&sfGenVals != 0 {
		return uint32(e)
	}
	return binary.LittleEndian.Uint32(src.vals[4*e:])
}

func (src *sortSource) digit(e uint64, rowLen, shift uint32) uint32 {
	if src.flags&sfSegDigit != 0 {
		return src.val(e) / rowLen >> shift & 255
	}
	return uint32(src.key(e) >> shift & 255)
}

func readBits(b []byte, i uint64, size int) uint64 {
	switch size {
	case 1:
		return uint64(b[i])
	case 2:
		return uint64(binary.LittleEndian.Uint16(b[2*i:]))
	case 4:
		return uint64(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return binary.LittleEndian.Uint64(b[8*i:])
}

func writeBits(b []byte, i uint64, size int, v uint64) {
	switch size {
	case 1:
		b[i] = byte(v)
	case 2:
		binary.LittleEndian.PutUint16(b[2*i:], uint16(v))
	case 4:
		binary.LittleEndian.PutUint32(b[4*i:], uint32(v))
	default:
		binary.LittleEndian.PutUint64(b[8*i:], v)
	}
}

// sortInputs views the keys and vals of an upsweep or downsweep.
func sortInputs(l *hostkernel.Launch, t dtype.DType, flags int, keys, vals hostkernel.Ptr, n uint64) (*sortSource, error) {
	src := &sortSource{t: t, w: 8 * t.Size(), flags: flags}
	ksize := uint64(src.w / 8)
	if flags&sfRawIn != 0 {
		ksize = uint64(t.Size())
	}
	var err error
	if keys != 0 {
		if src.keys, err = bytesAt(l, keys, n, ksize); err != nil {
			return nil, fmt.Errorf("keys: %w", err)
		}
	}
	if flags&sfVals != 0 && flags&sfGenVals == 0 {
		if src.vals, err = bytesAt(l, vals, n, 4); err != nil {
			return nil, fmt.Errorf("vals: %w", err)
		}
	}
	return src, nil
}

func radixUpsweepHost(v variant) hostkernel.Kernel {
	t, flags := dtype.DType(v.a), int(v.b)
	return func(l *hostkernel.Launch) error {
		a := &l.Args
		n, tpb, nb, rowLen, shift := a.U64(3), a.U64(4), a.U64(5), a.U32(6), a.U32(7)
		src, err := sortInputs(l, t, flags, a.Ptr(0), a.Ptr(1), n)
		if err != nil {
			return err
		}
		counts, err := hostkernel.View[uint32](l, a.Ptr(2), radixBins*nb)
		if err != nil {
			return err
		}
		tiles := (n + sortTile - 1) / sortTile
		l.ParallelFor(nb, func(lo, hi uint64) {
			for b := lo; b < hi; b++ {
				var hist [radixBins]uint32
				for e := b * tpb * sortTile; e < min((b+1)*tpb, tiles)*sortTile && e < n; e++ {
					hist[src.digit(e, rowLen, shift)]++
				}
				for d := range radixBins {
					counts[uint64(d)*nb+b] = hist[d]
				}
			}
		})
		return nil
	}
}

func radixDownsweepHost(v variant) hostkernel.Kernel {
	t, flags := dtype.DType(v.a), int(v.b)
	return func(l *hostkernel.Launch) error {
		a := &l.Args
		n, tpb, nb, rowLen, shift := a.U64(5), a.U64(6), a.U64(7), a.U32(8), a.U32(9)
		src, err := sortInputs(l, t, flags, a.Ptr(0), a.Ptr(1), n)
		if err != nil {
			return err
		}
		offsets, err := hostkernel.View[uint32](l, a.Ptr(4), radixBins*nb)
		if err != nil {
			return err
		}
		out, err := sortOutputs(l, t, flags, a.Ptr(2), a.Ptr(3), n)
		if err != nil {
			return err
		}
		tiles := (n + sortTile - 1) / sortTile
		l.ParallelFor(nb, func(lo, hi uint64) {
			for b := lo; b < hi; b++ {
				var goff [radixBins]uint32
				for d := range radixBins {
					goff[d] = offsets[uint64(d)*nb+b]
				}
				for e := b * tpb * sortTile; e < min((b+1)*tpb, tiles)*sortTile && e < n; e++ {
					d := src.digit(e, rowLen, shift)
					out.write(uint64(goff[d]), src, e, rowLen)
					goff[d]++
				}
			}
		})
		return nil
	}
}

// sortSink writes a sort kernel's outputs on the host.
type sortSink struct {
	t     dtype.DType
	w     int
	flags int
	keys  []byte
	vals  []byte
}

func sortOutputs(l *hostkernel.Launch, t dtype.DType, flags int, keys, vals hostkernel.Ptr, n uint64) (*sortSink, error) {
	out := &sortSink{t: t, w: 8 * t.Size(), flags: flags}
	var err error
	if flags&sfKeysOut != 0 {
		size := uint64(out.w / 8)
		if flags&sfKeysDecoded != 0 {
			size = uint64(t.Size())
		}
		if out.keys, err = bytesAt(l, keys, n, size); err != nil {
			return nil, fmt.Errorf("keys out: %w", err)
		}
	}
	switch {
	case flags&sfValsFinal != 0:
		out.vals, err = bytesAt(l, vals, n, 8)
	case flags&sfValsOut != 0:
		out.vals, err = bytesAt(l, vals, n, 4)
	}
	if err != nil {
		return nil, fmt.Errorf("vals out: %w", err)
	}
	return out, nil
}

func (out *sortSink) write(gp uint64, src *sortSource, e uint64, rowLen uint32) {
	if out.flags&sfKeysOut != 0 {
		k := src.key(e)
		if out.flags&sfKeysDecoded != 0 {
			writeBits(out.keys, gp, out.t.Size(), decodeKey(k, out.t, out.flags&sfDesc != 0))
		} else {
			writeBits(out.keys, gp, out.w/8, k)
		}
	}
	switch {
	case out.flags&sfValsFinal != 0:
		binary.LittleEndian.PutUint64(out.vals[8*gp:], uint64(src.val(e)%rowLen))
	case out.flags&sfValsOut != 0:
		binary.LittleEndian.PutUint32(out.vals[4*gp:], src.val(e))
	}
}

func blockSortHost(v variant) hostkernel.Kernel {
	t, flags := dtype.DType(v.a), int(v.b)
	desc := flags&sfDesc != 0
	return func(l *hostkernel.Launch) error {
		a := &l.Args
		rows, rowLen := a.U64(3), a.U64(4)
		n := rows * rowLen
		size := t.Size()
		keys, err := bytesAt(l, a.Ptr(0), n, uint64(size))
		if err != nil {
			return err
		}
		var keysOut, idxOut []byte
		if flags&sfKeysOut != 0 {
			if keysOut, err = bytesAt(l, a.Ptr(1), n, uint64(size)); err != nil {
				return err
			}
		}
		if flags&sfValsFinal != 0 {
			if idxOut, err = bytesAt(l, a.Ptr(2), n, 8); err != nil {
				return err
			}
		}
		l.ParallelFor(rows, func(lo, hi uint64) {
			ks := make([]uint64, rowLen)
			perm := make([]int, rowLen)
			for r := lo; r < hi; r++ {
				base := r * rowLen
				for j := range ks {
					ks[j] = keyOf(readBits(keys, base+uint64(j), size), t, desc)
					perm[j] = j
				}
				slices.SortStableFunc(perm, func(x, y int) int {
					switch {
					case ks[x] < ks[y]:
						return -1
					case ks[x] > ks[y]:
						return 1
					}
					return 0
				})
				for i, j := range perm {
					if keysOut != nil {
						writeBits(keysOut, base+uint64(i), size, decodeKey(ks[j], t, desc))
					}
					if idxOut != nil {
						binary.LittleEndian.PutUint64(idxOut[8*(base+uint64(i)):], uint64(j))
					}
				}
			}
		})
		return nil
	}
}

// sortTemps hands out a sort's temporaries (lifetime.Temp on its stream)
// and gives them all back with done.
type sortTemps struct {
	call string
	s    *device.Stream
	hs   []*lifetime.Handle
}

func (t *sortTemps) get(dt dtype.DType, count int) (*lifetime.Handle, error) {
	h, err := lifetime.Temp(t.call, t.s, dt, []int{count})
	if err == nil {
		t.hs = append(t.hs, h)
	}
	return h, err
}

func (t *sortTemps) done() {
	for _, h := range t.hs {
		h.Done()
	}
}

// passBuffers returns the two buffers of w-bit keys (and, with needVals,
// of u32 positions) of n elements that a radix sort's passes alternate
// between (as many as passes − 1 needs, at most two).
func (t *sortTemps) passBuffers(w, n, passes int, needVals bool) (keyBuf, valBuf [2]*lifetime.Handle, err error) {
	keyT := map[int]dtype.DType{8: dtype.Uint8, 16: dtype.Uint16, 32: dtype.Uint32, 64: dtype.Uint64}[w]
	for i := range min(passes-1, 2) {
		if keyBuf[i], err = t.get(keyT, n); err != nil {
			return keyBuf, valBuf, err
		}
		if needVals {
			if valBuf[i], err = t.get(dtype.Uint32, n); err != nil {
				return keyBuf, valBuf, err
			}
		}
	}
	return keyBuf, valBuf, nil
}
