package gpuarr_test

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gpuarr/gpuarr/gpuarr"
	"github.com/gpuarr/gpuarr/internal/fusion/expr"
)

// scanTileSizes straddle the scan kernel's tiles (expr.ScanTile elements,
// or expr.ScanTileWide for a single row of 4- or 8-byte values) and its
// look-back windows (32 predecessors): a tile less one, one, one more,
// two, and more tiles than one and than several windows cover.
var scanTileSizes = []int{
	expr.ScanTile - 1, expr.ScanTile, expr.ScanTile + 1, 2 * expr.ScanTile,
	2*expr.ScanTile + 31, 33*expr.ScanTile + 1, 70*expr.ScanTile + 17, 300*expr.ScanTile + 5,
	expr.ScanTileWide - 1, expr.ScanTileWide + 1, 2*expr.ScanTileWide + 31, 33*expr.ScanTileWide + 1, 100*expr.ScanTileWide + 3,
}

// Cumsum of int32 into int64 is exact, so every element of every tile is
// checked, inclusive and exclusive, at each tile boundary.
func TestScanTileBoundaries(t *testing.T) {
	rng := rand.New(rand.NewPCG(29, 1))
	for _, n := range scanTileSizes {
		if testing.Short() && n > 40*expr.ScanTile {
			continue
		}
		xs := make([]int32, n)
		want, wantEx := make([]int64, n), make([]int64, n)
		var s int64
		for i := range xs {
			xs[i] = int32(rng.IntN(2000) - 1000)
			wantEx[i] = s
			s += int64(xs[i])
			want[i] = s
		}
		x := must(gpuarr.FromSlice(xs, gpuarr.Shape{n}))
		assert.Equal(t, want, values(t, must(gpuarr.CumsumAs[int64](x))), "n %d", n)
		assert.Equal(t, wantEx, values(t, must(gpuarr.CumsumAs[int64](x, gpuarr.Exclusive()))), "n %d exclusive", n)
		// Cummax over the same tiles: the carry is a max, not a sum.
		m := int32(-1 << 31)
		wantMax := make([]int32, n)
		for i, v := range xs {
			m = max(m, v)
			wantMax[i] = m
		}
		assert.Equal(t, wantMax, values(t, must(gpuarr.Cummax(x))), "n %d cummax", n)
	}
}

// Rows that start inside tiles, span many tiles, and are shorter than a
// warp's round: each row's scan restarts at its first element.
func TestScanRowsAcrossTiles(t *testing.T) {
	rng := rand.New(rand.NewPCG(29, 2))
	for _, sh := range []gpuarr.Shape{{2, 33*expr.ScanTile + 5}, {37, 3 * expr.ScanTile / 2}, {5000, 7}, {3, 1}} {
		rows, l := sh[0], sh[1]
		xs := make([]int32, sh.Len())
		want, wantEx := make([]int64, len(xs)), make([]int64, len(xs))
		for r := range rows {
			var s int64
			for j := range l {
				i := r*l + j
				xs[i] = int32(rng.IntN(100))
				wantEx[i] = s
				s += int64(xs[i])
				want[i] = s
			}
		}
		x := must(gpuarr.FromSlice(xs, sh))
		assert.Equal(t, want, values(t, must(gpuarr.CumsumAs[int64](x, gpuarr.Axis(1)))), "%v", sh)
		assert.Equal(t, wantEx, values(t, must(gpuarr.CumsumAs[int64](x, gpuarr.Axis(1), gpuarr.Exclusive()))), "%v exclusive", sh)
	}
}

// Compaction across tile boundaries and look-back windows, dense, sparse,
// empty and full.
func TestMaskedSelectTileBoundaries(t *testing.T) {
	rng := rand.New(rand.NewPCG(29, 3))
	for _, n := range scanTileSizes {
		if testing.Short() && n > 40*expr.ScanTile {
			continue
		}
		for _, density := range []int{0, 1, 50, 100} {
			xs := make([]int32, n)
			var want []int32
			var wantPos []int64
			for i := range xs {
				xs[i] = int32(i)
				if rng.IntN(100) < density {
					xs[i] = -xs[i] - 1
					want = append(want, xs[i])
					wantPos = append(wantPos, int64(i))
				}
			}
			x := must(gpuarr.FromSlice(xs, gpuarr.Shape{n}))
			got := must(gpuarr.MaskedSelect(x, gpuarr.Less(x, gpuarr.Scalar[int32](0))))
			require.Equal(t, gpuarr.Shape{len(want)}, got.Shape(), "n %d density %d", n, density)
			if len(want) == 0 {
				continue
			}
			assert.Equal(t, want, values(t, got), "n %d density %d", n, density)
			pos := must(gpuarr.NonzeroMask(gpuarr.Less(x, gpuarr.Scalar[int32](0))))
			assert.Equal(t, wantPos, values(t, pos[0]), "n %d density %d positions", n, density)
		}
	}
}
