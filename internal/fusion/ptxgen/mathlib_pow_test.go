package ptxgen

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/gpuarr/gpuarr/internal/testutil"
)

// TestMathlibPowF32LargeResults: pow_f32 where y·log₂x is large (up to
// ±300, past overflow and underflow), x near 1 (the reduction's e = 0 and
// ±1, where log₂x's low part carries the most weight) and subnormal x
// (behind the common path's branch), on the interpreter: within the bound
// (testutil's inputs draw few of these).
func TestMathlibPowF32LargeResults(t *testing.T) {
	n := 40000
	if testing.Short() {
		n = 5000
	}
	rng := rand.New(rand.NewPCG(27, 32))
	var in [][2]float64
	for range n {
		// Any positive float32, y so that |y·log₂x| ≤ 300.
		x := float64(math.Float32frombits(rng.Uint32()&0x007FFFFF | uint32(rng.IntN(255))<<23))
		in = append(in, [2]float64{x, float64(float32((rng.Float64()*2 - 1) * 300 / math.Max(math.Abs(math.Log2(x)), 1e-3)))})
		// x in [0.7, 1.45], |y·log₂x| ≤ 150.
		x = float64(float32(0.7 + 0.75*rng.Float64()))
		in = append(in, [2]float64{x, float64(float32((rng.Float64()*2 - 1) * 150 / math.Max(math.Abs(math.Log2(x)), 1e-7)))})
		// Subnormal x of either sign, small and integer y.
		x = float64(math.Float32frombits(rng.Uint32() & 0x807FFFFF))
		y := float64(float32((rng.Float64()*2 - 1) * math.Pow(2, float64(rng.IntN(8)-4))))
		if rng.IntN(3) == 0 {
			y = math.Round(y * 8)
		}
		in = append(in, [2]float64{x, y})
	}
	m := testutil.MathFuncNamed("pow")
	mlCheckStats(t, m, 32, mlStats(m, 32, in, mlEvalSim(t, "pow_f32", in)), "the interpreter")
}
