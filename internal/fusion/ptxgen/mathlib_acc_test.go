package ptxgen

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/gpuarr/gpuarr/internal/fusion/expr"
	"github.com/gpuarr/gpuarr/internal/fusion/hosteval"
	"github.com/gpuarr/gpuarr/internal/testutil"
)

// The generated PTX itself, run by the interpreter (mathlib_sim_test.go)
// on a sample of each function's inputs (testutil.MathFunc.Inputs:
// special values, range edges and their neighbours, uniform and
// all-exponent random values), against the exact references: CUDA's
// bound holds, and every special value is exact. The GPU test
// (mathlib_gpu_test.go) runs more inputs on the hardware.

// mlEvalSim evaluates library function fn (e.g. "sin_f32") at the inputs
// on the interpreter, in parallel.
func mlEvalSim(t testing.TB, fn string, in [][2]float64) []uint64 {
	lib := simLibrary(t)
	sig := mathSigs[fn]
	out := make([]uint64, len(in))
	workers := runtime.GOMAXPROCS(0)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			m := newSimMachine(lib)
			for i := w; i < len(in); i += workers {
				var args [2]uint64
				for k := range sig.args {
					if sig.args[k] == "f32" {
						args[k] = uint64(math.Float32bits(float32(in[i][k])))
					} else {
						args[k] = math.Float64bits(in[i][k])
					}
				}
				out[i] = m.Call(fn, args[:len(sig.args)]...)
			}
		}()
	}
	wg.Wait()
	return out
}

// mlStats measures results (raw bits) against the function's references,
// in parallel (the references are the slow part).
func mlStats(m testutil.MathFunc, bits int, in [][2]float64, got []uint64) *testutil.ULPStats {
	workers := runtime.GOMAXPROCS(0)
	parts := make([]testutil.ULPStats, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s := &parts[w]
			for i := w; i < len(in); i += workers {
				if bits == 32 {
					s.Add32(m, in[i][0], in[i][1], math.Float32frombits(uint32(got[i])))
				} else {
					s.Add64(m, in[i][0], in[i][1], math.Float64frombits(got[i]))
				}
			}
		}()
	}
	wg.Wait()
	total := &testutil.ULPStats{Name: fmt.Sprintf("%s_f%d", m.Name, bits)}
	for i := range parts {
		total.Merge(&parts[i])
	}
	return total
}

// mlCheckStats asserts CUDA's bound and exact special values.
func mlCheckStats(t *testing.T, m testutil.MathFunc, bits int, s *testutil.ULPStats, where string) {
	t.Helper()
	bound := m.Bound64
	if bits == 32 {
		bound = m.Bound32
	}
	t.Logf("%s on %s: %d inputs, max error %.3f ulp (%s), max %d steps from the correctly rounded result (bound %g) (%s)",
		s.Name, where, s.N, s.MaxErr, s.ErrAt, s.MaxSteps, bound, s.StepsAt)
	assert.LessOrEqual(t, float64(s.MaxSteps), bound, "%s: %s", s.Name, s.StepsAt)
	assert.Zero(t, s.SpecialMismatch, "%s: special values differ, first %s", s.Name, s.FirstSpecial)
}

func TestMathlibSimAccuracy(t *testing.T) {
	n := 20000
	if testing.Short() {
		n = 2000
	}
	for _, m := range testutil.MathFuncs {
		for _, bits := range []int{32, 64} {
			fn := fmt.Sprintf("%s_f%d", m.Name, bits)
			if _, ok := mathSigs[fn]; !ok {
				continue
			}
			t.Run(fn, func(t *testing.T) {
				in := m.Inputs(rand.New(rand.NewPCG(uint64(len(fn)), uint64(bits))), n, bits)
				got := mlEvalSim(t, fn, in)
				mlCheckStats(t, m, bits, mlStats(m, bits, in, got), "the interpreter")
			})
		}
	}
}

// TestMathlibDeviceAccuracy runs every function of testutil.MathFuncs on
// the default device over its inputs (on a GPU at least 10^6 per function
// and type: testutil.MathFunc.Inputs with n = 500,000), checks CUDA's
// bound and the special values against the exact references, and on a
// sample that the device computes the interpreter's bits. It logs one
// table row per function (the accuracy table of the library's doc comes
// from a GPU run of this test).
func TestMathlibDeviceAccuracy(t *testing.T) {
	dev, gpu := mlDevice(t)
	n := 1000
	if gpu {
		n = 500000
	}
	var rows []string
	for _, m := range testutil.MathFuncs {
		for _, bits := range []int{32, 64} {
			fn := fmt.Sprintf("%s_f%d", m.Name, bits)
			sig, ok := mathSigs[fn]
			if !ok {
				continue
			}
			t.Run(fn, func(t *testing.T) {
				in := m.Inputs(rand.New(rand.NewPCG(uint64(len(fn))+100, uint64(bits))), n, bits)
				cols := make([][]uint64, len(sig.args))
				for k := range cols {
					cols[k] = make([]uint64, len(in))
					for i, v := range in {
						if bits == 32 {
							cols[k][i] = uint64(math.Float32bits(float32(v[k])))
						} else {
							cols[k][i] = math.Float64bits(v[k])
						}
					}
				}
				got := mlEval(t, dev, fn, cols...)
				// The device's bits against the interpreter's, on a sample.
				step := max(1, len(in)/20000)
				var sample [][]uint64
				var sgot []uint64
				for k := range cols {
					sample = append(sample, nil)
					for i := 0; i < len(in); i += step {
						sample[k] = append(sample[k], cols[k][i])
					}
				}
				for i := 0; i < len(in); i += step {
					sgot = append(sgot, got[i])
				}
				mlSameBits(t, fn, sample, sgot)
				s := mlStats(m, bits, in, got)
				mlCheckStats(t, m, bits, s, dev.String())
				bound := m.Bound64
				if bits == 32 {
					bound = m.Bound32
				}
				rows = append(rows, fmt.Sprintf("| %s | %d | %.3f | %d | %g |", fn, s.N, s.MaxErr, s.MaxSteps, bound))
			})
		}
	}
	t.Logf("accuracy on %s (max error in ulps of the exact result; max distance in steps from the correctly rounded one; CUDA's bound):\n"+
		"| function | inputs | max ulp | max steps | CUDA bound |\n|---|---|---|---|---|\n%s", dev, strings.Join(rows, "\n"))
}

// TestMathlibDivmodNumPy: the float floor division and remainders
// (NumPy's //, % and fmod: floordiv_, mod_ and fmod_) against NumPy's own
// results, bit for bit (the sign of a zero included), on the interpreter
// and on the device.
func TestMathlibDivmodNumPy(t *testing.T) {
	dev, _ := mlDevice(t)
	lib := map[string]string{"floordiv": "floordiv", "mod": "mod", "rem": "fmod"} // golden op → function
	for _, g := range testutil.NumPyFuncGoldens() {
		if lib[g.Op] == "" || !g.Type().IsFloat() {
			continue
		}
		fn := fmt.Sprintf("%s_f%d", lib[g.Op], g.Type().Size()*8)
		t.Run(fn, func(t *testing.T) {
			in := make([][2]float64, len(g.A))
			for i := range g.A {
				if g.Type().Size() == 4 {
					in[i] = [2]float64{float64(math.Float32frombits(uint32(g.A[i]))), float64(math.Float32frombits(uint32(g.B[i])))}
				} else {
					in[i] = [2]float64{math.Float64frombits(g.A[i]), math.Float64frombits(g.B[i])}
				}
			}
			for _, where := range []string{"interpreter", "device"} {
				var got []uint64
				if where == "device" {
					got = mlEval(t, dev, fn, g.A, g.B)
				} else {
					got = mlEvalSim(t, fn, in)
				}
				bad := 0
				for i := range got {
					if !testutil.SameBits(g.Type(), got[i], g.Want[i], false) {
						if bad < 5 {
							t.Errorf("%s on the %s: %s(%v, %v) = %#x, NumPy %#x", g.DType, where, g.Op, in[i][0], in[i][1], got[i], g.Want[i])
						}
						bad++
					}
				}
				assert.Zero(t, bad, "%s %s on the %s: results unlike NumPy's, of %d", g.Op, g.DType, where, len(got))
			}
		})
	}
}

// TestMathlibMatchesHost: the float64 functions that the host evaluator
// carries over from this library (internal/fusion/hosteval's
// mathfn64.go, operation for operation) give the same bits as the PTX on
// the interpreter: the back ends agree exactly there.
func TestMathlibMatchesHost(t *testing.T) {
	n := 20000
	if testing.Short() {
		n = 2000
	}
	for _, name := range []string{"sin", "cos", "tan", "asin", "acos", "sinh", "cosh", "log2", "log10", "atan2", "hypot", "pow"} {
		t.Run(name, func(t *testing.T) {
			m := testutil.MathFuncNamed(name)
			var op expr.Op
			for o := expr.Op(0); o.Info().Name != "op?"; o++ {
				if o.Info().Name == name {
					op = o
				}
			}
			un, bin := hosteval.MathF64(op)
			in := m.Inputs(rand.New(rand.NewPCG(5, uint64(len(name)))), n, 64)
			got := mlEvalSim(t, name+"_f64", in)
			bad := 0
			for i, v := range in {
				var want float64
				if un != nil {
					want = un(v[0])
				} else {
					want = bin(v[0], v[1])
				}
				if g := math.Float64frombits(got[i]); g != want && !(g != g && want != want) || math.Signbit(g) != math.Signbit(want) && g == g {
					if bad < 5 {
						t.Errorf("%s(%v, %v): PTX %v, host %v", name, v[0], v[1], g, want)
					}
					bad++
				}
			}
			assert.Zero(t, bad, "%s: PTX and host differ, of %d", name, len(in))
		})
	}
}

// TestMathlibDivmodNearIntegers: fmod, mod and floordiv of a = n·b nudged
// by up to two ulps (and of a = b·x, x of any fraction), n and x on both sides of fmod's short-path limit
// (|a/b| < 2^(p−1)) and b from subnormal to large: fmod exactly as
// math.Mod (it is exact), mod and floordiv bit for bit as NumPy's
// npy_divmod computes them in the argument's type, on the interpreter and
// on the device.
func TestMathlibDivmodNearIntegers(t *testing.T) {
	dev, _ := mlDevice(t)
	rng := rand.New(rand.NewPCG(29, 31))
	const count = 6000
	for _, bits := range []int{32, 64} {
		prec := 24
		if bits == 64 {
			prec = 53
		}
		in := make([][2]float64, count)
		for i := range in {
			b := (1 + rng.Float64()) * math.Ldexp(1, rng.IntN(80)-40)
			if i%10 == 0 { // subnormal divisors
				b = math.Ldexp(1+rng.Float64(), -135)
				if bits == 64 {
					b = math.Ldexp(1+rng.Float64(), -1060)
				}
			}
			n := math.Floor(rng.Float64() * math.Ldexp(1, rng.IntN(prec+2)))
			if rng.IntN(2) == 0 {
				b = -b
			}
			if rng.IntN(2) == 0 {
				n = -n
			}
			a := n * b
			if i%2 == 1 { // a quotient of any fraction, up to 2^(p+2)
				a = b * math.Ldexp(1+rng.Float64(), rng.IntN(prec+2))
			}
			step := rng.IntN(5) - 2
			if bits == 32 {
				a32 := float32(a)
				for range max(step, -step) {
					a32 = math.Nextafter32(a32, float32(math.Copysign(math.Inf(1), float64(step))))
				}
				in[i] = [2]float64{float64(a32), float64(float32(b))}
			} else {
				for range max(step, -step) {
					a = math.Nextafter(a, math.Copysign(math.Inf(1), float64(step)))
				}
				in[i] = [2]float64{a, b}
			}
		}
		want := map[string]func(a, b float64) float64{
			"fmod":     math.Mod,
			"mod":      func(a, b float64) float64 { _, m := npDivmod(a, b, bits); return m },
			"floordiv": func(a, b float64) float64 { q, _ := npDivmod(a, b, bits); return q },
		}
		for name, f := range want {
			fn := fmt.Sprintf("%s_f%d", name, bits)
			t.Run(fn, func(t *testing.T) {
				cols := [2][]uint64{make([]uint64, count), make([]uint64, count)}
				for i, v := range in {
					for k := range 2 {
						if bits == 32 {
							cols[k][i] = uint64(math.Float32bits(float32(v[k])))
						} else {
							cols[k][i] = math.Float64bits(v[k])
						}
					}
				}
				for _, where := range []string{"interpreter", "device"} {
					var got []uint64
					if where == "device" {
						got = mlEval(t, dev, fn, cols[0], cols[1])
					} else {
						got = mlEvalSim(t, fn, in)
					}
					bad := 0
					for i, v := range in {
						w := f(v[0], v[1])
						wb := math.Float64bits(w)
						if bits == 32 {
							wb = uint64(math.Float32bits(float32(w)))
						}
						if got[i] != wb {
							if bad < 5 {
								t.Errorf("%s on the %s: %s(%v, %v) = %#x, want %#x (%v)", fn, where, name, v[0], v[1], got[i], wb, w)
							}
							bad++
						}
					}
					assert.Zero(t, bad, "%s on the %s: wrong results, of %d", fn, where, count)
				}
			})
		}
	}
}

// npDivmod is NumPy's npy_divmod of a and b in float32 (bits 32) or
// float64, every operation rounded to that type.
func npDivmod(a, b float64, bits int) (floordiv, mod float64) {
	if bits == 32 {
		q, m := npDivmodT(float32(a), float32(b))
		return float64(q), float64(m)
	}
	return npDivmodT(a, b)
}

func npDivmodT[T float32 | float64](a, b T) (floordiv, mod T) {
	mod = T(math.Mod(float64(a), float64(b)))
	if b == 0 {
		return a / b, mod
	}
	div := (a - mod) / b
	if mod != 0 {
		if (b < 0) != (mod < 0) {
			mod += b
			div--
		}
	} else {
		mod = T(math.Copysign(0, float64(b)))
	}
	if div == 0 {
		return T(math.Copysign(0, float64(a/b))), mod
	}
	floordiv = T(math.Floor(float64(div)))
	if div-floordiv > 0.5 {
		floordiv++
	}
	return floordiv, mod
}
