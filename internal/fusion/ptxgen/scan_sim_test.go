package ptxgen

import (
	le "encoding/binary"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gpuarr/gpuarr/device/dtype"
	"github.com/gpuarr/gpuarr/internal/fusion/expr"
	"github.com/gpuarr/gpuarr/internal/ptxsim"
	"github.com/gpuarr/gpuarr/internal/testutil"
)

// TestSimScanLooksBackAcrossManyWindows runs scan kernels in the PTX
// interpreter, with one block per tile (all resident and interleaved, so
// that a tile's look-back crosses several windows of predecessors'
// descriptors, some only aggregates, some not yet published) and with a
// few blocks that each take many tiles from the counter, and checks every
// output element against a sequential scan.
// It covers the transposed single-row path (int32, int64; wide tiles),
// segmented rows and a compaction.
func TestSimScanLooksBackAcrossManyWindows(t *testing.T) {
	// Enough tiles for look-backs over several windows of 32.
	tiles := 160
	n := tiles*expr.ScanTile - 1000
	cases := []struct {
		name   string
		t      dtype.DType
		rowLen int // n: one row
		excl   bool
		comp   bool
	}{
		{"cumsum_int32", dtype.Int32, n, false, false},
		{"cumsum_int64_exclusive", dtype.Int64, n, true, false},
		{"cumsum_int32_rows", dtype.Int32, 5*expr.ScanTile + 77, false, false},
		{"compact_int32", dtype.Int32, n, false, true},
	}
	if testutil.RaceEnabled {
		// The interpreter is single-threaded Go; the race detector only
		// slows it. The runs without -race check every case.
		cases = cases[:1]
	}
	rng := rand.New(rand.NewPCG(7, 31))
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := &expr.Program{Inputs: []expr.Input{mem(c.t)}, Code: []expr.Instr{in(c.t, 0)}}
			s := expr.Scan{Op: expr.ScanSum, Exclusive: c.excl, Segmented: c.rowLen < n, Flag: -1}
			if c.comp {
				// Select the positive elements: flag = in > 0, value = in.
				p.Code = append(p.Code, cst(c.t, 0), bin(expr.OpGt, dtype.Bool, 0, 1), in(c.t, 0))
				s = expr.Scan{Op: expr.ScanCompact, Flag: 2}
			}
			ptx, err := GenerateScan(p, s, genHeader)
			require.NoError(t, err)
			mod, err := ptxsim.Parse(ptx)
			require.NoError(t, err, "%s", numberLines(ptx))

			size := c.t.Size()
			arena := new(ptxsim.Arena)
			vals := make([]int64, n)
			inPtr := arena.Alloc(n * size)
			ib := arena.Slice(inPtr)
			for i := range vals {
				vals[i] = int64(rng.IntN(2001) - 1000)
				putInt(ib[i*size:], size, vals[i])
			}
			want := make([]int64, 0, n)
			var acc int64
			for i, v := range vals {
				switch {
				case c.comp:
					if v > 0 {
						want = append(want, v)
					}
					continue
				case i%c.rowLen == 0:
					acc = 0
				}
				if c.excl {
					want = append(want, acc)
					acc += v
				} else {
					acc += v
					want = append(want, acc)
				}
			}
			tile := s.Tile(p)
			require.Equal(t, !c.comp && c.rowLen == n, tile == expr.ScanTileWide, "the tile")
			tiles := (n + tile - 1) / tile
			// One block per tile, all resident; then a few persistent
			// blocks that each take many tiles, as on a GPU.
			for _, grid := range []int{tiles, 7} {
				outPtr := arena.Alloc(max(len(want), 1) * size)
				state := arena.Alloc(expr.ScanStateBytes(n, tile))
				params := []uint64{outPtr, uint64(n), uint64(c.rowLen), 1, state, uint64(len(want)), inPtr}
				require.Len(t, s.Params(p), len(params))
				err = mod.Run(s.EntryName(p), ptxsim.Launch{Grid: ptxsim.Dim3{X: uint32(grid)}, Block: ptxsim.Dim3{X: scanBlock},
					Params: params, Mem: arena, Seed: rng.Uint64() | 1})
				require.NoError(t, err, "%d blocks", grid)
				ob := arena.Slice(outPtr)
				for i, w := range want {
					if got := getInt(ob[i*size:], size); got != w {
						t.Fatalf("%d blocks: element %d (tile %d): got %d, want %d", grid, i, i/tile, got, w)
					}
				}
				// Every tile published its inclusive prefix.
				sb := arena.Slice(state)[expr.ScanHeaderBytes:]
				for k := range tiles {
					require.Equal(t, uint64(2), le.LittleEndian.Uint64(sb[k*expr.ScanDescBytes:])&255, "%d blocks: tile %d's status", grid, k)
				}
			}
		})
	}
}

func putInt(b []byte, size int, v int64) {
	switch size {
	case 4:
		le.LittleEndian.PutUint32(b, uint32(v))
	case 8:
		le.LittleEndian.PutUint64(b, uint64(v))
	default:
		panic(fmt.Sprint("size ", size))
	}
}

func getInt(b []byte, size int) int64 {
	if size == 4 {
		return int64(int32(le.LittleEndian.Uint32(b)))
	}
	return int64(le.LittleEndian.Uint64(b))
}
