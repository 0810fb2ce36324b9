package hosteval

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gpuarr/gpuarr/device/dtype"
	"github.com/gpuarr/gpuarr/internal/fusion/expr"
	"github.com/gpuarr/gpuarr/internal/testutil"
)

// subnormals are subnormal float64s: the extremes, powers of two and
// random ones.
func subnormals(rng *rand.Rand, n int) []float64 {
	xs := []float64{math.SmallestNonzeroFloat64, 0x1p-1073, 3 * 0x1p-1074, 0x1p-1030, 0x1p-1023,
		math.Float64frombits(1<<52 - 1)} // the largest subnormal
	for len(xs) < n {
		xs = append(xs, math.Float64frombits(rng.Uint64N(1<<52-1)+1))
	}
	return xs
}

// ulps is how many float64 steps got is from the exact value want
// (the distance in units of want's last place; subnormal spacing at
// the bottom).
func ulps(got, want float64) float64 {
	ulp := math.Nextafter(math.Abs(want), math.Inf(1)) - math.Abs(want)
	return math.Abs(got-want) / ulp
}

// TestLogSubnormal: the host's float64 Log of subnormal inputs is within
// an ulp of the correctly rounded logarithm (Go's math.Log on amd64 gave
// ln 2⁻¹⁰⁷⁴ = −709.09, not −744.44), directly and through a kernel.
func TestLogSubnormal(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	xs := subnormals(rng, 2000)
	for _, x := range xs {
		want, _ := testutil.BigLog(x).Float64()
		require.LessOrEqual(t, ulps(logF64(x), want), 1.0, "log(%g) = %v, want %v", x, logF64(x), want)
	}
	for _, x := range []float64{0.5, 1, 2, math.MaxFloat64, minNormal, 1e-300} {
		assert.Equal(t, math.Log(x), logF64(x), "normal %g: math.Log's", x)
	}
	assert.Equal(t, math.Inf(-1), logF64(0))
	assert.True(t, math.IsNaN(logF64(-0x1p-1074)))

	dev := hostDevice(t)
	p := elementwise([]expr.Instr{input(0, dtype.Float64), un(expr.OpLog, dtype.Float64, 0)}, contiguous(dtype.Float64, 1))
	out := alloc[float64](t, dev, len(xs))
	require.NoError(t, run(t, dev, p, call{out: out, n: uint64(len(xs)), ins: []inArg{{ptr: upload(t, dev, xs)}}}))
	for i, got := range download[float64](t, dev, out, len(xs)) {
		assert.Equal(t, logF64(xs[i]), got, "kernel log(%g)", xs[i])
	}
}

// TestPowSubnormal: float64 Pow of a subnormal base is within 2 ulps of
// the exact power (math.Pow gave 4.1e-93 for (2⁻¹⁰⁷⁴)^0.3, which is
// 1.0e-97), integer exponents included; a negative base with a
// fractional exponent is NaN.
func TestPowSubnormal(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	ys := []float64{0.3, 0.5, -0.5, 0.7, -0.9, 0.999, 1.0001, 1.5, 2.5, -0.25, 0.01, -1.0005, 1e-9, 1, 2, -1, 3}
	for _, x := range subnormals(rng, 400) {
		for _, y := range ys {
			want, _ := testutil.BigPow(x, y).Float64()
			got := powF64(x, y)
			if math.IsInf(want, 0) || want == 0 {
				assert.Equal(t, want, got, "pow(%g, %g)", x, y)
				continue
			}
			require.LessOrEqual(t, ulps(got, want), 2.0, "pow(%g, %g) = %v, want %v", x, y, got, want)
		}
		assert.True(t, math.IsNaN(powF64(-x, 0.5)), "negative base, fractional exponent")
	}

	dev := hostDevice(t)
	xs, yv := []float64{0x1p-1074, 1e-310, 0x1p-1030}, []float64{0.3, -0.5, 0.7}
	p := elementwise([]expr.Instr{input(0, dtype.Float64), input(1, dtype.Float64), bin(expr.OpPow, dtype.Float64, 0, 1)}, contiguous(dtype.Float64, 2))
	out := alloc[float64](t, dev, len(xs))
	require.NoError(t, run(t, dev, p, call{out: out, n: uint64(len(xs)), ins: []inArg{{ptr: upload(t, dev, xs)}, {ptr: upload(t, dev, yv)}}}))
	for i, got := range download[float64](t, dev, out, len(xs)) {
		assert.Equal(t, powF64(xs[i], yv[i]), got, "kernel pow(%g, %g)", xs[i], yv[i])
	}
}

// TestOtherMathSubnormal: Exp, Sqrt and Tanh of subnormal inputs, which
// need no scaling: 1, the correctly rounded root, and x.
func TestOtherMathSubnormal(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, x := range subnormals(rng, 1000) {
		assert.Equal(t, 1.0, math.Exp(x))
		assert.Equal(t, x, math.Tanh(x))
		want, _ := testutil.BigPow(x, 0.5).Float64()
		assert.Equal(t, want, math.Sqrt(x), "sqrt(%g)", x)
	}
}

// Every Math op of the op table has its Go function, of as many operands.
func TestMathOpsHaveHostFunctions(t *testing.T) {
	for op := expr.Op(0); op.Info().Name != "op?"; op++ {
		info := op.Info()
		if !info.Math {
			continue
		}
		switch info.Arity {
		case 1:
			assert.NotNil(t, unaryMath[op], "op %s has no host function", info.Name)
		case 2:
			assert.NotNil(t, binaryMath[op], "op %s has no host function", info.Name)
		default:
			t.Errorf("op %s: no host table for %d operands", info.Name, info.Arity)
		}
	}
}
