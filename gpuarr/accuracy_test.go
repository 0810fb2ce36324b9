package gpuarr_test

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gpuarr/gpuarr/gpuarr"
)

// The float32 sum's stated bound (Sum's doc): |Ŝ − S| ≤ 2⁻²⁴·|S| +
// 2⁻³⁰·Σ|x|, against NumPy's pairwise float32 sum's (⌈log₂ n⌉ + 8)·2⁻²⁴·Σ|x|.
// Adversarial data: magnitudes over 2⁴⁰ with cancelling signs, so that
// a float32 accumulator (or a short float64 one) would lose digits; the
// shapes take each kernel path (one group, the vector path; few groups,
// partials; many groups, one pass; a permuted, strided reduction).
func TestFloat32SumBound(t *testing.T) {
	r := rand.New(rand.NewPCG(31, 32))
	for _, c := range []struct {
		sh   gpuarr.Shape
		axes []int
	}{
		{gpuarr.Shape{1<<20 + 3}, nil},
		{gpuarr.Shape{3, 300001}, []int{1}},
		{gpuarr.Shape{4096, 257}, []int{1}},
		{gpuarr.Shape{701, 3, 97}, []int{0, 2}},
	} {
		n := c.sh.Len()
		h := make([]float32, n)
		for i := range h {
			v := float32(math.Ldexp(1+r.Float64(), r.IntN(41)-20))
			if r.IntN(2) == 0 {
				v = -v
			}
			h[i] = v
		}
		x := must(gpuarr.FromSlice(h, c.sh))
		s := must(gpuarr.Sum[float32](x, axisOpts(c.axes)...))
		got := values(t, s)
		// Exact group sums (256-bit floats are exact for 2⁴¹-wide
		// float32 data over fewer than 2²⁰⁰ elements).
		groups := len(got)
		exact := make([]*big.Float, groups)
		abs := make([]float64, groups)
		for g := range exact {
			exact[g] = new(big.Float).SetPrec(256)
		}
		for i, v := range h {
			g := groupOf(i, c.sh, c.axes)
			exact[g].Add(exact[g], new(big.Float).SetFloat64(float64(v)))
			abs[g] += math.Abs(float64(v))
		}
		worst := 0.0
		for g, e := range exact {
			ef, _ := e.Float64()
			err := math.Abs(float64(got[g]) - ef)
			bound := math.Ldexp(math.Abs(ef), -24) + math.Ldexp(abs[g], -30)
			require.LessOrEqual(t, err, bound, "%v axes %v group %d: sum %v, exact %v", c.sh, c.axes, g, got[g], ef)
			worst = max(worst, (err-math.Ldexp(math.Abs(ef), -24))/abs[g])
		}
		t.Logf("%v axes %v: worst error beyond rounding the result: %.3g·Σ|x| (NumPy's pairwise bound %.3g·Σ|x|)",
			c.sh, c.axes, worst, math.Ldexp(math.Ceil(math.Log2(float64(n/groups)))+8, -24))
		require.NoError(t, s.Release())
		require.NoError(t, x.Release())
	}
}

// groupOf is the row-major index, in the reduction's result, of element i
// of an array of shape sh reduced along axes (all when none).
func groupOf(i int, sh gpuarr.Shape, axes []int) int {
	reduced := make([]bool, len(sh))
	for _, a := range axes {
		reduced[a] = true
	}
	if len(axes) == 0 {
		return 0
	}
	g, stride := 0, 1
	for d := len(sh) - 1; d >= 0; d-- {
		idx := i % sh[d]
		i /= sh[d]
		if !reduced[d] {
			g += idx * stride
			stride *= sh[d]
		}
	}
	return g
}
