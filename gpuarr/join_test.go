package gpuarr_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gpuarr/gpuarr/gpuarr"
)

func testConcatenateType[T gpuarr.Numeric](t *testing.T) {
	thinInSim(t)
	a := must(gpuarr.FromSlice(seq[T](6), gpuarr.Shape{2, 3}))
	b := must(gpuarr.FromSlice([]T{7, 8, 9}, gpuarr.Shape{1, 3}))
	got := must(gpuarr.Concatenate([]*gpuarr.Array[T]{a, b}))
	assert.Equal(t, gpuarr.Shape{3, 3}, got.Shape())
	assert.Equal(t, []T{1, 2, 3, 4, 5, 6, 7, 8, 9}, values(t, got))
	c := must(gpuarr.FromSlice([]T{10, 11}, gpuarr.Shape{2, 1}))
	got = must(gpuarr.Concatenate([]*gpuarr.Array[T]{a, c, a}, gpuarr.Axis(1)))
	assert.Equal(t, gpuarr.Shape{2, 7}, got.Shape())
	assert.Equal(t, []T{1, 2, 3, 10, 1, 2, 3, 4, 5, 6, 11, 4, 5, 6}, values(t, got))
	// A strided operand.
	at := must(a.Transpose()) // [3 2]
	got = must(gpuarr.Concatenate([]*gpuarr.Array[T]{at, at}, gpuarr.Axis(-1)))
	assert.Equal(t, []T{1, 4, 1, 4, 2, 5, 2, 5, 3, 6, 3, 6}, values(t, got))
}

func TestConcatenateEveryType(t *testing.T) {
	t.Run("int8", testConcatenateType[int8])
	t.Run("int16", testConcatenateType[int16])
	t.Run("int32", testConcatenateType[int32])
	t.Run("int64", testConcatenateType[int64])
	t.Run("uint8", testConcatenateType[uint8])
	t.Run("uint16", testConcatenateType[uint16])
	t.Run("uint32", testConcatenateType[uint32])
	t.Run("uint64", testConcatenateType[uint64])
	t.Run("float32", testConcatenateType[float32])
	t.Run("float64", testConcatenateType[float64])
}

func TestConcatenateLarge(t *testing.T) {
	// Rows of many elements: the row copy in 16-byte units and not.
	rng := rand.New(rand.NewPCG(23, 24))
	for _, w := range []int{1000, 1001} {
		xs, ys := make([]float32, 3*w), make([]float32, 3*2*w)
		for i := range xs {
			xs[i] = rng.Float32()
		}
		for i := range ys {
			ys[i] = rng.Float32()
		}
		x := must(gpuarr.FromSlice(xs, gpuarr.Shape{3, w}))
		y := must(gpuarr.FromSlice(ys, gpuarr.Shape{3, 2 * w}))
		got := values(t, must(gpuarr.Concatenate([]*gpuarr.Array[float32]{x, y}, gpuarr.Axis(1))))
		for r := range 3 {
			assert.Equal(t, xs[r*w:(r+1)*w], got[r*3*w:r*3*w+w])
			assert.Equal(t, ys[r*2*w:(r+1)*2*w], got[r*3*w+w:(r+1)*3*w])
		}
	}
}

func TestConcatenateRefusals(t *testing.T) {
	a := must(gpuarr.Zeros[float32](gpuarr.Shape{2, 3}))
	b := must(gpuarr.Zeros[float32](gpuarr.Shape{2, 4}))
	_, err := gpuarr.Concatenate([]*gpuarr.Array[float32]{a, b})
	require.ErrorIs(t, err, gpuarr.ErrShape)
	assert.Contains(t, err.Error(), "differ on axis 1")
	_, err = gpuarr.Concatenate([]*gpuarr.Array[float32]{})
	require.ErrorIs(t, err, gpuarr.ErrArgument)
	_, err = gpuarr.Concatenate([]*gpuarr.Array[float32]{a, nil})
	require.ErrorIs(t, err, gpuarr.ErrArgument)
	_, err = gpuarr.Concatenate([]*gpuarr.Array[float32]{must(gpuarr.Zeros[float32](gpuarr.Shape{}))})
	require.ErrorIs(t, err, gpuarr.ErrShape)
}

func TestStackAndSplit(t *testing.T) {
	a := must(gpuarr.FromSlice([]int32{1, 2, 3}, gpuarr.Shape{3}))
	b := must(gpuarr.FromSlice([]int32{4, 5, 6}, gpuarr.Shape{3}))
	s0 := must(gpuarr.Stack([]*gpuarr.Array[int32]{a, b}))
	assert.Equal(t, gpuarr.Shape{2, 3}, s0.Shape())
	assert.Equal(t, []int32{1, 2, 3, 4, 5, 6}, values(t, s0))
	s1 := must(gpuarr.Stack([]*gpuarr.Array[int32]{a, b}, gpuarr.Axis(-1)))
	assert.Equal(t, gpuarr.Shape{3, 2}, s1.Shape())
	assert.Equal(t, []int32{1, 4, 2, 5, 3, 6}, values(t, s1))
	_, err := gpuarr.Stack([]*gpuarr.Array[int32]{a, s0})
	require.ErrorIs(t, err, gpuarr.ErrShape)

	parts := must(gpuarr.Split(s1, 3))
	require.Len(t, parts, 3)
	assert.Equal(t, []int32{2, 5}, values(t, parts[1]))
	cols := must(gpuarr.Split(s1, 2, gpuarr.Axis(1)))
	assert.Equal(t, []int32{4, 5, 6}, values(t, cols[1]))
	_, err = gpuarr.Split(s1, 2)
	require.ErrorIs(t, err, gpuarr.ErrArgument)
	at := must(gpuarr.SplitAt(must(gpuarr.FromSlice(seq[int32](10), gpuarr.Shape{10})), []int{3, 5, 12}))
	require.Len(t, at, 4)
	assert.Equal(t, []int32{1, 2, 3}, values(t, at[0]))
	assert.Equal(t, []int32{4, 5}, values(t, at[1]))
	assert.Equal(t, []int32{6, 7, 8, 9, 10}, values(t, at[2]))
	assert.Equal(t, gpuarr.Shape{0}, at[3].Shape())
	// Views: writing through a part writes the whole.
	require.NoError(t, parts[0].CopyFromHost([]int32{-1, -4}))
	assert.Equal(t, []int32{-1, -4, 2, 5, 3, 6}, values(t, s1))
}

// refPad is NumPy's pad of a 1-D line.
func refPad(x []float64, before, after int, mode gpuarr.PadMode, value float64) []float64 {
	n := len(x)
	out := make([]float64, 0, n+before+after)
	for i := -before; i < n+after; i++ {
		j := i
		switch mode {
		case gpuarr.PadConstant:
			if j < 0 || j >= n {
				out = append(out, value)
				continue
			}
		case gpuarr.PadEdge:
			j = min(max(j, 0), n-1)
		case gpuarr.PadWrap:
			j = ((j % n) + n) % n
		case gpuarr.PadReflect:
			p := max(2*(n-1), 1)
			j = ((j % p) + p) % p
			if j >= n {
				j = p - j
			}
		case gpuarr.PadSymmetric:
			p := 2 * n
			j = ((j % p) + p) % p
			if j >= n {
				j = p - 1 - j
			}
		}
		out = append(out, x[j])
	}
	return out
}

func TestPad(t *testing.T) {
	x := []float64{1, 2, 3, 4}
	a := must(gpuarr.FromSlice(x, gpuarr.Shape{4}))
	for _, mode := range []gpuarr.PadMode{gpuarr.PadConstant, gpuarr.PadEdge, gpuarr.PadReflect, gpuarr.PadSymmetric, gpuarr.PadWrap} {
		for _, w := range [][2]int{{0, 0}, {2, 3}, {9, 6}} {
			got := must(gpuarr.Pad(a, [][2]int{w}, mode))
			assert.Equal(t, refPad(x, w[0], w[1], mode, 0), values(t, got), "%v %v", mode, w)
		}
	}
	// Known NumPy results.
	assert.Equal(t, []float64{3, 2, 1, 2, 3, 4, 3, 2}, values(t, must(gpuarr.Pad(a, [][2]int{{2, 2}}, gpuarr.PadReflect))))
	assert.Equal(t, []float64{2, 1, 1, 2, 3, 4, 4, 3}, values(t, must(gpuarr.Pad(a, [][2]int{{2, 2}}, gpuarr.PadSymmetric))))
	one := must(gpuarr.FromSlice([]float64{5}, gpuarr.Shape{1}))
	assert.Equal(t, []float64{5, 5, 5, 5}, values(t, must(gpuarr.Pad(one, [][2]int{{1, 2}}, gpuarr.PadReflect))))

	m := must(gpuarr.FromSlice([]int16{1, 2, 3, 4, 5, 6}, gpuarr.Shape{2, 3}))
	got := must(gpuarr.PadWith(m, [][2]int{{1, 0}, {0, 2}}, int16(-7)))
	assert.Equal(t, gpuarr.Shape{3, 5}, got.Shape())
	assert.Equal(t, []int16{-7, -7, -7, -7, -7, 1, 2, 3, -7, -7, 4, 5, 6, -7, -7}, values(t, got))
	got = must(gpuarr.Pad(m, [][2]int{{1, 1}, {1, 1}}, gpuarr.PadEdge))
	assert.Equal(t, []int16{1, 1, 2, 3, 3, 1, 1, 2, 3, 3, 4, 4, 5, 6, 6, 4, 4, 5, 6, 6}, values(t, got))

	_, err := gpuarr.Pad(m, [][2]int{{1, 1}, {1, 1}, {1, 1}}, gpuarr.PadEdge)
	require.ErrorIs(t, err, gpuarr.ErrShape)
	_, err = gpuarr.Pad(m, [][2]int{{-1, 1}}, gpuarr.PadEdge)
	require.ErrorIs(t, err, gpuarr.ErrArgument)
	_, err = gpuarr.Pad(must(gpuarr.Zeros[float32](gpuarr.Shape{0})), [][2]int{{1, 1}}, gpuarr.PadWrap)
	require.ErrorIs(t, err, gpuarr.ErrShape)
	z := must(gpuarr.Pad(must(gpuarr.Zeros[float32](gpuarr.Shape{0})), [][2]int{{1, 1}}, gpuarr.PadConstant))
	assert.Equal(t, []float32{0, 0}, values(t, z))
}

func TestBincount(t *testing.T) {
	x := must(gpuarr.FromSlice([]int32{0, 1, 1, 3, 2, 1, 7}, gpuarr.Shape{7}))
	assert.Equal(t, []int64{1, 3, 1, 1, 0, 0, 0, 1}, values(t, must(gpuarr.Bincount(x))))
	assert.Equal(t, []int64{1, 3, 1, 1, 0, 0, 0, 1, 0, 0}, values(t, must(gpuarr.Bincount(x, gpuarr.MinLength(10)))))
	w := must(gpuarr.FromSlice([]float32{0.5, 1, 1, 2, 0.25, 1, 3}, gpuarr.Shape{7}))
	assert.Equal(t, []float64{0.5, 3, 0.25, 2, 0, 0, 0, 3}, values(t, must(gpuarr.BincountWeights(x, w))))
	_, err := gpuarr.Bincount(must(gpuarr.FromSlice([]int8{1, -2}, gpuarr.Shape{2})))
	require.ErrorIs(t, err, gpuarr.ErrArgument)
	assert.Contains(t, err.Error(), "negative value -2")
	e := must(gpuarr.Bincount(must(gpuarr.Zeros[uint16](gpuarr.Shape{0})), gpuarr.MinLength(3)))
	assert.Equal(t, []int64{0, 0, 0}, values(t, e))
	// Many bins (global atomics) and many elements.
	rng := rand.New(rand.NewPCG(25, 26))
	big := make([]uint16, 20000)
	want := make([]int64, 5000)
	for i := range big {
		big[i] = uint16(rng.IntN(5000))
		want[big[i]]++
	}
	got := values(t, must(gpuarr.Bincount(must(gpuarr.FromSlice(big, gpuarr.Shape{len(big)})), gpuarr.MinLength(5000))))
	assert.Equal(t, want, got)
}

func TestHistogram(t *testing.T) {
	x := must(gpuarr.FromSlice([]float64{1, 2, 1, 4, 2.5, 3, 4, math.NaN()}, gpuarr.Shape{8}))
	counts, edges, err := gpuarr.Histogram(x, 3, gpuarr.HistRange(1, 4))
	require.NoError(t, err)
	assert.Equal(t, []float64{1, 2, 3, 4}, values(t, edges))
	assert.Equal(t, []int64{2, 2, 3}, values(t, counts), "the last bin holds its upper edge; NaN uncounted")
	_, _, err = gpuarr.Histogram(x, 3)
	require.ErrorIs(t, err, gpuarr.ErrArgument, "NaN data without a range")
	ints := must(gpuarr.FromSlice([]int32{5, 5, 5}, gpuarr.Shape{3}))
	c, e, err := gpuarr.Histogram(ints, 2)
	require.NoError(t, err)
	assert.Equal(t, []float64{4.5, 5, 5.5}, values(t, e))
	assert.Equal(t, []int64{0, 3}, values(t, c))
	// float32 data: bins by float32 arithmetic, many elements and bins.
	rng := rand.New(rand.NewPCG(27, 28))
	fs := make([]float32, 10000)
	for i := range fs {
		fs[i] = float32(rng.NormFloat64())
	}
	fx := must(gpuarr.FromSlice(fs, gpuarr.Shape{len(fs)}))
	for _, bins := range []int{10, 3000} {
		c, e, err := gpuarr.Histogram(fx, bins, gpuarr.HistRange(-2, 2))
		require.NoError(t, err)
		ev := values(t, e)
		want := make([]int64, bins)
		for _, f := range fs {
			if b, ok := gpuarrHistogramBin(float64(f), ev, true); ok {
				want[b]++
			}
		}
		assert.Equal(t, want, values(t, c), "%d bins", bins)
	}
	_, _, err = gpuarr.Histogram(fx, 0)
	require.ErrorIs(t, err, gpuarr.ErrArgument)
}

// TestHistogramRangeEdgesFloat32: with HistRange, the edges of float32
// data are NumPy's: computed in float64 from the range and rounded once
// to float32 (not in float32 arithmetic), and the counts follow them.
func TestHistogramRangeEdgesFloat32(t *testing.T) {
	x := must(gpuarr.FromSlice([]float32{-3.9, -2, 0.1, 3.999}, gpuarr.Shape{4}))
	counts, edges, err := gpuarr.Histogram(x, 6, gpuarr.HistRange(-4, 4))
	require.NoError(t, err)
	// np.histogram(np.float32([-3.9, -2, 0.1, 3.999]), bins=6, range=(-4.0, 4.0))
	assert.Equal(t, []float64{-4, -2.6666667461395264, -1.3333333730697632, 0, 1.3333333730697632, 2.6666667461395264, 4},
		values(t, edges))
	assert.Equal(t, []int64{1, 1, 0, 1, 0, 1}, values(t, counts))
	// A range that float32 does not hold: NumPy's edges of
	// np.histogram(np.float32([0.15, 0.3, 0.5, 0.69]), bins=3, range=(0.1, 0.7)),
	// 0.3 and 0.5 on an edge landing in the bin above it.
	x = must(gpuarr.FromSlice([]float32{0.15, 0.3, 0.5, 0.69}, gpuarr.Shape{4}))
	counts, edges, err = gpuarr.Histogram(x, 3, gpuarr.HistRange(0.1, 0.7))
	require.NoError(t, err)
	assert.Equal(t, []float64{0.10000000149011612, 0.30000001192092896, 0.5, 0.699999988079071}, values(t, edges))
	assert.Equal(t, []int64{1, 1, 2}, values(t, counts))
}

// gpuarrHistogramBin is NumPy's bin rule (as kernels.HistogramBin).
func gpuarrHistogramBin(v float64, edges []float64, f32 bool) (int, bool) {
	r := func(x float64) float64 {
		if f32 {
			return float64(float32(x))
		}
		return x
	}
	v = r(v)
	bins := len(edges) - 1
	lo, hi := edges[0], edges[bins]
	if !(v >= lo && v <= hi) {
		return 0, false
	}
	q := r(r(r(v-lo)/r(hi-lo)) * float64(bins))
	b := min(max(int(q), 0), bins-1)
	if v < edges[b] {
		b = max(b-1, 0)
	}
	if b != bins-1 && v >= edges[b+1] {
		b++
	}
	return b, true
}
