package gpuarr_test

import (
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gpuarr/gpuarr/gpuarr"
)

// refTake is NumPy's take along axis k (k < 0: flattened) of a row-major
// x, with the indices already valid (negative ones count from the end).
func refTake[T any](x []T, xs gpuarr.Shape, idx []int64, k int) []T {
	if k < 0 {
		out := make([]T, len(idx))
		for j, i := range idx {
			if i < 0 {
				i += int64(len(x))
			}
			out[j] = x[i]
		}
		return out
	}
	outer, n, inner := 1, xs[k], 1
	for d, e := range xs {
		if d < k {
			outer *= e
		} else if d > k {
			inner *= e
		}
	}
	out := make([]T, 0, outer*len(idx)*inner)
	for o := range outer {
		for _, i := range idx {
			if i < 0 {
				i += int64(n)
			}
			for c := range inner {
				out = append(out, x[(o*n+int(i))*inner+c])
			}
		}
	}
	return out
}

func seq[T gpuarr.Numeric](n int) []T {
	out := make([]T, n)
	for i := range out {
		out[i] = T(i%120 + 1)
	}
	return out
}

func testTakeType[T gpuarr.Numeric](t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, c := range []struct {
		xs  gpuarr.Shape
		is  gpuarr.Shape
		ax  int
		has bool
	}{
		{gpuarr.Shape{10}, gpuarr.Shape{7}, 0, false},
		{gpuarr.Shape{4, 5}, gpuarr.Shape{3}, 0, true},
		{gpuarr.Shape{4, 5}, gpuarr.Shape{2, 3}, 1, true},
		{gpuarr.Shape{3, 4, 5}, gpuarr.Shape{6}, -2, true},
		{gpuarr.Shape{3, 4, 5}, gpuarr.Shape{9}, 0, false},
		{gpuarr.Shape{2, 3000}, gpuarr.Shape{5000}, 1, true}, // many columns per row
		{gpuarr.Shape{700, 9}, gpuarr.Shape{1500}, 0, true},  // many rows of 9
	} {
		x := must(gpuarr.FromSlice(seq[T](c.xs.Len()), c.xs))
		k, n := -1, c.xs.Len()
		if c.has {
			k = c.ax
			if k < 0 {
				k += len(c.xs)
			}
			n = c.xs[k]
		}
		idx := make([]int64, c.is.Len())
		for i := range idx {
			idx[i] = rng.Int64N(int64(2*n)) - int64(n)
		}
		var opts []gpuarr.Option
		if c.has {
			opts = append(opts, gpuarr.Axis(c.ax))
		}
		ix := must(gpuarr.FromSlice(idx, c.is))
		got := must(gpuarr.Take(x, ix, opts...))
		want := refTake(seq[T](c.xs.Len()), c.xs, idx, k)
		assert.Equal(t, want, values(t, got), "%v take %v axis %d", c.xs, c.is, k)
		if c.has {
			wantShape := append(append(append(gpuarr.Shape{}, c.xs[:k]...), c.is...), c.xs[k+1:]...)
			assert.Equal(t, wantShape, got.Shape())
		} else {
			assert.Equal(t, c.is, got.Shape())
		}
		// int32 indices give the same.
		i32 := make([]int32, len(idx))
		for i, v := range idx {
			i32[i] = int32(v)
		}
		got32 := must(gpuarr.Take(x, must(gpuarr.FromSlice(i32, c.is)), opts...))
		assert.Equal(t, want, values(t, got32))
	}
}

func TestTakeEveryType(t *testing.T) {
	t.Run("int8", testTakeType[int8])
	t.Run("int16", testTakeType[int16])
	t.Run("int32", testTakeType[int32])
	t.Run("int64", testTakeType[int64])
	t.Run("uint8", testTakeType[uint8])
	t.Run("uint16", testTakeType[uint16])
	t.Run("uint32", testTakeType[uint32])
	t.Run("uint64", testTakeType[uint64])
	t.Run("float32", testTakeType[float32])
	t.Run("float64", testTakeType[float64])
}

func TestTakeModes(t *testing.T) {
	x := must(gpuarr.FromSlice([]float32{10, 11, 12, 13}, gpuarr.Shape{4}))
	idx := must(gpuarr.FromSlice([]int16{-9, -5, -1, 0, 3, 4, 9}, gpuarr.Shape{7}))
	assert.Equal(t, []float32{10, 10, 10, 10, 13, 13, 13}, values(t, must(gpuarr.Take(x, idx, gpuarr.Clip()))))
	assert.Equal(t, []float32{13, 13, 13, 10, 13, 10, 11}, values(t, must(gpuarr.Take(x, idx, gpuarr.Wrap()))))
	u := must(gpuarr.FromSlice([]uint8{0, 3, 4, 255}, gpuarr.Shape{4}))
	assert.Equal(t, []float32{10, 13, 13, 13}, values(t, must(gpuarr.Take(x, u, gpuarr.Clip()))))
	assert.Equal(t, []float32{10, 13, 10, 13}, values(t, must(gpuarr.Take(x, u, gpuarr.Wrap()))))
}

// A bad index is reported by the next host read, naming the first bad
// position, the index and the axis; once; and nothing outside x is read.
func TestTakeBadIndexIsReportedAtTheNextHostRead(t *testing.T) {
	x := must(gpuarr.FromSlice([]int32{1, 2, 3, 4, 5, 6}, gpuarr.Shape{2, 3}))
	idx := must(gpuarr.FromSlice([]int64{0, 2, 3, -4, 7, 1}, gpuarr.Shape{6}))
	y, err := gpuarr.Take(x, idx, gpuarr.Axis(1))
	require.NoError(t, err, "the check is on the device: Take itself does not wait")
	z := must(gpuarr.Eval(gpuarr.Add(y, gpuarr.Scalar[int32](1))))
	_, err = z.ToSlice()
	require.ErrorIs(t, err, gpuarr.ErrIndex)
	var ie interface{ Error() string }
	require.True(t, errors.As(err, &ie))
	assert.Contains(t, err.Error(), "gpuarr.Take: index 3 is out of bounds for axis 1 with size 3")
	assert.Contains(t, err.Error(), "at position 2 of the indices")
	// Reported once: the next wait is clean.
	require.NoError(t, gpuarr.Synchronize(gpuarr.OnDevice(x.Device())))
	// The bad elements were skipped (zero), the good ones taken.
	assert.Equal(t, []int32{1, 3, 0, 0, 0, 2, 4, 6, 0, 0, 0, 5}, values(t, y))
}

func TestTakeBadIndexUnsignedAndFlat(t *testing.T) {
	x := must(gpuarr.FromSlice([]float64{1, 2, 3}, gpuarr.Shape{3}))
	idx := must(gpuarr.FromSlice([]uint64{1, 1 << 63, 5}, gpuarr.Shape{3}))
	_, err := gpuarr.Take(x, idx)
	require.NoError(t, err)
	err = gpuarr.Synchronize(gpuarr.OnDevice(x.Device()))
	require.ErrorIs(t, err, gpuarr.ErrIndex)
	assert.Contains(t, err.Error(), "index 9223372036854775808 is out of bounds for the flattened array of size 3")
	assert.Contains(t, err.Error(), "at position 1 of the indices")
}

func TestTakeEmpty(t *testing.T) {
	x := must(gpuarr.Zeros[float32](gpuarr.Shape{2, 0}))
	idx := must(gpuarr.FromSlice([]int64{0}, gpuarr.Shape{1}))
	_, err := gpuarr.Take(x, idx, gpuarr.Axis(1))
	require.ErrorIs(t, err, gpuarr.ErrIndex)
	assert.Contains(t, err.Error(), "axis 1 of float32[2 0]")
	none := must(gpuarr.Zeros[int64](gpuarr.Shape{0}))
	y := must(gpuarr.Take(x, none, gpuarr.Axis(1)))
	assert.Equal(t, gpuarr.Shape{2, 0}, y.Shape())
	_, err = gpuarr.Take(x, idx, gpuarr.Axis(2))
	require.ErrorIs(t, err, gpuarr.ErrShape)
}

func TestTakeAlongAxis(t *testing.T) {
	xs := gpuarr.Shape{3, 4, 2}
	x := must(gpuarr.FromSlice(seq[int16](xs.Len()), xs))
	idx := []int32{3, 0, -1, 2, 1, 1, 0, 0, 2, 3, 1, 0, 0, 0, 0, 0, 3, 3, 2, 1, 0, 1, 2, 3}
	ix := must(gpuarr.FromSlice(idx, xs))
	got := must(gpuarr.TakeAlongAxis(x, ix, gpuarr.Axis(1)))
	xv := seq[int16](xs.Len())
	want := make([]int16, xs.Len())
	for o := range 3 {
		for j := range 4 {
			for c := range 2 {
				i := idx[(o*4+j)*2+c]
				if i < 0 {
					i += 4
				}
				want[(o*4+j)*2+c] = xv[(o*4+int(i))*2+c]
			}
		}
	}
	assert.Equal(t, want, values(t, got))

	// Fewer indices along the axis than the axis has: the result is the
	// indices' shape.
	ix2 := must(gpuarr.FromSlice([]int64{1, 0, 3, 2, 0, 0}, gpuarr.Shape{3, 1, 2}))
	got2 := must(gpuarr.TakeAlongAxis(x, ix2, gpuarr.Axis(1)))
	assert.Equal(t, gpuarr.Shape{3, 1, 2}, got2.Shape())
	assert.Equal(t, []int16{xv[2], xv[1], xv[8+6], xv[8+5], xv[16], xv[17]}, values(t, got2))

	_, err := gpuarr.TakeAlongAxis(x, ix2)
	require.ErrorIs(t, err, gpuarr.ErrArgument)
	_, err = gpuarr.TakeAlongAxis(x, must(gpuarr.FromSlice([]int64{0, 0}, gpuarr.Shape{2, 1, 1})), gpuarr.Axis(1))
	require.ErrorIs(t, err, gpuarr.ErrShape)

	bad := must(gpuarr.FromSlice([]int64{0, 0, 0, 9, 0, 0}, gpuarr.Shape{3, 1, 2}))
	_, err = gpuarr.TakeAlongAxis(x, bad, gpuarr.Axis(1))
	require.NoError(t, err)
	err = gpuarr.Synchronize(gpuarr.OnDevice(x.Device()))
	require.ErrorIs(t, err, gpuarr.ErrIndex)
	assert.Contains(t, err.Error(), "gpuarr.TakeAlongAxis: index 9 is out of bounds for axis 1 with size 4")
	assert.Contains(t, err.Error(), "at position 3")
}

func TestTakeStridedOperands(t *testing.T) {
	x := must(gpuarr.FromSlice(seq[float32](12), gpuarr.Shape{3, 4}))
	xt := must(x.Transpose()) // [4 3]
	idx := must(gpuarr.FromSlice([]int64{2, 0}, gpuarr.Shape{2}))
	got := must(gpuarr.Take(xt, idx, gpuarr.Axis(1)))
	// xt[r][c] = x[c][r]
	xv := seq[float32](12)
	var want []float32
	for r := range 4 {
		want = append(want, xv[2*4+r], xv[0*4+r])
	}
	assert.Equal(t, want, values(t, got))
}

func TestTakeOptionsRefused(t *testing.T) {
	x := must(gpuarr.FromSlice([]float32{1}, gpuarr.Shape{1}))
	idx := must(gpuarr.FromSlice([]int64{0}, gpuarr.Shape{1}))
	_, err := gpuarr.Take(x, idx, gpuarr.KeepDims())
	require.ErrorIs(t, err, gpuarr.ErrArgument)
	assert.Contains(t, err.Error(), "gpuarr.KeepDims()")
	_, err = gpuarr.Take(x, idx, gpuarr.Axis(0), gpuarr.Axis(0))
	require.ErrorIs(t, err, gpuarr.ErrArgument)
}

func testMaskedSelectType[T gpuarr.Numeric](t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for _, sh := range []gpuarr.Shape{{1}, {5}, {2049}, {3, 1000}, {7000}} {
		if testing.Short() && sh.Len() > 5000 {
			continue
		}
		xs := make([]T, sh.Len())
		var want []T
		for i := range xs {
			xs[i] = T(rng.IntN(100))
			if xs[i] >= 50 {
				want = append(want, xs[i])
			}
		}
		x := must(gpuarr.FromSlice(xs, sh))
		got := must(gpuarr.MaskedSelect(x, gpuarr.GreaterEqual(x, gpuarr.Scalar(T(50)))))
		assert.Equal(t, gpuarr.Shape{len(want)}, got.Shape())
		if len(want) > 0 {
			assert.Equal(t, want, values(t, got), "%v", sh)
		}
	}
}

func TestMaskedSelectEveryType(t *testing.T) {
	t.Run("int8", testMaskedSelectType[int8])
	t.Run("int16", testMaskedSelectType[int16])
	t.Run("int32", testMaskedSelectType[int32])
	t.Run("int64", testMaskedSelectType[int64])
	t.Run("uint8", testMaskedSelectType[uint8])
	t.Run("uint16", testMaskedSelectType[uint16])
	t.Run("uint32", testMaskedSelectType[uint32])
	t.Run("uint64", testMaskedSelectType[uint64])
	t.Run("float32", testMaskedSelectType[float32])
	t.Run("float64", testMaskedSelectType[float64])
}

func TestMaskedSelectBroadcastsAndExpressions(t *testing.T) {
	x := must(gpuarr.FromSlice([]float32{1, 2, 3, 4, 5, 6}, gpuarr.Shape{2, 3}))
	rowMask := must(gpuarr.FromSlice([]float32{1, 0, 1}, gpuarr.Shape{3}))
	got := must(gpuarr.MaskedSelect(gpuarr.Mul(x, gpuarr.Scalar[float32](10)), gpuarr.NotEqual(rowMask, gpuarr.Scalar[float32](0))))
	assert.Equal(t, []float32{10, 30, 40, 60}, values(t, got))
	// A mask larger than x: x broadcasts.
	col := must(gpuarr.FromSlice([]float32{7, 8}, gpuarr.Shape{2, 1}))
	got = must(gpuarr.MaskedSelect(col, gpuarr.Greater(x, gpuarr.Scalar[float32](2))))
	assert.Equal(t, []float32{7, 8, 8, 8}, values(t, got))
	none := must(gpuarr.MaskedSelect(x, gpuarr.Greater(x, gpuarr.Scalar[float32](9))))
	assert.Equal(t, gpuarr.Shape{0}, none.Shape())
	_, err := gpuarr.MaskedSelect(x, gpuarr.Greater(must(gpuarr.Zeros[float32](gpuarr.Shape{4})), gpuarr.Scalar[float32](0)))
	require.ErrorIs(t, err, gpuarr.ErrShape)
}

func TestNonzero(t *testing.T) {
	xs := []int32{0, 3, 0, 0, 5, 6, 0, 0, 0, 0, 0, 7}
	x := must(gpuarr.FromSlice(xs, gpuarr.Shape{2, 3, 2}))
	idx := must(gpuarr.Nonzero(x))
	require.Len(t, idx, 3)
	assert.Equal(t, []int64{0, 0, 0, 1}, values(t, idx[0]))
	assert.Equal(t, []int64{0, 2, 2, 2}, values(t, idx[1]))
	assert.Equal(t, []int64{1, 0, 1, 1}, values(t, idx[2]))
	nan := float64(0)
	nan = nan / nan
	f := must(gpuarr.FromSlice([]float64{0, nan, -0.0, 2}, gpuarr.Shape{4}))
	fi := must(gpuarr.Nonzero(f))
	assert.Equal(t, []int64{1, 3}, values(t, fi[0]), "NaN is nonzero, -0 is zero")
	mi := must(gpuarr.NonzeroMask(gpuarr.Less(f, gpuarr.Scalar(1.0))))
	assert.Equal(t, []int64{0, 2}, values(t, mi[0]))
	_, err := gpuarr.Nonzero(must(gpuarr.FromSlice([]float32{1}, gpuarr.Shape{})))
	require.ErrorIs(t, err, gpuarr.ErrShape)
	// Many tiles.
	big := make([]uint8, 10000)
	var want []int64
	for i := range big {
		if i%7 == 3 {
			big[i] = 1
			want = append(want, int64(i))
		}
	}
	bi := must(gpuarr.Nonzero(must(gpuarr.FromSlice(big, gpuarr.Shape{len(big)}))))
	assert.Equal(t, want, values(t, bi[0]))
}

func TestCompress(t *testing.T) {
	x := must(gpuarr.FromSlice(seq[float64](12), gpuarr.Shape{3, 4}))
	cond := must(gpuarr.FromSlice([]uint8{1, 0, 1}, gpuarr.Shape{3}))
	m := gpuarr.NotEqual(cond, gpuarr.Scalar[uint8](0))
	got := must(gpuarr.Compress(m, x, gpuarr.Axis(1)))
	assert.Equal(t, gpuarr.Shape{3, 2}, got.Shape())
	assert.Equal(t, []float64{1, 3, 5, 7, 9, 11}, values(t, got))
	got = must(gpuarr.Compress(m, x, gpuarr.Axis(0)))
	assert.Equal(t, gpuarr.Shape{2, 4}, got.Shape())
	assert.Equal(t, []float64{1, 2, 3, 4, 9, 10, 11, 12}, values(t, got))
	got = must(gpuarr.Compress(m, x))
	assert.Equal(t, []float64{1, 3}, values(t, got))
	long := must(gpuarr.FromSlice([]uint8{0, 0, 0, 0, 1}, gpuarr.Shape{5}))
	_, err := gpuarr.Compress(gpuarr.NotEqual(long, gpuarr.Scalar[uint8](0)), x, gpuarr.Axis(1))
	require.NoError(t, err)
	err = gpuarr.Synchronize(gpuarr.OnDevice(x.Device()))
	require.ErrorIs(t, err, gpuarr.ErrIndex)
	assert.Contains(t, err.Error(), "gpuarr.Compress: index 4 is out of bounds for axis 1 with size 4")
}

func testIndexAddType[T gpuarr.Numeric](t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	for _, c := range []struct {
		xs gpuarr.Shape
		k  int
		m  int
	}{
		{gpuarr.Shape{10}, 0, 25}, {gpuarr.Shape{4, 6}, 1, 9}, {gpuarr.Shape{5, 3, 4}, 1, 7}, {gpuarr.Shape{300, 5}, 0, 1000},
		{gpuarr.Shape{3, 3000}, 1, 5000},
	} {
		if testing.Short() && c.m > 1000 {
			continue
		}
		xv := seq[T](c.xs.Len())
		x := must(gpuarr.FromSlice(xv, c.xs))
		n := c.xs[c.k]
		idx := make([]int32, c.m)
		for i := range idx {
			idx[i] = int32(rng.IntN(2*n) - n)
		}
		ss := append(gpuarr.Shape{}, c.xs...)
		ss[c.k] = c.m
		sv := make([]T, ss.Len())
		for i := range sv {
			sv[i] = T(rng.IntN(5))
		}
		require.NoError(t, gpuarr.IndexAdd(x, must(gpuarr.FromSlice(idx, gpuarr.Shape{c.m})), must(gpuarr.FromSlice(sv, ss)), gpuarr.Axis(c.k)))
		want := append([]T{}, xv...)
		outer, inner := 1, 1
		for d, e := range c.xs {
			if d < c.k {
				outer *= e
			} else if d > c.k {
				inner *= e
			}
		}
		for o := range outer {
			for j, p := range idx {
				if p < 0 {
					p += int32(n)
				}
				for i := range inner {
					want[(o*n+int(p))*inner+i] += sv[(o*c.m+j)*inner+i]
				}
			}
		}
		assert.Equal(t, want, values(t, x), "%v axis %d", c.xs, c.k)
	}
}

func TestIndexAddEveryType(t *testing.T) {
	t.Run("int8", testIndexAddType[int8])
	t.Run("int16", testIndexAddType[int16])
	t.Run("int32", testIndexAddType[int32])
	t.Run("int64", testIndexAddType[int64])
	t.Run("uint8", testIndexAddType[uint8])
	t.Run("uint16", testIndexAddType[uint16])
	t.Run("uint32", testIndexAddType[uint32])
	t.Run("uint64", testIndexAddType[uint64])
	t.Run("float32", testIndexAddType[float32])
	t.Run("float64", testIndexAddType[float64])
}

func TestIndexAddScalarAndBadIndex(t *testing.T) {
	x := must(gpuarr.Zeros[float32](gpuarr.Shape{3, 2}))
	idx := must(gpuarr.FromSlice([]int64{0, 2, 2, -3}, gpuarr.Shape{4}))
	require.NoError(t, gpuarr.IndexAdd(x, idx, gpuarr.Scalar[float32](1.5)))
	assert.Equal(t, []float32{3, 3, 0, 0, 3, 3}, values(t, x))
	bad := must(gpuarr.FromSlice([]int64{1, 3, -4, 0}, gpuarr.Shape{4}))
	require.NoError(t, gpuarr.IndexAdd(x, bad, gpuarr.Scalar[float32](1)))
	_, err := x.ToSlice()
	require.ErrorIs(t, err, gpuarr.ErrIndex)
	assert.Contains(t, err.Error(), "gpuarr.IndexAdd: index 3 is out of bounds for axis 0 with size 3")
	assert.Contains(t, err.Error(), "at position 1")
	assert.Equal(t, []float32{4, 4, 1, 1, 3, 3}, values(t, x), "the good indices added, the bad skipped")
	_, err = x.Transpose()
	require.NoError(t, err)
	xt := must(x.Transpose())
	require.ErrorIs(t, gpuarr.IndexAdd(xt, idx, gpuarr.Scalar[float32](1)), gpuarr.ErrArgument)
	require.ErrorIs(t, gpuarr.IndexAdd(x, must(gpuarr.Zeros[int64](gpuarr.Shape{2, 2})), gpuarr.Scalar[float32](1)), gpuarr.ErrShape)
}

func TestPut(t *testing.T) {
	x := must(gpuarr.FromSlice(seq[int16](6), gpuarr.Shape{2, 3}))
	require.NoError(t, gpuarr.Put(x, must(gpuarr.FromSlice([]uint8{5, 0}, gpuarr.Shape{2})), must(gpuarr.FromSlice([]int16{-1, -2}, gpuarr.Shape{2}))))
	assert.Equal(t, []int16{-2, 2, 3, 4, 5, -1}, values(t, x))
	require.NoError(t, gpuarr.Put(x, must(gpuarr.FromSlice([]int64{-1, 7, 8}, gpuarr.Shape{3})), gpuarr.Scalar[int16](9), gpuarr.Wrap()))
	assert.Equal(t, []int16{-2, 9, 9, 4, 5, 9}, values(t, x))
	require.NoError(t, gpuarr.Put(x, must(gpuarr.FromSlice([]int64{2, 6}, gpuarr.Shape{2})), gpuarr.Scalar[int16](0)))
	err := gpuarr.Synchronize(gpuarr.OnDevice(x.Device()))
	require.ErrorIs(t, err, gpuarr.ErrIndex)
	assert.Contains(t, err.Error(), "gpuarr.Put: index 6 is out of bounds for the flattened array of size 6")
	assert.Equal(t, []int16{-2, 9, 0, 4, 5, 9}, values(t, x))
	// The values may be x itself: read before written.
	y := must(gpuarr.FromSlice([]float64{1, 2, 3}, gpuarr.Shape{3}))
	require.NoError(t, gpuarr.Put(y, must(gpuarr.FromSlice([]int32{2, 1, 0}, gpuarr.Shape{3})), y))
	assert.Equal(t, []float64{3, 2, 1}, values(t, y))
}
