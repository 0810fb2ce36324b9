package gpuarr_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gpuarr/gpuarr/gpuarr"
)

// refMoments is the two-pass float64 variance (M2/(n−ddof)) and the
// NaN-skipping mean of each group of h (shape sh) reduced along axes.
func refMoments(h []float32, sh gpuarr.Shape, axes []int, ddof int) (variance, nanmean []float64) {
	groups := 1
	for d, e := range sh {
		if !contains(axes, d) && len(axes) > 0 {
			groups *= e
		}
	}
	sum, cnt, nsum, ncnt := make([]float64, groups), make([]float64, groups), make([]float64, groups), make([]float64, groups)
	for i, v := range h {
		g := groupOf(i, sh, axes)
		sum[g] += float64(v)
		cnt[g]++
		if v == v {
			nsum[g] += float64(v)
			ncnt[g]++
		}
	}
	m2 := make([]float64, groups)
	for i, v := range h {
		g := groupOf(i, sh, axes)
		d := float64(v) - sum[g]/cnt[g]
		m2[g] += d * d
	}
	variance, nanmean = make([]float64, groups), make([]float64, groups)
	for g := range groups {
		variance[g] = m2[g] / float64(max(int(cnt[g])-ddof, 0))
		nanmean[g] = nsum[g] / ncnt[g]
	}
	return variance, nanmean
}

func contains(xs []int, x int) bool {
	for _, v := range xs {
		if v == x {
			return true
		}
	}
	return false
}

// TestMomentsPaths takes Var, Std and NanMean through each kernel path
// (one group: the vector path; few long groups: partials; many groups:
// one pass; permuted axes: a strided reduction; a fused expression) on
// data whose mean is 10⁴ times its spread.
func TestMomentsPaths(t *testing.T) {
	r := rand.New(rand.NewPCG(41, 42))
	for _, c := range []struct {
		sh   gpuarr.Shape
		axes []int
	}{
		{gpuarr.Shape{1<<20 + 7}, nil},
		{gpuarr.Shape{3, 200003}, []int{1}},
		{gpuarr.Shape{5000, 33}, []int{1}},
		{gpuarr.Shape{64, 1001, 3}, []int{0, 1}},
		{gpuarr.Shape{7, 50, 9}, []int{0, 2}},
	} {
		h := make([]float32, c.sh.Len())
		for i := range h {
			h[i] = 1e4 + float32(r.NormFloat64())
			if i%1009 == 17 {
				h[i] = float32(math.NaN())
			}
		}
		clean := make([]float32, len(h))
		for i, v := range h {
			clean[i] = v
			if v != v {
				clean[i] = 1e4
			}
		}
		x := must(gpuarr.FromSlice(clean, c.sh))
		xn := must(gpuarr.FromSlice(h, c.sh))
		opts := axisOpts(c.axes)
		for _, ddof := range []int{0, 1} {
			want, _ := refMoments(clean, c.sh, c.axes, ddof)
			v := must(gpuarr.Var[float32](x, append(opts, gpuarr.Ddof(ddof))...))
			closeTo(t, want, values(t, v), 2e-6, 0, "Var")
			s := must(gpuarr.StdAs[float64](x, append(opts, gpuarr.Ddof(ddof))...))
			for i := range want {
				want[i] = math.Sqrt(want[i])
			}
			closeTo(t, want, values(t, s), 1e-9, 0, "StdAs[float64]")
			require.NoError(t, v.Release())
			require.NoError(t, s.Release())
		}
		// Fused: the variance of 2x − 3 is 4·Var(x).
		want, nanmean := refMoments(clean, c.sh, c.axes, 0)
		for i := range want {
			want[i] *= 4
		}
		v := must(gpuarr.VarAs[float64](gpuarr.Sub(gpuarr.Mul(x, gpuarr.Scalar[float32](2)), gpuarr.Scalar[float32](3)), opts...))
		closeTo(t, want, values(t, v), 1e-9, 0, "Var of an expression")
		_, nanmean = refMoments(h, c.sh, c.axes, 0)
		m := must(gpuarr.NanMean[float32](xn, opts...))
		closeTo(t, nanmean, values(t, m), 1e-6, 0, "NanMean")
		for _, a := range []*gpuarr.Array[float32]{x, xn} {
			require.NoError(t, a.Release())
		}
		require.NoError(t, v.Release())
		require.NoError(t, m.Release())
	}
}

func TestMomentsEdges(t *testing.T) {
	empty := must(gpuarr.Zeros[float32](gpuarr.Shape{3, 0}))
	defer empty.Release()
	_, err := gpuarr.Var[float32](empty)
	assert.ErrorIs(t, err, gpuarr.ErrShape, "Var of no elements")
	_, err = gpuarr.NanMean[float32](empty, gpuarr.Axis(1))
	assert.ErrorIs(t, err, gpuarr.ErrShape, "NanMean of no elements")
	s := must(gpuarr.NanSum[float32](empty, gpuarr.Axis(1)))
	assert.Equal(t, []float32{0, 0, 0}, values(t, s), "NanSum of no elements is 0")
	_, err = gpuarr.Std[float32](empty, gpuarr.Ddof(-1))
	assert.ErrorIs(t, err, gpuarr.ErrArgument)
	_, err = gpuarr.Sum[float32](empty, gpuarr.Ddof(1))
	assert.ErrorIs(t, err, gpuarr.ErrArgument, "Sum takes no Ddof")
	assert.ErrorContains(t, err, "Ddof(1)")

	// Integers: VarAs converts to float64 first (NumPy's var of ints).
	i := must(gpuarr.FromSlice([]int32{math.MaxInt32, math.MaxInt32 - 2, 1, 3}, gpuarr.Shape{2, 2}))
	defer i.Release()
	v := must(gpuarr.VarAs[float64](i, gpuarr.Axis(1)))
	assert.Equal(t, []float64{1, 1}, values(t, v))
	// Ddof ≥ n divides by 0: +Inf, or NaN where every deviation is 0.
	d := must(gpuarr.FromSlice([]float64{1, 3, 2, 2}, gpuarr.Shape{2, 2}))
	defer d.Release()
	v = must(gpuarr.Var[float64](d, gpuarr.Axis(1), gpuarr.Ddof(2)))
	got := values(t, v)
	assert.True(t, math.IsInf(got[0], 1) && math.IsNaN(got[1]), "%v", got)
}
