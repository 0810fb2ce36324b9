package gpuarr_test

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gpuarr/gpuarr/gpuarr"
	"github.com/gpuarr/gpuarr/internal/testutil"
)

// subnormalInputs are subnormal float64s, from the least to the largest.
var subnormalInputs = []float64{math.SmallestNonzeroFloat64, 3 * 0x1p-1074, 1e-320, 1e-315, 1e-310, 0x1p-1030,
	1.5 * 0x1p-1023, math.Float64frombits(1<<52 - 1)}

// TestLogPowSubnormal: float64 Log and Pow of subnormal inputs are within
// the accuracy internal/fusion/expr documents for the GPU, 1e-14 relative (Pow:
// times max(1, |y·ln x|)), of the exact values, on every backend (the
// host backend once gave ln 2⁻¹⁰⁷⁴ = −709.09 instead of −744.44).
func TestLogPowSubnormal(t *testing.T) {
	x := must(gpuarr.FromSlice(subnormalInputs, gpuarr.Shape{len(subnormalInputs)}))
	defer x.Release()
	logs := values(t, must(gpuarr.Eval(gpuarr.Log(x))))
	for i, v := range subnormalInputs {
		want, _ := testutil.BigLog(v).Float64()
		require.InDelta(t, want, logs[i], 1e-14*math.Abs(want), "log(%g)", v)
	}
	for _, y := range []float64{0.3, 0.5, -0.5, 0.75, -0.9, 1.0001} {
		pows := values(t, must(gpuarr.Eval(gpuarr.Pow(x, gpuarr.Scalar(y)))))
		for i, v := range subnormalInputs {
			want, _ := testutil.BigPow(v, y).Float64()
			tol := 1e-14 * max(1, math.Abs(y*math.Log(v*0x1p54)-54*y*math.Ln2)) * math.Abs(want)
			if math.Abs(want) < 0x1p-1022 {
				tol += 2 * 0x1p-1074 // subnormal results: a step or two
			}
			require.InDelta(t, want, pows[i], tol, "pow(%g, %g)", v, y)
		}
	}
}
