package gpuarr_test

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gpuarr/gpuarr/gpuarr"
)

// Sizes that only a GPU gets through quickly, so that the sorting,
// scanning and indexing kernels run as a GPU runs them at scale: many
// blocks per pass and several tiles per block (the radix sort), thousands
// of tiles looking back (the scans), full grids (gathers, scatters). The
// host backend runs the same code at the smaller sizes of the other
// tests.
func largeDevice(t *testing.T) {
	t.Helper()
	if testDevice(t).Backend() != "cuda" {
		t.Skip("GPU sizes (the host backend runs these functions at the other tests' sizes)")
	}
}

func TestLargeSortAndArgsort(t *testing.T) {
	largeDevice(t)
	rng := rand.New(rand.NewPCG(31, 32))
	for _, n := range []int{1 << 22, 1_500_001} {
		xs := sortValues[float32](rng, n)
		x := must(gpuarr.FromSlice(xs, gpuarr.Shape{n}))
		vals := values(t, must(gpuarr.Sort(x)))
		idx := values(t, must(gpuarr.Argsort(x)))
		checkSorted(t, xs, gpuarr.Shape{n}, 0, false, vals, idx, "float32")
		x.Release()
	}
	ds := sortValues[float64](rng, 1<<20)
	d := must(gpuarr.FromSlice(ds, gpuarr.Shape{len(ds)}))
	checkSorted(t, ds, gpuarr.Shape{len(ds)}, 0, true, values(t, must(gpuarr.Sort(d, gpuarr.Descending()))),
		values(t, must(gpuarr.Argsort(d, gpuarr.Descending()))), "float64 descending")
	bs := sortValues[int8](rng, 1<<21)
	b := must(gpuarr.FromSlice(bs, gpuarr.Shape{len(bs)}))
	checkSorted(t, bs, gpuarr.Shape{len(bs)}, 0, false, values(t, must(gpuarr.Sort(b))), values(t, must(gpuarr.Argsort(b))), "int8")
}

func TestLargeSegmentedSort(t *testing.T) {
	largeDevice(t)
	rng := rand.New(rand.NewPCG(33, 34))
	for _, sh := range []gpuarr.Shape{{4096, 1024}, {3000, 77}, {600, 4000}} {
		xs := sortValues[float32](rng, sh.Len())
		x := must(gpuarr.FromSlice(xs, sh))
		checkSorted(t, xs, sh, 1, false, values(t, must(gpuarr.Sort(x))), values(t, must(gpuarr.Argsort(x))), sh.String())
		x.Release()
	}
}

func TestLargeScans(t *testing.T) {
	largeDevice(t)
	rng := rand.New(rand.NewPCG(35, 36))
	n := 1 << 24
	xs := scanValues[float64](rng, n, kSum)
	x := must(gpuarr.FromSlice(xs, gpuarr.Shape{n}))
	closeEnough(t, refScan(xs, gpuarr.Shape{n}, -1, kSum, false), values(t, must(gpuarr.Cumsum(x))), "cumsum 2^24")
	is := scanValues[int32](rng, n, kMax)
	ix := must(gpuarr.FromSlice(is, gpuarr.Shape{n}))
	assert.Equal(t, refScan(is, gpuarr.Shape{n}, -1, kMax, true), values(t, must(gpuarr.Cummax(ix, gpuarr.Exclusive()))))
	sh := gpuarr.Shape{1000, 5000}
	ms := scanValues[float32](rng, sh.Len(), kSum)
	m := must(gpuarr.FromSlice(ms, sh))
	closeEnough(t, refScan(ms, sh, 1, kSum, false), values(t, must(gpuarr.Cumsum(m, gpuarr.Axis(1)))), "rows")
	closeEnough(t, refScan(ms, sh, 0, kSum, false), values(t, must(gpuarr.Cumsum(m, gpuarr.Axis(0)))), "columns")
}

func TestLargeSelectAndIndexing(t *testing.T) {
	largeDevice(t)
	rng := rand.New(rand.NewPCG(37, 38))
	n := 1 << 24
	xs := make([]float32, n)
	var want []float32
	for i := range xs {
		xs[i] = rng.Float32()
		if xs[i] > 0.5 {
			want = append(want, xs[i])
		}
	}
	x := must(gpuarr.FromSlice(xs, gpuarr.Shape{n}))
	got := values(t, must(gpuarr.MaskedSelect(x, gpuarr.Greater(x, gpuarr.Scalar[float32](0.5)))))
	require.Equal(t, len(want), len(got))
	assert.True(t, slices.Equal(want, got))

	m := 1 << 22
	idx := make([]int64, m)
	for i := range idx {
		idx[i] = rng.Int64N(int64(2*n)) - int64(n)
	}
	ix := must(gpuarr.FromSlice(idx, gpuarr.Shape{m}))
	tk := values(t, must(gpuarr.Take(x, ix)))
	for i, j := range idx {
		if j < 0 {
			j += int64(n)
		}
		require.Equal(t, xs[j], tk[i], "take %d", i)
	}
	acc := must(gpuarr.Zeros[int64](gpuarr.Shape{1 << 10}))
	small := make([]int32, m)
	for i := range small {
		small[i] = int32(rng.IntN(1 << 10))
	}
	require.NoError(t, gpuarr.IndexAdd(acc, must(gpuarr.FromSlice(small, gpuarr.Shape{m})), gpuarr.Scalar[int64](1)))
	counts := values(t, acc)
	ref := make([]int64, 1<<10)
	for _, s := range small {
		ref[s]++
	}
	assert.Equal(t, ref, counts)
	v, i, err := gpuarr.TopK(x, 100)
	require.NoError(t, err)
	order := refArgsort(xs, true)
	wantI := order[:100]
	assert.Equal(t, wantI, values(t, i))
	vv := values(t, v)
	for k, j := range wantI {
		require.Equal(t, xs[j], vv[k])
	}
	// A bad index among millions is still reported, once.
	idx[m-7] = int64(n) + 3
	_, err = gpuarr.Take(x, must(gpuarr.FromSlice(idx, gpuarr.Shape{m})))
	require.NoError(t, err)
	err = gpuarr.Synchronize(gpuarr.OnDevice(x.Device()))
	require.ErrorIs(t, err, gpuarr.ErrIndex)
	assert.Contains(t, err.Error(), "at position 4194297")
	require.NoError(t, gpuarr.Synchronize(gpuarr.OnDevice(x.Device())))
}
