package testutil

import (
	"math"
	"math/rand/v2"
	"testing"
)

func TestGoMathScratch(t *testing.T) {
	fns := map[string]func(x, y float64) float64{
		"sin": un(math.Sin), "cos": un(math.Cos), "tan": un(math.Tan), "asin": un(math.Asin), "acos": un(math.Acos),
		"atan": un(math.Atan), "sinh": un(math.Sinh), "cosh": un(math.Cosh), "tanh": un(math.Tanh), "asinh": un(math.Asinh),
		"acosh": un(math.Acosh), "atanh": un(math.Atanh), "exp": un(math.Exp), "exp2": un(math.Exp2), "expm1": un(math.Expm1),
		"log": un(math.Log), "log2": un(math.Log2), "log10": un(math.Log10), "log1p": un(math.Log1p), "cbrt": un(math.Cbrt),
		"erf": un(math.Erf), "erfc": un(math.Erfc), "atan2": math.Atan2, "hypot": math.Hypot, "pow": math.Pow,
	}
	for _, m := range MathFuncs {
		f := fns[m.Name]
		in := m.Inputs(rand.New(rand.NewPCG(1, 2)), 20000, 64)
		var s ULPStats
		for _, v := range in {
			s.Add64(m, v[0], v[1], f(v[0], v[1]))
		}
		t.Logf("%-6s maxerr %8.3f steps %d (bound %g) specials %d %s | %s", m.Name, s.MaxErr, s.MaxSteps, m.Bound64, s.SpecialMismatch, s.ErrAt, s.FirstSpecial)
	}
}
