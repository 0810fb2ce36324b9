package kernels

import (
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/gpuarr/gpuarr/device/dtype"
	"github.com/gpuarr/gpuarr/internal/ptxsim"
	"github.com/gpuarr/gpuarr/internal/testutil"
)

// onesweepSimTypes are the key types the one-sweep tests run (every key
// width and kind; all of sortTypes without -race).
func onesweepSimTypes() []dtype.DType {
	if testutil.RaceEnabled {
		return []dtype.DType{dtype.Float32, dtype.Int64}
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
				s.compare(t, variant{kind: kOnesweep, a: int32(tt), b: int32(c.flags), c: onesweepItems}, what, rng.Uint64())
				clear(s.arena.Slice(counter))
				clear(s.arena.Slice(status))
			}
		}
	}
}
