package testutil

import (
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"slices"
)

// MathFunc describes one elementwise math function for the accuracy tests
// of every back end: its references, the inputs worth trying and the
// bounds CUDA's math library documents for it (CUDA C++ Programming
// Guide, "Mathematical Functions": the maximum difference, in ulps, from
// the correctly rounded result).
type MathFunc struct {
	Name  string
	Arity int
	// Bound32 and Bound64 are CUDA's bounds for float32 and float64.
	Bound32, Bound64 float64
	// Ref is the function in float64, accurate to a few float64 ulps: the
	// reference for float32 arguments (widened exactly), whose ulps are
	// 2^29 times larger.
	Ref func(x, y float64) float64
	// Big is the exact value (RefPrec bits) for finite arguments where
	// the function is finite; Special gives the others.
	Big func(x, y float64) *big.Float
	// Special is the exact result where one is prescribed (an argument
	// NaN or infinite, a pole, outside the domain: C99 Annex F's special
	// cases), and ok false elsewhere.
	Special func(x, y float64) (r float64, ok bool)
	// Range is where uniform random arguments are drawn from (besides
	// values spread over every exponent); Edges are arguments worth
	// trying with their float neighbours.
	Range [2]float64
	Edges []float64
	// Hard, if set, adds n arguments where the function is hard to get
	// right (for sin, cos and tan: the floats nearest multiples of π/2).
	Hard func(rng *rand.Rand, n, bits int) []float64
}

func un(f func(float64) float64) func(x, _ float64) float64 {
	return func(x, _ float64) float64 { return f(x) }
}
func unBig(f func(float64) *big.Float) func(x, _ float64) *big.Float {
	return func(x, _ float64) *big.Float { return f(x) }
}

// nan is NaN in, NaN out; for the other specials the functions' tables.
func specialUnary(f func(x float64) (float64, bool)) func(x, _ float64) (float64, bool) {
	return func(x, _ float64) (float64, bool) {
		if x != x {
			return x, true
		}
		return f(x)
	}
}

var nan = math.NaN()

func inf(s int) float64 { return math.Inf(s) }

// asin and acos in float64 without Go's cancellation near ±1 (math.Asin
// divides by √(1−x²)).
func refAsin(x float64) float64 { return math.Atan2(x, math.Sqrt((1-x)*(1+x))) }
func refAcos(x float64) float64 { return math.Atan2(math.Sqrt((1-x)*(1+x)), x) }

// MathFuncs are the elementwise math functions that have no
// exact result (the rest are checked bit for bit by their own tests).
var MathFuncs = []MathFunc{
	{Name: "sin", Arity: 1, Hard: nearPio2, Bound32: 2, Bound64: 2, Ref: un(math.Sin), Big: unBig(BigSin),
		Special: specialUnary(func(x float64) (float64, bool) {
			if math.IsInf(x, 0) {
				return nan, true
			}
			return 0, false
		}), Range: [2]float64{-10, 10},
		Edges: []float64{math.Pi / 4, math.Pi / 2, math.Pi, 105615, 102940.0, 1647099, 0x1p20 * math.Pi / 2, 3.0 * 0x1p19, 1e22, 0x1p24, 0x1p128}},
	{Name: "cos", Arity: 1, Hard: nearPio2, Bound32: 2, Bound64: 2, Ref: un(math.Cos), Big: unBig(BigCos),
		Special: specialUnary(func(x float64) (float64, bool) {
			if math.IsInf(x, 0) {
				return nan, true
			}
			return 0, false
		}), Range: [2]float64{-10, 10},
		Edges: []float64{math.Pi / 4, math.Pi / 2, math.Pi, 105615, 1647099, 0x1p20 * math.Pi / 2, 1e22, 0x1p24}},
	{Name: "tan", Arity: 1, Hard: nearPio2, Bound32: 4, Bound64: 2, Ref: un(math.Tan), Big: unBig(BigTan),
		Special: specialUnary(func(x float64) (float64, bool) {
			if math.IsInf(x, 0) {
				return nan, true
			}
			return 0, false
		}), Range: [2]float64{-10, 10},
		Edges: []float64{math.Pi / 4, math.Pi / 2, math.Pi, 105615, 1647099, 1e22}},
	{Name: "asin", Arity: 1, Bound32: 2, Bound64: 2, Ref: un(refAsin), Big: unBig(BigAsin),
		Special: specialUnary(func(x float64) (float64, bool) {
			if math.Abs(x) > 1 {
				return nan, true
			}
			return 0, false
		}), Range: [2]float64{-1, 1}, Edges: []float64{0.5, 1, 0.975, 0.9999}},
	{Name: "acos", Arity: 1, Bound32: 2, Bound64: 2, Ref: un(refAcos), Big: unBig(BigAcos),
		Special: specialUnary(func(x float64) (float64, bool) {
			if math.Abs(x) > 1 {
				return nan, true
			}
			if x == 1 {
				return 0, true
			}
			return 0, false
		}), Range: [2]float64{-1, 1}, Edges: []float64{0.5, 1, 0.975, 0.9999}},
	{Name: "atan", Arity: 1, Bound32: 2, Bound64: 2, Ref: un(math.Atan), Big: unBig(BigAtan),
		Special: specialUnary(func(x float64) (float64, bool) {
			if math.IsInf(x, 0) {
				return math.Copysign(math.Pi/2, x), false // not exact: compare with Big
			}
			return 0, false
		}), Range: [2]float64{-4, 4}, Edges: []float64{0.4142135623730950, 2.414213562373095, 1, 0x1p27, 0x1p-27}},
	{Name: "sinh", Arity: 1, Bound32: 3, Bound64: 2, Ref: un(math.Sinh), Big: unBig(BigSinh),
		Special: specialUnary(func(x float64) (float64, bool) {
			if math.IsInf(x, 0) || math.Abs(x) > 711 {
				return math.Copysign(inf(1), x), true
			}
			return 0, false
		}), Range: [2]float64{-12, 12}, Edges: []float64{1, 88.7, 89.41, 89.42, 709.78, 710.47, 710.48}},
	{Name: "cosh", Arity: 1, Bound32: 2, Bound64: 1, Ref: un(math.Cosh), Big: unBig(BigCosh),
		Special: specialUnary(func(x float64) (float64, bool) {
			if math.IsInf(x, 0) || math.Abs(x) > 711 {
				return inf(1), true
			}
			return 0, false
		}), Range: [2]float64{-12, 12}, Edges: []float64{1, 88.7, 89.41, 89.42, 709.78, 710.47, 710.48}},
	{Name: "tanh", Arity: 1, Bound32: 2, Bound64: 1, Ref: un(math.Tanh), Big: unBig(BigTanh),
		Special: specialUnary(func(x float64) (float64, bool) {
			if math.IsInf(x, 0) {
				return math.Copysign(1, x), true
			}
			return 0, false
		}), Range: [2]float64{-6, 6}, Edges: []float64{0.55, 1, 9, 10, 19, 22}},
	{Name: "asinh", Arity: 1, Bound32: 3, Bound64: 3, Ref: un(math.Asinh), Big: unBig(BigAsinh),
		Special: specialUnary(func(x float64) (float64, bool) {
			if math.IsInf(x, 0) {
				return x, true
			}
			return 0, false
		}), Range: [2]float64{-5, 5}, Edges: []float64{1, 0x1p28, 0x1p12, 0x1p-12, 0x1p1000}},
	{Name: "acosh", Arity: 1, Bound32: 4, Bound64: 3, Ref: un(math.Acosh), Big: unBig(BigAcosh),
		Special: specialUnary(func(x float64) (float64, bool) {
			switch {
			case x < 1:
				return nan, true
			case x == 1:
				return 0, true
			case math.IsInf(x, 1):
				return x, true
			}
			return 0, false
		}), Range: [2]float64{1, 6}, Edges: []float64{1, 2, 0x1p28, 0x1p12, 0x1p1000}},
	{Name: "atanh", Arity: 1, Bound32: 3, Bound64: 2, Ref: un(math.Atanh), Big: unBig(BigAtanh),
		Special: specialUnary(func(x float64) (float64, bool) {
			switch {
			case math.Abs(x) > 1:
				return nan, true
			case math.Abs(x) == 1:
				return math.Copysign(inf(1), x), true
			}
			return 0, false
		}), Range: [2]float64{-1, 1}, Edges: []float64{0.5, 1, 0.999}},
	{Name: "exp", Arity: 1, Bound32: 2, Bound64: 1, Ref: un(math.Exp), Big: unBig(func(x float64) *big.Float { return BigExpOf(fp(x)) }),
		Special: specialUnary(expSpecial(709.8, -745.2)), Range: [2]float64{-20, 20},
		Edges: []float64{88.72, -87.34, -103.28, -103.97, 709.78, -708.4, -745.13}},
	{Name: "exp2", Arity: 1, Bound32: 2, Bound64: 1, Ref: un(math.Exp2), Big: unBig(BigExp2),
		Special: specialUnary(expSpecial(1024, -1075)), Range: [2]float64{-20, 20},
		Edges: []float64{128, -126, -149, -150, 1024, -1022, -1074, -1075, 0.5}},
	{Name: "expm1", Arity: 1, Bound32: 1, Bound64: 1, Ref: un(math.Expm1), Big: unBig(BigExpm1),
		Special: specialUnary(func(x float64) (float64, bool) {
			switch {
			case math.IsInf(x, 1) || x > 710:
				return inf(1), true
			case math.IsInf(x, -1):
				return -1, true
			}
			return 0, false
		}), Range: [2]float64{-2, 2}, Edges: []float64{0.3465, 88.72, -17, -40, 709.78, 0x1p-30}},
	{Name: "log", Arity: 1, Bound32: 1, Bound64: 1, Ref: un(math.Log), Big: unBig(BigLn),
		Special: specialUnary(logSpecial), Range: [2]float64{0, 10}, Edges: []float64{1, 0.75, 1.5, math.Sqrt2}},
	{Name: "log2", Arity: 1, Bound32: 1, Bound64: 1, Ref: un(math.Log2), Big: unBig(BigLog2),
		Special: specialUnary(logSpecial), Range: [2]float64{0, 10}, Edges: []float64{1, 0.75, 1.5, math.Sqrt2}},
	{Name: "log10", Arity: 1, Bound32: 2, Bound64: 1, Ref: un(math.Log10), Big: unBig(BigLog10),
		Special: specialUnary(logSpecial), Range: [2]float64{0, 10}, Edges: []float64{1, 10, 100, 0.75, 1.5}},
	{Name: "log1p", Arity: 1, Bound32: 1, Bound64: 1, Ref: un(math.Log1p), Big: unBig(BigLog1p),
		Special: specialUnary(func(x float64) (float64, bool) {
			switch {
			case x < -1:
				return nan, true
			case x == -1:
				return inf(-1), true
			case math.IsInf(x, 1):
				return x, true
			}
			return 0, false
		}), Range: [2]float64{-1, 3}, Edges: []float64{-0.5, -0.2929, 0.4142, -1 / 3.0, 1 / 3.0, 0x1p-30}},
	{Name: "cbrt", Arity: 1, Bound32: 1, Bound64: 1, Ref: un(math.Cbrt), Big: unBig(BigCbrt),
		Special: specialUnary(func(x float64) (float64, bool) {
			if math.IsInf(x, 0) || x == 0 {
				return x, true
			}
			return 0, false
		}), Range: [2]float64{-10, 10}, Edges: []float64{1, 8, 27, 2, 4}},
	{Name: "erf", Arity: 1, Bound32: 2, Bound64: 2, Ref: un(math.Erf), Big: unBig(BigErf),
		Special: specialUnary(func(x float64) (float64, bool) {
			if math.IsInf(x, 0) {
				return math.Copysign(1, x), true
			}
			return 0, false
		}), Range: [2]float64{-4, 4}, Edges: []float64{0.5, 0.875, 1, 3.92, 5.93}},
	{Name: "erfc", Arity: 1, Bound32: 4, Bound64: 5, Ref: un(math.Erfc), Big: unBig(BigErfc),
		Special: specialUnary(func(x float64) (float64, bool) {
			switch {
			case math.IsInf(x, 1):
				return 0, true
			case math.IsInf(x, -1):
				return 2, true
			case x > 28:
				return 0, true
			}
			return 0, false
		}), Range: [2]float64{-3, 12}, Edges: []float64{0.5, 0.875, 10.05, 26.5, 27.2}},
	{Name: "atan2", Arity: 2, Bound32: 3, Bound64: 2, Ref: math.Atan2, Big: BigAtan2,
		Special: atan2Special, Range: [2]float64{-5, 5}},
	{Name: "hypot", Arity: 2, Bound32: 3, Bound64: 2, Ref: math.Hypot, Big: BigHypot,
		Special: func(x, y float64) (float64, bool) {
			switch {
			case math.IsInf(x, 0) || math.IsInf(y, 0):
				return inf(1), true
			case x != x || y != y:
				return nan, true
			}
			return 0, false
		}, Range: [2]float64{-5, 5}},
	{Name: "pow", Arity: 2, Bound32: 4, Bound64: 2, Ref: math.Pow, Big: BigPowOf,
		Special: powSpecial, Range: [2]float64{0, 4},
		Edges: []float64{-1e300, -3, -1.5, 1.5, 3, 1e300, 0x1p53, -0x1p53, 0x1p53 + 2, -(0x1p53 + 1) * 2,
			1e-300, -1e-300, 1 + 0x1p-52, 1 - 0x1p-53, -1 - 0x1p-52, 7, -7, 0.25, 1024, -1075, 1e20, 0.999, 1.001}},
}

// MathFuncNamed is the entry of MathFuncs named name.
func MathFuncNamed(name string) MathFunc {
	for _, f := range MathFuncs {
		if f.Name == name {
			return f
		}
	}
	panic("testutil: no math function " + name)
}

func expSpecial(over, under float64) func(x float64) (float64, bool) {
	return func(x float64) (float64, bool) {
		switch {
		case x > over:
			return inf(1), true
		case x < under:
			return 0, true
		}
		return 0, false
	}
}

func logSpecial(x float64) (float64, bool) {
	switch {
	case x < 0:
		return nan, true
	case x == 0:
		return inf(-1), true
	case math.IsInf(x, 1):
		return x, true
	case x == 1:
		return 0, true
	}
	return 0, false
}

// atan2Special: C99's table (Go's math.Atan2 follows it exactly for these).
func atan2Special(y, x float64) (float64, bool) {
	if x != x || y != y || math.IsInf(x, 0) || math.IsInf(y, 0) || x == 0 || y == 0 {
		return math.Atan2(y, x), true
	}
	return 0, false
}

// powSpecial: Go's math.Pow's special cases (C99's), and negative bases
// with non-integer exponents.
func powSpecial(x, y float64) (float64, bool) {
	switch {
	case x != x || y != y || math.IsInf(x, 0) || math.IsInf(y, 0) || x == 0 || y == 0 || x == 1 || y == 1:
		return math.Pow(x, y), true
	case x < 0 && y != math.Trunc(y):
		return nan, true
	}
	return 0, false
}

// Expected is what a function should return at (x, y) as a float64 (bits
// of a float32 result rounded from it by the caller): the special value,
// or the correctly rounded reference. For float32 arguments (f32) the
// reference is Ref's; otherwise Big's. exact is the unrounded reference
// (nil for a special value).
func (m MathFunc) Expected(x, y float64, f32 bool) (want float64, exact *big.Float) {
	if s, ok := m.Special(x, y); ok {
		return s, nil
	}
	// A function that is 0 at 0 keeps the sign of a zero argument (C99
	// Annex F: sin, asinh, expm1, log1p, … of ±0 are ±0): checked exactly,
	// since steps from the correctly rounded result do not see the sign.
	if m.Arity == 1 && x == 0 && m.Ref(0, 0) == 0 {
		return x, nil
	}
	if f32 {
		r := m.Ref(x, y)
		return r, new(big.Float).SetFloat64(r)
	}
	e := m.Big(x, y)
	v, _ := e.Float64()
	return v, e
}

// Inputs returns the arguments to try for a float32 (bits 32) or float64
// function: special values, the edges and their neighbours, n uniform in
// Range and n spread over all exponents and both signs, and for binary
// functions every pair of the special values too. For float32 they are
// float32 values.
func (m MathFunc) Inputs(rng *rand.Rand, n int, bits int) [][2]float64 {
	round := func(v float64) float64 {
		if bits == 32 {
			return float64(float32(v))
		}
		return v
	}
	maxF, minSub := math.MaxFloat64, 0x1p-1074
	if bits == 32 {
		maxF, minSub = math.MaxFloat32, 0x1p-149
	}
	specials := []float64{0, math.Copysign(0, -1), inf(1), inf(-1), nan, 1, -1, 0.5, -0.5, 2, -2,
		minSub, -minSub, maxF, -maxF, 1e-30, -1e-30}
	if bits == 64 {
		specials = append(specials, 0x1p-1022, -0x1p-1022, 1e-300, 1e300, -1e300)
	} else {
		specials = append(specials, 0x1p-126, -0x1p-126)
	}
	var one []float64
	one = append(one, specials...)
	for _, e := range m.Edges {
		for _, v := range []float64{e, -e} {
			v = round(v)
			if math.IsInf(v, 0) {
				continue
			}
			one = append(one, v, neighbour(v, bits, 1), neighbour(v, bits, -1))
		}
	}
	var out [][2]float64
	if m.Arity == 1 {
		for _, v := range one {
			out = append(out, [2]float64{v, 0})
		}
	} else {
		pairs := specials
		for _, e := range m.Edges {
			pairs = append(pairs, round(e))
		}
		for _, a := range pairs {
			for _, b := range pairs {
				out = append(out, [2]float64{a, b})
			}
		}
	}
	draw := func(uniform bool) float64 {
		if uniform {
			return round(m.Range[0] + (m.Range[1]-m.Range[0])*rng.Float64())
		}
		// ±2^e·(1+f) over every exponent, subnormals included.
		var v float64
		if bits == 32 {
			v = float64(math.Float32frombits(rng.Uint32()&^(0xFF<<23) | uint32(rng.IntN(255))<<23))
		} else {
			v = math.Float64frombits(rng.Uint64()&^(0x7FF<<52) | uint64(rng.IntN(2047))<<52)
		}
		return v
	}
	if m.Hard != nil {
		for _, v := range m.Hard(rng, n, bits) {
			out = append(out, [2]float64{v, 0})
		}
	}
	for i := range 2 * n {
		u := i < n
		var a, b float64
		a = draw(u)
		if m.Arity == 2 {
			b = draw(u)
			if m.Name == "pow" && i%4 == 1 {
				b = math.Round(b * 8) // integer exponents, negative bases
				a = -math.Abs(a)
			}
		}
		out = append(out, [2]float64{a, b})
	}
	return out
}

func neighbour(v float64, bits int, dir float64) float64 {
	if bits == 32 {
		return float64(math.Nextafter32(float32(v), float32(math.Copysign(math.Inf(1), dir))))
	}
	return math.Nextafter(v, math.Copysign(math.Inf(1), dir))
}

// ULPStats accumulates the errors of one function's results: the largest
// error in ulps of the exact value (MaxErr) and the largest distance in
// representable steps from the correctly rounded value (MaxSteps, CUDA's
// measure), and where each occurred.
type ULPStats struct {
	Name            string
	N               int
	MaxErr          float64
	MaxSteps        int64
	ErrAt, StepsAt  string
	SpecialMismatch int
	FirstSpecial    string
}

// ord maps float bits to integers in the order of the values (−0 and +0
// adjacent).
func ord64(v float64) int64 {
	b := int64(math.Float64bits(v))
	if b < 0 {
		return math.MinInt64 - b
	}
	return b
}

func ord32(v float32) int64 {
	b := int64(int32(math.Float32bits(v)))
	if b < 0 {
		return math.MinInt32 - b
	}
	return b
}

// Add32 records a float32 result got at (x, y).
func (s *ULPStats) Add32(m MathFunc, x, y float64, got float32) {
	s.N++
	want, exact := m.Expected(x, y, true)
	at := func() string {
		return fmt.Sprintf("%s(%v, %v) = %v, want %v", m.Name, float32(x), float32(y), got, float32(want))
	}
	if exact == nil {
		w := float32(want)
		if !(got == w && math.Signbit(float64(got)) == math.Signbit(float64(w))) && !(got != got && w != w) {
			s.SpecialMismatch++
			if s.FirstSpecial == "" {
				s.FirstSpecial = at()
			}
		}
		return
	}
	w := float32(want)
	if got != got || w != w {
		if !(got != got && w != w) {
			s.SpecialMismatch++
			if s.FirstSpecial == "" {
				s.FirstSpecial = at()
			}
		}
		return
	}
	steps := ord32(got) - ord32(w)
	if steps < 0 {
		steps = -steps
	}
	if steps > s.MaxSteps {
		s.MaxSteps, s.StepsAt = steps, at()
	}
	// The error in ulps of the exact value (a float32 ulp at its binade,
	// 2^-149 at the bottom).
	if math.IsInf(float64(got), 0) || math.IsInf(float64(w), 0) {
		return
	}
	_, e := math.Frexp(want)
	ulp := math.Ldexp(1, max(e-1, -126)-23)
	if err := math.Abs(float64(got)-want) / ulp; err > s.MaxErr {
		s.MaxErr, s.ErrAt = err, at()
	}
}

// Add64 records a float64 result got at (x, y).
func (s *ULPStats) Add64(m MathFunc, x, y, got float64) {
	s.N++
	want, exact := m.Expected(x, y, false)
	at := func() string { return fmt.Sprintf("%s(%v, %v) = %v, want %v", m.Name, x, y, got, want) }
	if exact == nil || got != got || want != want {
		if !(got == want && math.Signbit(got) == math.Signbit(want)) && !(got != got && want != want) {
			s.SpecialMismatch++
			if s.FirstSpecial == "" {
				s.FirstSpecial = at()
			}
		}
		return
	}
	steps := ord64(got) - ord64(want)
	if steps < 0 {
		steps = -steps
	}
	if steps > s.MaxSteps {
		s.MaxSteps, s.StepsAt = steps, at()
	}
	if math.IsInf(got, 0) || math.IsInf(want, 0) {
		return
	}
	d := new(big.Float).SetPrec(RefPrec).SetFloat64(got)
	d.Sub(d, exact)
	_, e := math.Frexp(want)
	if want == 0 {
		e = exact.MantExp(nil)
	}
	ulp := math.Ldexp(1, max(e-1, -1022)-52)
	df, _ := d.Float64()
	if err := math.Abs(df) / ulp; err > s.MaxErr {
		s.MaxErr, s.ErrAt = err, at()
	}
}

// Merge adds o's counts into s.
func (s *ULPStats) Merge(o *ULPStats) {
	s.N += o.N
	if o.MaxErr > s.MaxErr {
		s.MaxErr, s.ErrAt = o.MaxErr, o.ErrAt
	}
	if o.MaxSteps > s.MaxSteps {
		s.MaxSteps, s.StepsAt = o.MaxSteps, o.StepsAt
	}
	s.SpecialMismatch += o.SpecialMismatch
	if s.FirstSpecial == "" {
		s.FirstSpecial = o.FirstSpecial
	}
}

// MathFuncNames lists MathFuncs' names, sorted.
func MathFuncNames() []string {
	var names []string
	for _, f := range MathFuncs {
		names = append(names, f.Name)
	}
	slices.Sort(names)
	return names
}

// nearPio2 returns floats nearest to k·π/2 (and their neighbours): for
// half of them k below the fast reductions' thresholds (2^17 for float32,
// 10^6 for float64), for the rest k = 2^j·u spread over every exponent.
func nearPio2(rng *rand.Rand, n, bits int) []float64 {
	pio2 := new(big.Float).SetPrec(refConstPrec).SetMantExp(consts().pi, -1)
	kmax, emax := 1e6, 1020
	if bits == 32 {
		kmax, emax = 83000, 126
	}
	var out []float64
	for i := 0; len(out) < n; i++ {
		var k float64
		if i%2 == 0 {
			k = math.Floor(1 + rng.Float64()*kmax)
		} else {
			k = math.Ldexp(1+rng.Float64(), rng.IntN(emax))
		}
		v := new(big.Float).SetPrec(refConstPrec).Mul(new(big.Float).SetPrec(refConstPrec).SetFloat64(k), pio2)
		var x float64
		if bits == 32 {
			f, _ := v.Float32()
			x = float64(f)
		} else {
			x, _ = v.Float64()
		}
		if math.IsInf(x, 0) {
			continue
		}
		out = append(out, x, neighbour(x, bits, 1), neighbour(x, bits, -1))
	}
	return out
}
