package gpuarr_test

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gpuarr/gpuarr/gpuarr"
	"github.com/gpuarr/gpuarr/internal/philox"
)

// The device's random numbers equal the Go reference (internal/philox),
// so the same seed gives the same numbers on the host and on the GPU.
func TestRandomMatchesReference(t *testing.T) {
	const n = 100000
	g := gpuarr.NewRNG(2026)
	u32 := values(t, must(gpuarr.Eval(gpuarr.UniformExpr[float32](g, gpuarr.Shape{n}))))
	u64 := values(t, must(gpuarr.Eval(gpuarr.UniformExpr[float64](g, gpuarr.Shape{n}))))
	n32 := values(t, must(gpuarr.Eval(gpuarr.NormalExpr[float32](g, gpuarr.Shape{n}))))
	n64 := values(t, must(gpuarr.Eval(gpuarr.NormalExpr[float64](g, gpuarr.Shape{n}))))
	var mean, sq float64
	for i := 0; i < n; i++ {
		c := uint64(i)
		require.Equal(t, philox.Uniform32(2026, c, 0), u32[i], "uniform float32 %d", i)
		require.Equal(t, philox.Uniform64(2026, c, 1), u64[i], "uniform float64 %d", i)
		require.InDelta(t, philox.Normal32(2026, c, 2), n32[i], 2e-6*math.Max(1, math.Abs(float64(n32[i]))), "normal float32 %d", i)
		require.InDelta(t, philox.Normal64(2026, c, 3), n64[i], 1e-13*math.Max(1, math.Abs(n64[i])), "normal float64 %d", i)
		mean += n64[i]
		sq += n64[i] * n64[i]
	}
	mean /= n
	assert.InDelta(t, 0, mean, 0.02)
	assert.InDelta(t, 1, sq/n-mean*mean, 0.02)

	// Fused with arithmetic and broadcast: a [3 1] draw against [3 4].
	g2 := gpuarr.NewRNG(7)
	w := must(gpuarr.Zeros[float32](gpuarr.Shape{3, 4}))
	got := values(t, must(gpuarr.Eval(gpuarr.Add(w, gpuarr.UniformExpr[float32](g2, gpuarr.Shape{3, 1})))))
	for i := 0; i < 3; i++ {
		for j := 0; j < 4; j++ {
			assert.Equal(t, philox.Uniform32(7, uint64(i), 0), got[i*4+j])
		}
	}
}
