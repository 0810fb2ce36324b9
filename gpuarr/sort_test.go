package gpuarr_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gpuarr/gpuarr/gpuarr"
	ikernels "github.com/gpuarr/gpuarr/internal/kernels"
)

// numpyLess is NumPy's sort order: numbers ascending, NaN after
// everything; -0 == +0.
func numpyLess[T gpuarr.Numeric](a, b T) bool {
	if a != a {
		return false
	}
	if b != b {
		return true
	}
	return a < b
}

// refArgsort is the stable order of a line (desc: numbers descending,
// NaN still last).
func refArgsort[T gpuarr.Numeric](line []T, desc bool) []int64 {
	idx := make([]int64, len(line))
	for i := range idx {
		idx[i] = int64(i)
	}
	slices.SortStableFunc(idx, func(i, j int64) int {
		a, b := line[i], line[j]
		an, bn := a != a, b != b
		switch {
		case an && bn:
			return 0
		case an:
			return 1
		case bn:
			return -1
		}
		if desc {
			a, b = b, a
		}
		switch {
		case a < b:
			return -1
		case a > b:
			return 1
		}
		return 0
	})
	return idx
}

// sortValues are random values with many repeats, extremes, and for
// floats NaN, ±Inf and ±0.
func sortValues[T gpuarr.Numeric](rng *rand.Rand, n int) []T {
	isFloat := T(1)/2 != 0
	lo, hi := identityOf[T](kMin), identityOf[T](kMax) // the type's largest and smallest
	out := make([]T, n)
	for i := range out {
		switch r := rng.IntN(20); {
		case r == 0:
			out[i] = lo
		case r == 1:
			out[i] = hi
		case r == 2 && isFloat:
			out[i] = T(math.NaN())
		case r == 3 && isFloat:
			out[i] = T(math.Copysign(0, -1))
		case r < 10:
			out[i] = T(rng.IntN(7))
		case isFloat:
			out[i] = T(rng.NormFloat64() * 1e3)
		default:
			out[i] = T(rng.Uint64())
		}
	}
	return out
}

// sortShapes: block-sort rows of several sizes, and rows the radix sort
// takes (one, and several: passes over the row number).
var sortShapes = []struct {
	sh gpuarr.Shape
	k  int
}{
	{gpuarr.Shape{1}, 0}, {gpuarr.Shape{7}, 0}, {gpuarr.Shape{300}, -1}, {gpuarr.Shape{2048}, 0},
	{gpuarr.Shape{5, 257}, 1}, {gpuarr.Shape{40, 3}, 0}, {gpuarr.Shape{3, 4, 5}, 1},
	{gpuarr.Shape{2049}, 0}, {gpuarr.Shape{9000}, 0}, {gpuarr.Shape{3, 2600}, 1},
}

func checkSorted[T gpuarr.Numeric](t *testing.T, xs []T, sh gpuarr.Shape, k int, desc bool, vals []T, idx []int64, what string) {
	t.Helper()
	if k < 0 {
		k += len(sh)
	}
	outer, n, inner := 1, sh[k], 1
	for d, e := range sh {
		if d < k {
			outer *= e
		} else if d > k {
			inner *= e
		}
	}
	for o := range outer {
		for i := range inner {
			line := make([]T, n)
			for j := range n {
				line[j] = xs[(o*n+j)*inner+i]
			}
			want := refArgsort(line, desc)
			for j, w := range want {
				at := (o*n+j)*inner + i
				if idx != nil {
					require.Equal(t, w, idx[at], "%s: line (%d, %d) position %d", what, o, i, j)
				}
				if vals != nil {
					g, e := vals[at], line[w]
					if e != e {
						require.True(t, g != g, "%s: line (%d, %d) position %d: want NaN, got %v", what, o, i, j, g)
					} else {
						require.Equal(t, e, g, "%s: line (%d, %d) position %d", what, o, i, j)
					}
				}
			}
		}
	}
}

func testSortType[T gpuarr.Numeric](t *testing.T) {
	thinInSim(t)
	rng := rand.New(rand.NewPCG(11, 12))
	for _, c := range sortShapes {
		if testing.Short() && c.sh.Len() > 5000 {
			continue
		}
		xs := sortValues[T](rng, c.sh.Len())
		x := must(gpuarr.FromSlice(xs, c.sh))
		for _, desc := range []bool{false, true} {
			opts := []gpuarr.Option{gpuarr.Axis(c.k)}
			if desc {
				opts = append(opts, gpuarr.Descending())
			}
			vals := must(gpuarr.Sort(x, opts...))
			idx := must(gpuarr.Argsort(x, opts...))
			assert.Equal(t, c.sh, vals.Shape())
			assert.Equal(t, c.sh, idx.Shape())
			checkSorted(t, xs, c.sh, c.k, desc, values(t, vals), values(t, idx), c.sh.String())
		}
	}
}

func TestSortEveryType(t *testing.T) {
	t.Run("int8", testSortType[int8])
	t.Run("int16", testSortType[int16])
	t.Run("int32", testSortType[int32])
	t.Run("int64", testSortType[int64])
	t.Run("uint8", testSortType[uint8])
	t.Run("uint16", testSortType[uint16])
	t.Run("uint32", testSortType[uint32])
	t.Run("uint64", testSortType[uint64])
	t.Run("float32", testSortType[float32])
	t.Run("float64", testSortType[float64])
}

// One long row sorts the same by the one-sweep passes and by the
// count-scan-scatter passes (kernels.SortOnesweep picks; benchmarks time
// both): stable, NaNs last, descending, equal keys.
func TestSortLongRowBothRadixPaths(t *testing.T) {
	defer func(v bool) { ikernels.SortOnesweep = v }(ikernels.SortOnesweep)
	rng := rand.New(rand.NewPCG(21, 22))
	for _, n := range []int{2049, 9000} {
		if testing.Short() && n > 5000 {
			continue
		}
		xs := sortValues[float32](rng, n)
		same := make([]uint16, n)
		for i := range same {
			same[i] = 7
		}
		for _, onesweep := range []bool{true, false} {
			ikernels.SortOnesweep = onesweep
			for _, desc := range []bool{false, true} {
				var opts []gpuarr.Option
				if desc {
					opts = append(opts, gpuarr.Descending())
				}
				what := fmt.Sprintf("n %d one-sweep %v descending %v", n, onesweep, desc)
				x := must(gpuarr.FromSlice(xs, gpuarr.Shape{n}))
				checkSorted(t, xs, gpuarr.Shape{n}, 0, desc, values(t, must(gpuarr.Sort(x, opts...))), values(t, must(gpuarr.Argsort(x, opts...))), what)
				y := must(gpuarr.FromSlice(same, gpuarr.Shape{n}))
				checkSorted(t, same, gpuarr.Shape{n}, 0, desc, values(t, must(gpuarr.Sort(y, opts...))), values(t, must(gpuarr.Argsort(y, opts...))), what+" equal keys")
			}
		}
	}
}

// Many long rows: the row number takes two radix passes.
func TestSortManyLongRows(t *testing.T) {
	if testing.Short() {
		t.Skip("300 rows of 2,100")
	}
	rng := rand.New(rand.NewPCG(13, 14))
	sh := gpuarr.Shape{300, 2100}
	xs := sortValues[float32](rng, sh.Len())
	x := must(gpuarr.FromSlice(xs, sh))
	checkSorted(t, xs, sh, 1, false, values(t, must(gpuarr.Sort(x))), values(t, must(gpuarr.Argsort(x))), "300×2100")
}

func TestSortStabilityAndNaN(t *testing.T) {
	nan := math.NaN()
	negz := math.Copysign(0, -1)
	xs := []float64{2, nan, 0, -1, negz, nan, 2, math.Inf(1), 0, math.Inf(-1)}
	x := must(gpuarr.FromSlice(xs, gpuarr.Shape{len(xs)}))
	idx := values(t, must(gpuarr.Argsort(x)))
	assert.Equal(t, []int64{9, 3, 2, 4, 8, 0, 6, 7, 1, 5}, idx, "stable; -0 equals 0; NaNs last in order")
	didx := values(t, must(gpuarr.Argsort(x, gpuarr.Descending())))
	assert.Equal(t, []int64{7, 0, 6, 2, 4, 8, 3, 9, 1, 5}, didx, "descending keeps ties' order and NaNs last")
	v := values(t, must(gpuarr.Sort(x)))
	assert.Equal(t, []float64{math.Inf(-1), -1, 0, 0, 0, 2, 2, math.Inf(1)}, v[:8])
	assert.False(t, math.Signbit(v[3]), "-0 comes out as +0")
	assert.True(t, math.IsNaN(v[8]) && math.IsNaN(v[9]))
}

func TestSortRefusals(t *testing.T) {
	x := must(gpuarr.FromSlice([]float32{1}, gpuarr.Shape{}))
	_, err := gpuarr.Sort(x)
	require.ErrorIs(t, err, gpuarr.ErrShape)
	y := must(gpuarr.FromSlice([]float32{1, 2}, gpuarr.Shape{2}))
	_, err = gpuarr.Sort(y, gpuarr.Axis(1))
	require.ErrorIs(t, err, gpuarr.ErrShape)
	_, err = gpuarr.Argsort(y, gpuarr.Axis(0), gpuarr.Axis(0))
	require.ErrorIs(t, err, gpuarr.ErrArgument)
	_, err = gpuarr.Argsort(y, gpuarr.Exclusive())
	require.ErrorIs(t, err, gpuarr.ErrArgument)
	e := must(gpuarr.Zeros[int32](gpuarr.Shape{3, 0}))
	assert.Equal(t, gpuarr.Shape{3, 0}, must(gpuarr.Sort(e)).Shape())
}

func TestSortStridedView(t *testing.T) {
	xs := []int32{5, 1, 4, 2, 6, 0}
	x := must(gpuarr.FromSlice(xs, gpuarr.Shape{2, 3}))
	xt := must(x.Transpose()) // [[5 2] [1 6] [4 0]]
	assert.Equal(t, []int32{2, 5, 1, 6, 0, 4}, values(t, must(gpuarr.Sort(xt))))
	assert.Equal(t, []int32{1, 0, 4, 2, 5, 6}, values(t, must(gpuarr.Sort(xt, gpuarr.Axis(0)))))
}

func testTopKType[T gpuarr.Numeric](t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 16))
	for _, c := range []struct {
		sh   gpuarr.Shape
		k, K int
	}{{gpuarr.Shape{50}, 0, 7}, {gpuarr.Shape{4, 300}, 1, 10}, {gpuarr.Shape{30, 4}, 0, 30}, {gpuarr.Shape{3000}, -1, 100}} {
		if testing.Short() && c.sh.Len() > 2048 {
			continue
		}
		xs := sortValues[T](rng, c.sh.Len())
		x := must(gpuarr.FromSlice(xs, c.sh))
		for _, smallest := range []bool{false, true} {
			opts := []gpuarr.Option{gpuarr.Axis(c.k)}
			if smallest {
				opts = append(opts, gpuarr.Smallest())
			}
			v, idx, err := gpuarr.TopK(x, c.K, opts...)
			require.NoError(t, err)
			full := append([]gpuarr.Option{gpuarr.Axis(c.k)}, map[bool][]gpuarr.Option{false: {gpuarr.Descending()}, true: nil}[smallest]...)
			fv := must(gpuarr.Sort(x, full...))
			fi := must(gpuarr.Argsort(x, full...))
			k := c.k
			if k < 0 {
				k += len(c.sh)
			}
			want := must(fv.Step(k, 0, c.K, 1))
			wantI := must(fi.Step(k, 0, c.K, 1))
			assert.Equal(t, want.Shape(), v.Shape())
			wv, gv := values(t, want), values(t, v)
			for i := range wv {
				if wv[i] != wv[i] {
					assert.True(t, gv[i] != gv[i])
				} else {
					assert.Equal(t, wv[i], gv[i])
				}
			}
			assert.Equal(t, values(t, wantI), values(t, idx))
		}
	}
}

func TestTopK(t *testing.T) {
	t.Run("float32", testTopKType[float32])
	t.Run("int64", testTopKType[int64])
	t.Run("uint8", testTopKType[uint8])
	x := must(gpuarr.FromSlice([]float64{3, 1, math.NaN(), 3, 2}, gpuarr.Shape{5}))
	v, i, err := gpuarr.TopK(x, 3)
	require.NoError(t, err)
	assert.Equal(t, []float64{3, 3, 2}, values(t, v))
	assert.Equal(t, []int64{0, 3, 4}, values(t, i), "ties in index order, NaN not a number to pick")
	_, _, err = gpuarr.TopK(x, 6)
	require.ErrorIs(t, err, gpuarr.ErrArgument)
}

func TestSearchSorted(t *testing.T) {
	a := must(gpuarr.FromSlice([]float32{1, 2, 2, 3, float32(math.Inf(1)), float32(math.NaN())}, gpuarr.Shape{6}))
	v := must(gpuarr.FromSlice([]float32{0, 2, 2.5, 3, 100, float32(math.Inf(1)), float32(math.NaN()), float32(math.Copysign(0, -1))}, gpuarr.Shape{2, 4}))
	left := must(gpuarr.SearchSorted(a, v))
	assert.Equal(t, gpuarr.Shape{2, 4}, left.Shape())
	assert.Equal(t, []int64{0, 1, 3, 3, 4, 4, 5, 0}, values(t, left))
	right := must(gpuarr.SearchSorted(a, v, gpuarr.Right()))
	assert.Equal(t, []int64{0, 3, 3, 4, 4, 5, 6, 0}, values(t, right))
	// Many queries over a long array.
	rng := rand.New(rand.NewPCG(17, 18))
	as := make([]int32, 5000)
	for i := range as {
		as[i] = int32(rng.IntN(1000))
	}
	slices.Sort(as)
	qs := make([]int32, 3000)
	for i := range qs {
		qs[i] = int32(rng.IntN(1100) - 50)
	}
	got := values(t, must(gpuarr.SearchSorted(must(gpuarr.FromSlice(as, gpuarr.Shape{5000})), must(gpuarr.FromSlice(qs, gpuarr.Shape{3000})))))
	for i, q := range qs {
		want, _ := slices.BinarySearch(as, q)
		require.Equal(t, int64(want), got[i], "query %d = %d", i, q)
	}
	_, err := gpuarr.SearchSorted(must(gpuarr.Zeros[int32](gpuarr.Shape{2, 2})), must(gpuarr.Zeros[int32](gpuarr.Shape{1})))
	require.ErrorIs(t, err, gpuarr.ErrShape)
}

func TestUnique(t *testing.T) {
	nan := math.NaN()
	xs := []float64{3, 1, nan, 3, math.Copysign(0, -1), 1, nan, 0, 7}
	x := must(gpuarr.FromSlice(xs, gpuarr.Shape{3, 3}))
	r, err := gpuarr.UniqueAll(x)
	require.NoError(t, err)
	vals := values(t, r.Values)
	require.Len(t, vals, 5)
	assert.Equal(t, []float64{0, 1, 3, 7}, vals[:4])
	assert.True(t, math.IsNaN(vals[4]))
	assert.Equal(t, []int64{4, 1, 0, 8, 2}, values(t, r.Indices), "first occurrences")
	assert.Equal(t, []int64{2, 2, 2, 1, 2}, values(t, r.Counts))
	assert.Equal(t, gpuarr.Shape{3, 3}, r.InverseIndices.Shape())
	assert.Equal(t, []int64{2, 1, 4, 2, 0, 1, 4, 0, 3}, values(t, r.InverseIndices))
	u := must(gpuarr.Unique(must(gpuarr.FromSlice([]uint8{5, 5, 5}, gpuarr.Shape{3}))))
	assert.Equal(t, []uint8{5}, values(t, u))
	e, err := gpuarr.UniqueAll(must(gpuarr.Zeros[int32](gpuarr.Shape{0, 2})))
	require.NoError(t, err)
	assert.Equal(t, gpuarr.Shape{0}, e.Values.Shape())
	assert.Equal(t, gpuarr.Shape{0, 2}, e.InverseIndices.Shape())
	// Many values, many tiles.
	rng := rand.New(rand.NewPCG(19, 20))
	big := make([]int16, 6000)
	for i := range big {
		big[i] = int16(rng.IntN(500))
	}
	br, err := gpuarr.UniqueAll(must(gpuarr.FromSlice(big, gpuarr.Shape{6000})))
	require.NoError(t, err)
	want := slices.Clone(big)
	slices.Sort(want)
	want = slices.Compact(want)
	assert.Equal(t, want, values(t, br.Values))
	inv := values(t, br.InverseIndices)
	bv := values(t, br.Values)
	for i, v := range big {
		require.Equal(t, v, bv[inv[i]])
	}
}
