package kernels

import (
	"cmp"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gpuarr/gpuarr/device/dtype"
	"github.com/gpuarr/gpuarr/internal/ptxsim"
	"github.com/gpuarr/gpuarr/internal/testutil"
)

// onesweepSimTypes are the key types the one-sweep tests run: all of
// sortTypes; float32 alone under -race (the interpreter is
// single-threaded Go: the race detector only slows it).
func onesweepSimTypes() []dtype.DType {
	if testutil.RaceEnabled {
		return []dtype.DType{dtype.Float32}
	}
	return sortTypes
}

// simKeys reads n keys of the launch's memory at p: values of t (keyOf,
// raw) or transformed keys of w bits.
func simKeys(b []byte, t dtype.DType, raw, desc bool, n int) []uint64 {
	ks := make([]uint64, n)
	for i := range ks {
		if raw {
			ks[i] = keyOf(readBits(b, uint64(i), t.Size()), t, desc)
		} else {
			ks[i] = readBits(b, uint64(i), t.Size())
		}
	}
	return ks
}

func TestSimRadixHist(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	for _, tt := range onesweepSimTypes() {
		for _, desc := range []bool{false, true} {
			n := 1000 + rng.IntN(6000)
			s := newSimLaunch()
			keys := keyValues(s, tt, n, rng)
			counts := s.buf(4*tt.Size()*radixBins, rng) // added to
			s.ptr(keys)
			s.ptr(counts)
			s.u64(uint64(n))
			s.grid, s.block = ptxsim.Dim3{X: uint32(1 + rng.IntN(3))}, ptxsim.Dim3{X: sortBlock}
			flags := 0
			if desc {
				flags = sfDesc
			}
			s.compare(t, variant{kind: kRadixHist, a: int32(tt), b: int32(flags)}, fmt.Sprintf("histogram %s desc %v n %d", tt, desc, n), rng.Uint64())
		}
	}
}

// TestSimOnesweepPass runs one pass of the one-sweep sort as its twin and
// as its PTX on the same memory, with every block resident (look-backs
// over several tiles that have published only aggregates) and with one or
// two resident blocks taking many tiles each.
func TestSimOnesweepPass(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	for _, tt := range onesweepSimTypes() {
		w := 8 * tt.Size()
		for ci, c := range []struct {
			flags, shift int
		}{
			{sfRawIn | sfVals | sfGenVals | sfKeysOut | sfValsOut, 0},
			{sfRawIn | sfDesc | sfKeysOut, w - 8},
			{sfVals | sfKeysOut | sfKeysDecoded | sfValsFinal, w - 8},
			{sfDesc | sfVals | sfKeysOut | sfKeysDecoded, 0},
		} {
			tileSize := sortBlock * onesweepItems
			tiles := 3 + rng.IntN(3)
			n := (tiles-1)*tileSize + 1 + rng.IntN(tileSize)
			ksize := w / 8
			raw := c.flags&sfRawIn != 0
			if raw {
				ksize = tt.Size()
			}
			s := newSimLaunch()
			var keys uint64
			if raw {
				keys = keyValues(s, tt, n, rng)
			} else {
				keys = s.buf(n*ksize, rng)
			}
			if ci == 1 {
				// One digit gets every element.
				b := s.arena.Slice(keys)
				for i := range n {
					writeBits(b, uint64(i), ksize, readBits(b, 0, ksize))
				}
			}
			vals := s.buf(n*4, rng)
			vb := s.arena.Slice(vals)
			for i := range n {
				binary.LittleEndian.PutUint32(vb[4*i:], uint32(rng.IntN(n)))
			}
			ko, vo := uint64(0), uint64(0)
			if c.flags&sfKeysOut != 0 {
				size := w / 8
				if c.flags&sfKeysDecoded != 0 {
					size = tt.Size()
				}
				ko = s.buf(n*size, rng)
			}
			if c.flags&(sfValsOut|sfValsFinal) != 0 {
				size := 4
				if c.flags&sfValsFinal != 0 {
					size = 8
				}
				vo = s.buf(n*size, rng)
			}
			hist := s.buf(4*radixBins, rng)
			hb := s.arena.Slice(hist)
			clear(hb)
			for _, k := range simKeys(s.arena.Slice(keys), tt, raw, c.flags&sfDesc != 0, n) {
				d := k >> c.shift & 255
				binary.LittleEndian.PutUint32(hb[4*d:], binary.LittleEndian.Uint32(hb[4*d:])+1)
			}
			counter := s.buf(4, rng)
			clear(s.arena.Slice(counter))
			status := s.buf(4*radixBins*tiles, rng)
			clear(s.arena.Slice(status))
			for _, p := range []uint64{keys, vals, ko, vo, hist, counter, status} {
				s.ptr(p)
			}
			s.u64(uint64(n))
			s.u32(uint32(n))
			s.u32(uint32(c.shift))
			s.block = ptxsim.Dim3{X: sortBlock}
			for _, g := range []struct{ grid, resident int }{{tiles, 0}, {3, 1 + rng.IntN(2)}} {
				s.grid, s.resident = ptxsim.Dim3{X: uint32(g.grid)}, g.resident
				what := fmt.Sprintf("one-sweep pass %s flags %#x shift %d n %d grid %d resident %d", tt, c.flags, c.shift, n, g.grid, g.resident)
				s.compare(t, variant{kind: kOnesweep, a: int32(tt), b: int32(c.flags), c: onesweepItems, d: radixBlocksPerSM}, what, rng.Uint64())
				clear(s.arena.Slice(counter))
				clear(s.arena.Slice(status))
			}
		}
	}
}

// simOnesweep sorts the n keys of type t at keys (in arena) with the
// one-sweep kernels run in the PTX interpreter, as Sort.onesweep queues
// them (grid blocks per pass, resident of them at once), and returns the
// sorted values' bits and the indices.
func simOnesweep(t *testing.T, arena *ptxsim.Arena, tt dtype.DType, keys uint64, n int, desc bool, items, grid, resident int, seed uint64) ([]uint64, []int64) {
	t.Helper()
	w := 8 * tt.Size()
	passes := w / 8
	tileSize := sortBlock * items
	tiles := (n + tileSize - 1) / tileSize
	run := func(v variant, g int, params ...uint64) {
		t.Helper()
		mod, err := ptxsim.Parse(v.source(simHeader))
		require.NoError(t, err)
		err = mod.Run(v.entry(), ptxsim.Launch{Grid: ptxsim.Dim3{X: uint32(g)}, Block: ptxsim.Dim3{X: sortBlock},
			Params: params, Mem: arena, Seed: seed | 1, Resident: resident})
		require.NoError(t, err, "%s", generators[v.kind].name)
	}
	state := arena.Alloc(4 * (passes*radixBins + onesweepCounters + tiles*radixBins))
	clear(arena.Slice(state))
	status := state + uint64(4*(passes*radixBins+onesweepCounters))
	descFlag := 0
	if desc {
		descFlag = sfDesc
	}
	run(variant{kind: kRadixHist, a: int32(tt), b: int32(descFlag)}, min(tiles, 2), keys, state, uint64(n))
	var kb, vb [2]uint64
	for i := range kb {
		kb[i], vb[i] = arena.Alloc(n*w/8), arena.Alloc(4*n)
	}
	keysOut, idxOut := arena.Alloc(n*tt.Size()), arena.Alloc(8*n)
	for pass := range passes {
		flags := descFlag | sfVals
		kin, vin := keys, uint64(0)
		if pass == 0 {
			flags |= sfRawIn | sfGenVals
		} else {
			kin, vin = kb[(pass-1)%2], vb[(pass-1)%2]
		}
		kout, vout := kb[pass%2], vb[pass%2]
		if pass == passes-1 {
			flags |= sfKeysOut | sfKeysDecoded | sfValsFinal
			kout, vout = keysOut, idxOut
		} else {
			flags |= sfKeysOut | sfValsOut
		}
		sb, err := arena.Bytes(status, uint64(4*tiles*radixBins))
		require.NoError(t, err)
		clear(sb)
		run(variant{kind: kOnesweep, a: int32(tt), b: int32(flags), c: int32(items), d: radixBlocksPerSM}, grid,
			kin, vin, kout, vout, state+uint64(4*pass*radixBins), state+uint64(4*(passes*radixBins+pass)), status,
			uint64(n), uint64(n), uint64(8*pass))
	}
	vals := make([]uint64, n)
	idx := make([]int64, n)
	ko, io := arena.Slice(keysOut), arena.Slice(idxOut)
	for i := range n {
		vals[i] = readBits(ko, uint64(i), tt.Size())
		idx[i] = int64(binary.LittleEndian.Uint64(io[8*i:]))
	}
	return vals, idx
}

// TestSimOnesweepSorts runs whole one-sweep sorts in the PTX interpreter
// and checks them against a stable sort on the host: several tiles (with
// every block resident, and with two resident blocks taking many tiles
// each), one tile and one element, a size that is not a multiple of the
// tile, all keys equal, NaNs (last, in order), descending, tiles of 2 and
// 16 elements per thread.
func TestSimOnesweepSorts(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 16))
	tileSize := sortBlock * onesweepItems
	types := []dtype.DType{dtype.Float32, dtype.Int16, dtype.Float64, dtype.Uint8}
	if testutil.RaceEnabled {
		types = types[:1]
	}
	for _, tt := range types {
		for _, c := range []struct {
			name           string
			n              int
			equal, desc    bool
			grid, resident int
			items          int // 0: onesweepItems
		}{
			{"tiles", 5*tileSize + 123, false, false, 6, 0, 0},
			{"tiles_desc_two_resident", 4*tileSize + 1, false, true, 5, 2, 0},
			{"just_above_block", blockSortMax + 1, false, false, 2, 0, 0},
			{"equal", 3*tileSize + 7, true, false, 4, 0, 0},
			{"equal_desc", 3 * tileSize, true, true, 2, 1, 0},
			{"items16", 3*tileSize + 5, false, false, 2, 0, 16},
			{"items2", tileSize + 3, false, true, 4, 0, 2},
		} {
			if testutil.RaceEnabled && c.name != "tiles_desc_two_resident" && c.name != "equal" {
				continue // the runs without -race check every case
			}
			items := cmp.Or(c.items, onesweepItems)
			if 8*tt.Size() == 64 {
				items = min(items, 8) // as onesweepConfig
			}
			arena := new(ptxsim.Arena)
			s := &simLaunch{arena: arena}
			keys := keyValues(s, tt, c.n, rng)
			kb := arena.Slice(keys)
			if c.equal {
				for i := range c.n {
					writeBits(kb, uint64(i), tt.Size(), readBits(kb, 0, tt.Size()))
				}
			}
			ks := simKeys(kb, tt, true, c.desc, c.n)
			want := make([]int64, c.n)
			for i := range want {
				want[i] = int64(i)
			}
			slices.SortStableFunc(want, func(x, y int64) int { return cmp.Compare(ks[x], ks[y]) })
			vals, idx := simOnesweep(t, arena, tt, keys, c.n, c.desc, items, c.grid, c.resident, rng.Uint64())
			what := fmt.Sprintf("%s %s n %d items %d", tt, c.name, c.n, items)
			require.Equal(t, want, idx, "%s: indices", what)
			for i, j := range want {
				require.Equal(t, decodeKey(ks[j], tt, c.desc), vals[i], "%s: value %d", what, i)
			}
		}
	}
}
