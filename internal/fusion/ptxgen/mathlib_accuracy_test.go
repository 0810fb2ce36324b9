package ptxgen

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
)

// Accuracy of the Go models against Go's math package: this checks the
// algorithms and constants the PTX uses (mathlib_gpu_test.go then checks
// the PTX against the models).

// ulpErr32 is got's error in float32 ulps of the float64 reference (0 when
// got is ref rounded, +Inf when a special value differs).
func ulpErr32(got float32, ref float64) float64 {
	want := float32(ref)
	switch {
	case got == want && math.Signbit(float64(got)) == math.Signbit(float64(want)):
		return 0
	case got != got && want != want:
		return 0
	case got != got || want != want || math.IsInf(float64(got), 0) || math.IsInf(float64(want), 0):
		return math.Inf(1)
	}
	_, e := math.Frexp(ref)
	ulp := math.Ldexp(1, max(e-1, -126)-23)
	return math.Abs(float64(got)-ref) / ulp
}

// relErr64 is got's error relative to ref (relative to the smallest
// normal for subnormal references; +Inf when a special value differs).
func relErr64(got, ref float64) float64 {
	switch {
	case got == ref && math.Signbit(got) == math.Signbit(ref):
		return 0
	case math.IsNaN(got) && math.IsNaN(ref):
		return 0
	case math.IsNaN(got) || math.IsNaN(ref) || math.IsInf(got, 0) || math.IsInf(ref, 0):
		return math.Inf(1)
	}
	return math.Abs(got-ref) / max(math.Abs(ref), 0x1p-1022)
}

// inputs64 returns the edge cases, then n values uniform in [lo, hi], then
// n values ±2^[−1074, 1024) spread over the exponents.
func inputs64(rng *rand.Rand, n int, lo, hi float64, edges ...float64) []float64 {
	xs := append([]float64{0, math.Copysign(0, -1), math.Inf(1), math.Inf(-1), math.NaN(),
		1, -1, 0x1p-1074, -0x1p-1074, 0x1p-1022, math.MaxFloat64, -math.MaxFloat64,
		math.Nextafter(1, 2), math.Nextafter(1, 0), 0.5, 2, 1e-300, 1e300}, edges...)
	for range n {
		xs = append(xs, lo+(hi-lo)*rng.Float64())
	}
	for range n {
		x := math.Ldexp(1+rng.Float64(), rng.IntN(2098)-1075)
		if rng.IntN(2) == 0 {
			x = -x
		}
		xs = append(xs, x)
	}
	return xs
}

// inputs32 returns the edge cases, then every stride-th float32 bit
// pattern (both signs, all exponents), then n values uniform in [lo, hi].
func inputs32(rng *rand.Rand, stride uint32, n int, lo, hi float32, edges ...float32) []float32 {
	xs := []float32{0, float32(math.Copysign(0, -1)), float32(math.Inf(1)), float32(math.Inf(-1)), float32(math.NaN()),
		1, -1, 0x1p-149, -0x1p-149, 0x1p-126, math.MaxFloat32, -math.MaxFloat32,
		math.Nextafter32(1, 2), math.Nextafter32(1, 0), 1e-5, -1e-5, 0.5, 2}
	xs = append(xs, edges...)
	for b := uint64(rng.Uint32N(stride)); b < 1<<32; b += uint64(stride) {
		xs = append(xs, math.Float32frombits(uint32(b)))
	}
	for range n {
		xs = append(xs, lo+(hi-lo)*rng.Float32())
	}
	return xs
}

// refExp and refLog are math.Exp and math.Log where those are right: Go's
// amd64 Exp overflows early (it returns +Inf from about x = 709.4, though
// exp(709.78) = 1.79e308 is finite) and its Log mistakes subnormals
// (Log(5e-324) = -709.09, not -744.44).
func refExp(x float64) float64 {
	if x > 700 {
		return math.Exp(x-1) * math.E
	}
	return math.Exp(x)
}

func refLog(x float64) float64 {
	if x > 0 && x < 0x1p-1022 {
		return math.Log(x*0x1p54) - 54*math.Ln2
	}
	return math.Log(x)
}

type mlAccuracy struct {
	worst float64
	at    string
}

func (a *mlAccuracy) add(err float64, format string, args ...any) {
	if a.at == "" || err > a.worst || (math.IsNaN(err) && !math.IsNaN(a.worst)) {
		a.worst, a.at = err, fmt.Sprintf(format, args...)
	}
}

func TestModelAccuracyF32(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	near := func(v float32) []float32 {
		return []float32{v, math.Nextafter32(v, 0), math.Nextafter32(v, 200)}
	}
	var edges []float32
	for _, v := range []float32{88.72283, 88.72284, -87.33655, -103.27893, -103.97208, -104, 89, 0.55, 9.01, 10, 0.3465736, 1.1, 0.70710677, 1.4142135} {
		edges = append(edges, near(v)...)
		edges = append(edges, near(-v)...)
	}
	xs := inputs32(rng, 1021, 100000, -20, 20, edges...)
	for _, tc := range []struct {
		name  string
		model func(float32) float32
		ref   func(float64) float64
	}{
		{"exp_f32", expF32Model, math.Exp},
		{"log_f32", logF32Model, math.Log},
		{"atan_f32", atanF32Model, math.Atan},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var acc mlAccuracy
			for _, x := range xs {
				acc.add(ulpErr32(tc.model(x), tc.ref(float64(x))), "x=%g (%#08x)", x, math.Float32bits(x))
			}
			t.Logf("%s: worst %.3f ulp at %s over %d inputs", tc.name, acc.worst, acc.at, len(xs))
			assert.LessOrEqual(t, acc.worst, 2.0, "worst at %s", acc.at)
		})
	}
}

func TestModelAccuracyF64(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	var edges []float64
	for _, v := range []float64{709.782712893384, 709.7827128933841, 709.78, 709.79, -708.3964185322641, -708.4,
		-745.1332191019411, -745.1332191019412, -745.14, -744.44, 710, -746, 0.55, 22, 19.1, 0.3465735902799726, 1.1,
		math.Sqrt2, math.Sqrt2 / 2, 1 + 1e-10, 1 - 1e-10, 1e-8, 1e-5, math.Ln2, 3 * math.Ln2} {
		edges = append(edges, v, -v, math.Nextafter(v, 0), math.Nextafter(v, 1000))
	}
	xs := inputs64(rng, 200000, -30, 30, edges...)
	for _, tc := range []struct {
		name  string
		model func(float64) float64
		ref   func(float64) float64
	}{
		{"exp_f64", expF64Model, refExp},
		{"log_f64", logF64Model, refLog},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var acc mlAccuracy
			for _, x := range xs {
				acc.add(relErr64(tc.model(x), tc.ref(x)), "x=%v", x)
			}
			t.Logf("%s: worst relative error %.3g at %s over %d inputs", tc.name, acc.worst, acc.at, len(xs))
			assert.LessOrEqual(t, acc.worst, 1e-15, "worst at %s", acc.at)
		})
	}
	// Near 1, log's result is tiny and must stay relatively accurate.
	t.Run("log_f64 near 1", func(t *testing.T) {
		var acc mlAccuracy
		for k := -2000; k <= 2000; k++ {
			x := 1 + float64(k)*0x1p-52
			ref := math.Log1p(float64(k) * 0x1p-52)
			acc.add(relErr64(logF64Model(x), ref), "x=1%+d·2⁻⁵²", k)
		}
		assert.LessOrEqual(t, acc.worst, 1e-15, "worst at %s", acc.at)
	})
}

func TestModelCos2pi(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	us := []float64{0, 0.125, 0.25, 0.375, 0.5, 0.625, 0.75, 0.875, 1 - 0x1p-53, 0x1p-53, 0.25 - 0x1p-53, 0.125 + 0x1p-53}
	for range 200000 {
		us = append(us, float64(rng.Uint64()>>11)*0x1p-53)
	}
	var acc mlAccuracy
	for _, u := range us {
		acc.add(math.Abs(cos2piModel(u)-math.Cos(2*math.Pi*u)), "u=%v", u)
	}
	t.Logf("cos2pi: worst absolute error %.3g at %s", acc.worst, acc.at)
	assert.LessOrEqual(t, acc.worst, 2e-15)
	// Exact quadrant points.
	for u, want := range map[float64]float64{0: 1, 0.25: 0, 0.5: -1, 0.75: 0} {
		assert.InDelta(t, want, cos2piModel(u), 1e-300, "cos(2π·%v)", u)
	}
}
