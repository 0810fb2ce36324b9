package gpuarr_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gpuarr/gpuarr/gpuarr"
	ikernels "github.com/gpuarr/gpuarr/internal/kernels"
)

// topkData are the lines TopK selects from without sorting (longer than
// 2048): random with repeats, NaN, ±0 and extremes (sortValues); all
// equal (every pick decided by position); a handful of values (ties at
// the k-th); mostly NaN (NaNs picked, after every number).
func topkData[T gpuarr.Numeric](rng *rand.Rand, n int) map[string][]T {
	isFloat := T(1)/2 != 0
	same, few, nans := make([]T, n), make([]T, n), make([]T, n)
	for i := range n {
		same[i] = 3
		few[i] = T(rng.IntN(4))
		nans[i] = T(rng.IntN(50))
		if isFloat && rng.IntN(100) < 97 {
			nans[i] = T(math.NaN())
		}
	}
	return map[string][]T{"random": sortValues[T](rng, n), "equal": same, "few": few, "nans": nans}
}

// checkTopK compares TopK of the line xs (in x, any shape holding one
// line along axis ax) with the first k of the reference stable order.
func checkTopK[T gpuarr.Numeric](t *testing.T, x *gpuarr.Array[T], xs []T, ax, k int, smallest bool, what string) {
	t.Helper()
	opts := []gpuarr.Option{gpuarr.Axis(ax)}
	if smallest {
		opts = append(opts, gpuarr.Smallest())
	}
	v, idx, err := gpuarr.TopK(x, k, opts...)
	require.NoError(t, err, what)
	want := x.Shape()
	want[ax] = k
	require.Equal(t, want, v.Shape(), what)
	require.Equal(t, want, idx.Shape(), what)
	order := refArgsort(xs, !smallest)[:k]
	gotI, gotV := values(t, idx), values(t, v)
	require.Equal(t, order, gotI, what)
	for j, p := range order {
		w, g := xs[p], gotV[j]
		if w != w {
			require.True(t, g != g, "%s: value %d: want NaN, got %v", what, j, g)
			continue
		}
		require.Equal(t, w, g, "%s: value %d", what, j)
		if w == 0 && T(1)/2 != 0 {
			assert.False(t, math.Signbit(float64(g)), "%s: value %d: -0 comes out as +0, as Sort's", what, j)
		}
	}
}

func testTopKSelectType[T gpuarr.Numeric](t *testing.T) {
	thinInSim(t)
	rng := rand.New(rand.NewPCG(29, 4))
	sizes, ks := []int{2049, 5000, 70001}, []int{1, 2, 100, ikernels.TopKSelectMax}
	switch {
	case testing.Short():
		// The largest k ranks a million pairs: slow in the PTX interpreter.
		sizes, ks = sizes[:2], ks[:3]
	case os.Getenv("GPUARR_PTXSIM") == "1":
		sizes = sizes[:2] // 5000 elements take several blocks already
	}
	for _, n := range sizes {
		for name, xs := range topkData[T](rng, n) {
			x := must(gpuarr.FromSlice(xs, gpuarr.Shape{n}))
			for _, k := range ks {
				for _, smallest := range []bool{false, true} {
					checkTopK(t, x, xs, 0, k, smallest, fmt.Sprintf("%s n %d k %d smallest %t", name, n, k, smallest))
				}
			}
		}
	}
}

func TestTopKSelect(t *testing.T) {
	t.Run("int8", testTopKSelectType[int8])
	t.Run("int16", testTopKSelectType[int16])
	t.Run("int32", testTopKSelectType[int32])
	t.Run("int64", testTopKSelectType[int64])
	t.Run("uint8", testTopKSelectType[uint8])
	t.Run("uint16", testTopKSelectType[uint16])
	t.Run("uint32", testTopKSelectType[uint32])
	t.Run("uint64", testTopKSelectType[uint64])
	t.Run("float32", testTopKSelectType[float32])
	t.Run("float64", testTopKSelectType[float64])
}

// One line along an axis other than the only one, a strided view, and k
// past the selection's limit (a sort then) or the whole line.
func TestTopKSelectShapes(t *testing.T) {
	rng := rand.New(rand.NewPCG(29, 5))
	n := 3001
	xs := sortValues[float32](rng, n)
	col := must(gpuarr.FromSlice(xs, gpuarr.Shape{n, 1}))
	checkTopK(t, col, xs, 0, 50, false, "column")
	row := must(gpuarr.FromSlice(xs, gpuarr.Shape{1, 1, n}))
	checkTopK(t, row, xs, 2, 50, true, "row")
	checkTopK(t, row, xs, 2, ikernels.TopKSelectMax, true, "the largest k selected")
	for _, k := range []int{ikernels.TopKSelectMax + 1, n} {
		checkTopK(t, row, xs, 2, k, false, fmt.Sprintf("k %d", k))
	}
	wide := sortValues[float32](rng, 2*n)
	every := must(must(gpuarr.FromSlice(wide, gpuarr.Shape{2 * n})).Step(0, 1, 2*n, 2))
	odd := make([]float32, 0, n)
	for i := 1; i < 2*n; i += 2 {
		odd = append(odd, wide[i])
	}
	checkTopK(t, every, odd, 0, 77, false, "strided view")
}
