package hosteval

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/gpuarr/gpuarr/internal/fusion/expr"
	"github.com/gpuarr/gpuarr/internal/testutil"
)

// opNamed is the op of the op table named name.
func opNamed(t *testing.T, name string) expr.Op {
	for op := expr.Op(0); op.Info().Name != "op?"; op++ {
		if op.Info().Name == name {
			return op
		}
	}
	t.Fatalf("no op %s", name)
	return 0
}

// TestHostMathAccuracy: every Math op's host implementation, float32
// (the float64 function of the widened arguments, rounded) and float64,
// over at least 10^6 inputs per function and type (testutil.MathFunc's:
// special values, edges, random over every exponent; 5*10^3 with -short,
// 2*10^4 under the race detector, whose references run many times slower;
// the suite's runs without -race take the full count), within CUDA's bound
// of the correctly rounded result and exact on the special values.
func TestHostMathAccuracy(t *testing.T) {
	n := 500000
	switch {
	case testing.Short():
		n = 2500
	case testutil.RaceEnabled:
		n = 10000
	}
	for _, m := range testutil.MathFuncs {
		un, bin := MathF64(opNamed(t, m.Name))
		f := func(x, y float64) float64 {
			if un != nil {
				return un(x)
			}
			return bin(x, y)
		}
		for _, bits := range []int{32, 64} {
			t.Run(fmt.Sprintf("%s_f%d", m.Name, bits), func(t *testing.T) {
				in := m.Inputs(rand.New(rand.NewPCG(uint64(len(m.Name)), uint64(bits))), n, bits)
				workers := runtime.GOMAXPROCS(0)
				parts := make([]testutil.ULPStats, workers)
				var wg sync.WaitGroup
				for w := range workers {
					wg.Add(1)
					go func() {
						defer wg.Done()
						for i := w; i < len(in); i += workers {
							x, y := in[i][0], in[i][1]
							if bits == 32 {
								parts[w].Add32(m, x, y, float32(f(x, y)))
							} else {
								parts[w].Add64(m, x, y, f(x, y))
							}
						}
					}()
				}
				wg.Wait()
				s := &testutil.ULPStats{Name: t.Name()}
				for i := range parts {
					s.Merge(&parts[i])
				}
				bound := m.Bound64
				if bits == 32 {
					bound = m.Bound32
				}
				t.Logf("%s: %d inputs, max error %.3f ulp (%s), max %d steps (bound %g) (%s)", s.Name, s.N, s.MaxErr, s.ErrAt, s.MaxSteps, bound, s.StepsAt)
				assert.LessOrEqual(t, float64(s.MaxSteps), bound, "%s", s.StepsAt)
				assert.Zero(t, s.SpecialMismatch, "special values differ, first %s", s.FirstSpecial)
				assert.GreaterOrEqual(t, s.N, 2*n)
			})
		}
	}
	_ = math.Pi
}
