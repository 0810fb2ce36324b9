package gpuarr_test

import (
	"fmt"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/gpuarr/gpuarr/gpuarr"
)

// mathArgs are the inputs of the math function tests in T: special values
// (NaN, ±Inf, ±0, the least subnormal of T), halves for the rounding
// functions, the edges of the inverse functions' domains, and values
// small, moderate and large.
func mathArgs[T gpuarr.Float]() []T {
	tiny := math.SmallestNonzeroFloat64
	if _, ok := any(T(0)).(float32); ok {
		tiny = math.SmallestNonzeroFloat32
	}
	vs := []float64{
		math.NaN(), math.Inf(1), math.Inf(-1), 0, math.Copysign(0, -1), tiny, -tiny,
		1, -1, 0.5, -0.5, 1.5, -1.5, 2.5, -2.5, 3.5, 0.49999997, -7.25, 2, 3, 10,
		0.999, -0.999, 1.001, 1e-7, -1e-7, 1e-30, 0.1, 3.14159265, -1.5707963, 6.5,
		20, -20, 30, 88, -88, 100, -100, 700, 1e5, -1e5, 1e10, -1e10, 1e30, 8388608.5,
	}
	out := make([]T, len(vs))
	for i, v := range vs {
		out[i] = T(v)
	}
	return out
}

// ulpsOff is how many units in the last place of T got is from the exact
// value ref (NaN and infinities must match; a zero result must have ref's
// sign unless anySign).
func ulpsOff[T gpuarr.Float](got T, ref float64) float64 {
	g := float64(got)
	switch {
	case math.IsNaN(ref) || math.IsNaN(g):
		if math.IsNaN(ref) && math.IsNaN(g) {
			return 0
		}
		return math.Inf(1)
	case math.IsInf(ref, 0) || math.IsInf(g, 0):
		// A finite reference just past T's largest value rounds to Inf.
		if T(ref) == got {
			return 0
		}
		return math.Inf(1)
	case ref == 0 && g == 0:
		if math.Signbit(ref) != math.Signbit(g) {
			return math.Inf(1)
		}
		return 0
	}
	mant, minExp := 53, -1022
	if _, ok := any(got).(float32); ok {
		mant, minExp = 24, -126
	}
	_, e := math.Frexp(ref)
	ulp := math.Ldexp(1, max(e-1, minExp)-(mant-1))
	return math.Abs(g-ref) / ulp
}

type mathCase[T gpuarr.Float] struct {
	name  string
	f     func(gpuarr.Operand[T]) gpuarr.Expr[T]
	ref   func(float64) float64
	exact bool
}

func mathCases[T gpuarr.Float]() []mathCase[T] {
	rsqrt := func(x float64) float64 {
		// Two correct roundings in T, as the function documents.
		return float64(T(1) / T(math.Sqrt(float64(T(x)))))
	}
	return []mathCase[T]{
		{"Sin", gpuarr.Sin[T], math.Sin, false},
		{"Cos", gpuarr.Cos[T], math.Cos, false},
		{"Tan", gpuarr.Tan[T], math.Tan, false},
		{"Asin", gpuarr.Asin[T], math.Asin, false},
		{"Acos", gpuarr.Acos[T], math.Acos, false},
		{"Atan", gpuarr.Atan[T], math.Atan, false},
		{"Sinh", gpuarr.Sinh[T], math.Sinh, false},
		{"Cosh", gpuarr.Cosh[T], math.Cosh, false},
		{"Asinh", gpuarr.Asinh[T], math.Asinh, false},
		{"Acosh", gpuarr.Acosh[T], math.Acosh, false},
		{"Atanh", gpuarr.Atanh[T], math.Atanh, false},
		{"Exp2", gpuarr.Exp2[T], math.Exp2, false},
		{"Expm1", gpuarr.Expm1[T], math.Expm1, false},
		{"Log2", gpuarr.Log2[T], math.Log2, false},
		{"Log10", gpuarr.Log10[T], math.Log10, false},
		{"Log1p", gpuarr.Log1p[T], math.Log1p, false},
		{"Cbrt", gpuarr.Cbrt[T], math.Cbrt, false},
		{"Erf", gpuarr.Erf[T], math.Erf, false},
		{"Erfc", gpuarr.Erfc[T], math.Erfc, false},
		{"Rsqrt", gpuarr.Rsqrt[T], rsqrt, true},
		{"Floor", gpuarr.Floor[T], math.Floor, true},
		{"Ceil", gpuarr.Ceil[T], math.Ceil, true},
		{"Trunc", gpuarr.Trunc[T], math.Trunc, true},
		{"Round", gpuarr.Round[T], math.RoundToEven, true},
		{"Sign", gpuarr.Sign[T], signRef, true},
	}
}

// signRef is NumPy's sign: -1, +0 (for ±0) or 1, NaN for NaN.
func signRef(x float64) float64 {
	switch {
	case x > 0:
		return 1
	case x < 0:
		return -1
	case x == 0:
		return 0
	}
	return x
}

// goMathOff are the inputs here where Go's math package is further than
// 45 ulp from the exact float64 result, with that result (mpmath at 200
// bits, rounded to float64): its Acos and Log2 lose digits near 1, its
// Log10 is wrong for subnormal x (golang/go#56600).
var goMathOff = map[string]float64{
	"Acos/0.999":   0.044725087168733454,
	"Log2/1.001":   0.0014419741739063218,
	"Log10/5e-324": -323.3062153431158,
}

// testUnaryMath checks each function against Go's math package: within
// 4 ulp for float32 and 1e-14 relative (45 ulp) for float64, the exact
// ones bit for bit, special values (NaN, ±Inf, the sign of a zero) exactly.
func testUnaryMath[T gpuarr.Float](t *testing.T) {
	in := mathArgs[T]()
	x := must(gpuarr.FromSlice(in, gpuarr.Shape{len(in)}))
	defer x.Release()
	bound := 4.0
	if _, ok := any(T(0)).(float64); ok {
		bound = 45
	}
	for _, c := range mathCases[T]() {
		got := values(t, must(gpuarr.Eval(c.f(x))))
		for i, v := range in {
			ref := c.ref(float64(v))
			if r, ok := goMathOff[c.name+"/"+fmt.Sprint(float64(v))]; ok {
				ref = r
			}
			limit := bound
			if c.exact {
				limit = 0
			}
			if off := ulpsOff(got[i], ref); off > limit {
				t.Errorf("%s(%v) = %v, want %v (%.3g ulp off; bound %g)", c.name, v, got[i], ref, off, limit)
			}
		}
	}
}

func TestUnaryMath(t *testing.T) {
	t.Run("float32", testUnaryMath[float32])
	t.Run("float64", testUnaryMath[float64])
}

// TestRoundHalfToEven: Round is NumPy's rint, not math.Round.
func TestRoundHalfToEven(t *testing.T) {
	x := must(gpuarr.FromSlice([]float64{0.5, 1.5, 2.5, -0.5, -2.5, 3.5, -3.5, 4.5000000001}, gpuarr.Shape{8}))
	defer x.Release()
	got := values(t, must(gpuarr.Eval(gpuarr.Round[float64](x))))
	assert.Equal(t, []float64{0, 2, 2, math.Copysign(0, -1), -2, 4, -4, 5}, got)
	assert.True(t, math.Signbit(got[3]), "Round(-0.5) is -0")
}

type binaryMathCase[T gpuarr.Float] struct {
	name  string
	f     func(x, y gpuarr.Operand[T]) gpuarr.Expr[T]
	ref   func(x, y float64) float64
	exact bool
}

// npDivmod is NumPy's floor division and remainder of floats (its
// npy_divmod), every operation in T: fmod (exact), then the quotient of
// the difference rounded to an integer value, the remainder given the
// divisor's sign.
func npDivmod[T gpuarr.Float](a, b T) (floorDiv, mod T) {
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
	floorDiv = T(math.Floor(float64(div)))
	if div-floorDiv > 0.5 {
		floorDiv++
	}
	return floorDiv, mod
}

func binaryMathCases[T gpuarr.Float]() []binaryMathCase[T] {
	return []binaryMathCase[T]{
		{"Atan2", gpuarr.Atan2[T], math.Atan2, false},
		{"Hypot", gpuarr.Hypot[T], math.Hypot, false},
		{"Copysign", gpuarr.Copysign[T], math.Copysign, true},
		{"Fmin", gpuarr.Fmin[T], fminRef, true},
		{"Fmax", gpuarr.Fmax[T], func(x, y float64) float64 { return -fminRef(-x, -y) }, true},
		{"FloorDiv", gpuarr.FloorDiv[T], func(x, y float64) float64 { q, _ := npDivmod(T(x), T(y)); return float64(q) }, true},
		{"Mod", gpuarr.Mod[T], func(x, y float64) float64 { _, m := npDivmod(T(x), T(y)); return float64(m) }, true},
		{"Rem", gpuarr.Rem[T], math.Mod, true}, // exact, so exact in T
	}
}

// fminRef is NumPy's fmin: the other operand where one is NaN.
func fminRef(x, y float64) float64 {
	switch {
	case math.IsNaN(x):
		return y
	case math.IsNaN(y):
		return x
	}
	return math.Min(x, y)
}

// testBinaryMath checks the binary functions on every pair of a set of
// values, broadcast as a column against a row.
func testBinaryMath[T gpuarr.Float](t *testing.T) {
	vs := []T{T(math.NaN()), T(math.Inf(1)), T(math.Inf(-1)), 0, T(math.Copysign(0, -1)), 1, -1, 7, -7, 2.5, -0.75, 3, 1e-30, 1e30}
	n := len(vs)
	col := must(gpuarr.FromSlice(vs, gpuarr.Shape{n, 1}))
	row := must(gpuarr.FromSlice(vs, gpuarr.Shape{1, n}))
	defer col.Release()
	defer row.Release()
	bound := 4.0
	if _, ok := any(T(0)).(float64); ok {
		bound = 45
	}
	for _, c := range binaryMathCases[T]() {
		got := values(t, must(gpuarr.Eval(c.f(col, row))))
		for i, x := range vs {
			for j, y := range vs {
				ref := c.ref(float64(x), float64(y))
				limit := bound
				if c.exact {
					limit = 0
				}
				g := got[i*n+j]
				if c.name == "Fmin" || c.name == "Fmax" {
					if ref == 0 && g == 0 {
						continue // -0 and +0 may come out either way
					}
				}
				if off := ulpsOff(g, ref); off > limit {
					t.Errorf("%s(%v, %v) = %v, want %v (%.3g ulp off; bound %g)", c.name, x, y, g, ref, off, limit)
				}
			}
		}
	}
}

func TestBinaryMath(t *testing.T) {
	t.Run("float32", testBinaryMath[float32])
	t.Run("float64", testBinaryMath[float64])
}

// remCase is x Rem y = want (NumPy's fmod; NaN matches any NaN, a zero
// must have want's sign).
type remCase struct{ x, y, want float64 }

// checkRem evaluates Rem over the cases' operands as T and compares.
func checkRem[T gpuarr.Float](t *testing.T, cases []remCase) {
	t.Helper()
	xs, ys := make([]T, len(cases)), make([]T, len(cases))
	for i, c := range cases {
		xs[i], ys[i] = T(c.x), T(c.y)
	}
	x := must(gpuarr.FromSlice(xs, gpuarr.Shape{len(xs)}))
	y := must(gpuarr.FromSlice(ys, gpuarr.Shape{len(ys)}))
	defer x.Release()
	defer y.Release()
	got := values(t, must(gpuarr.Eval(gpuarr.Rem[T](x, y))))
	for i, c := range cases {
		if ulpsOff(got[i], c.want) != 0 || float64(got[i]) != c.want && !math.IsNaN(c.want) {
			t.Errorf("Rem(%v, %v) = %v, want %v", xs[i], ys[i], got[i], c.want)
		}
	}
}

// TestRemFloat: Rem of floats is fmod, exact, with x's sign: the specials,
// signed zeros, subnormals and quotients far beyond 2^53 (the values are
// NumPy's np.fmod).
func TestRemFloat(t *testing.T) {
	nan, inf, negZero := math.NaN(), math.Inf(1), math.Copysign(0, -1)
	specials := []remCase{
		{5.5, 2, 1.5}, {-5.5, 2, -1.5}, {5.5, -2, 1.5}, {-5.5, -2, -1.5},
		{6, 3, 0}, {-6, 3, negZero}, {6, -3, 0}, {-6, -3, negZero}, {0, 5, 0}, {negZero, 5, negZero},
		{1.25, 7, 1.25}, {-1.25, 7, -1.25},
		{1, 0, nan}, {1, negZero, nan}, {0, 0, nan}, {inf, 1, nan}, {-inf, 1, nan}, {inf, inf, nan},
		{1, inf, 1}, {-1, -inf, -1}, {negZero, inf, negZero}, {nan, 1, nan}, {1, nan, nan}, {nan, inf, nan},
	}
	t.Run("float64", func(t *testing.T) {
		checkRem[float64](t, append(specials,
			remCase{1e300, 7, 1}, remCase{-1e300, 7, -1}, remCase{1e300, -7, 1},
			remCase{1e300, 0.1, 0.00011215964963492975}, remCase{math.MaxFloat64, 3, 2},
			remCase{1e-300, 1e-310, 3.08012634e-315}, remCase{3.5e-323, 1.5e-323, 5e-324},
			remCase{1, 1.5e-323, 5e-324}, remCase{2.5e-308, 1e-320, 1.45e-321},
			remCase{5e-324, 1, 5e-324}, remCase{-5e-324, 1e300, -5e-324}))
	})
	t.Run("float32", func(t *testing.T) {
		checkRem[float32](t, append(specials,
			remCase{1e30, 7, 1}, remCase{-1e30, 7, -1}, remCase{1e30, float64(float32(0.1)), 0.0493038073182106},
			remCase{math.MaxFloat32, 3, 0}, remCase{1, 4.203895392974451e-45, 2.802596928649634e-45},
			remCase{9.99994610111476e-41, 2.802596928649634e-45, 0}, remCase{-math.SmallestNonzeroFloat32, 1e30, -math.SmallestNonzeroFloat32}))
	})
}

// TestRemHalf: Rem of the 16-bit floats is fmod in float32 rounded to T,
// which is exact (the remainder is representable in T): math.Mod of the
// operands, bit for bit, on every pair of a set with the specials and
// subnormals.
func TestRemHalf(t *testing.T) {
	vs := []float64{math.NaN(), math.Inf(1), math.Inf(-1), 0, math.Copysign(0, -1), 1, -1, 2.5, -2.5, 3, 7, -7,
		0.1, 1000, 65504, -60000, 6e-8, -6e-8, 1e-6, 3e38, 1e-38, 1e-40}
	t.Run("float16", func(t *testing.T) {
		testRemHalf(t, vs, gpuarr.ToFloat16[float64], gpuarr.Float16.Float64, gpuarr.Float16.Bits)
	})
	t.Run("bfloat16", func(t *testing.T) {
		testRemHalf(t, vs, gpuarr.ToBFloat16[float64], gpuarr.BFloat16.Float64, gpuarr.BFloat16.Bits)
	})
}

func testRemHalf[T gpuarr.Float16 | gpuarr.BFloat16](t *testing.T, vs []float64, to func(float64) T, from func(T) float64, bits func(T) uint16) {
	in := make([]T, len(vs))
	for i, v := range vs {
		in[i] = to(v)
	}
	n := len(in)
	col := must(gpuarr.FromSlice(in, gpuarr.Shape{n, 1}))
	row := must(gpuarr.FromSlice(in, gpuarr.Shape{1, n}))
	defer col.Release()
	defer row.Release()
	got := values(t, must(gpuarr.Eval(gpuarr.Rem[T](col, row))))
	for i, x := range in {
		for j, y := range in {
			w := math.Mod(from(x), from(y))
			if !math.IsNaN(w) && from(to(w)) != w {
				t.Errorf("fmod(%v, %v) = %v is not a %T", from(x), from(y), w, x)
			}
			g := got[i*n+j]
			if !(math.IsNaN(w) && math.IsNaN(from(g))) && bits(g) != bits(to(w)) {
				t.Errorf("Rem(%v, %v) = %v (%#04x), want %v", from(x), from(y), from(g), bits(g), w)
			}
		}
	}
}

// TestFloatTests: IsNaN, IsInf and IsFinite are masks, usable in Where and
// storable as bool arrays.
func TestFloatTests(t *testing.T) {
	in := []float32{float32(math.NaN()), float32(math.Inf(1)), float32(math.Inf(-1)), 0, -1, math.MaxFloat32, math.SmallestNonzeroFloat32}
	x := must(gpuarr.FromSlice(in, gpuarr.Shape{len(in)}))
	defer x.Release()
	assert.Equal(t, []bool{true, false, false, false, false, false, false}, values(t, must(gpuarr.Eval(gpuarr.IsNaN[float32](x)))))
	assert.Equal(t, []bool{false, true, true, false, false, false, false}, values(t, must(gpuarr.Eval(gpuarr.IsInf[float32](x)))))
	assert.Equal(t, []bool{false, false, false, true, true, true, true}, values(t, must(gpuarr.Eval(gpuarr.IsFinite[float32](x)))))
	// NaNs to zero, as nan_to_num's first step.
	clean := values(t, must(gpuarr.Eval(gpuarr.Where(gpuarr.IsNaN[float32](x), gpuarr.Scalar[float32](0), x))))
	assert.Equal(t, float32(0), clean[0])
	assert.Equal(t, in[1:], clean[1:])

	h := must(gpuarr.FromSlice([]gpuarr.Float16{gpuarr.ToFloat16(math.NaN()), gpuarr.ToFloat16(math.Inf(-1)), gpuarr.ToFloat16(65504.0)}, gpuarr.Shape{3}))
	defer h.Release()
	assert.Equal(t, []bool{true, false, false}, values(t, must(gpuarr.Eval(gpuarr.IsNaN[gpuarr.Float16](h)))))
	assert.Equal(t, []bool{false, true, false}, values(t, must(gpuarr.Eval(gpuarr.IsInf[gpuarr.Float16](h)))))
	assert.Equal(t, []bool{false, false, true}, values(t, must(gpuarr.Eval(gpuarr.IsFinite[gpuarr.Float16](h)))))
}

// testHalfMath: the 16-bit floats compute each function in float32 and
// round the result to T once; the float32 result is within 4 ulp, so the
// rounded one is the correctly rounded T or a neighbour of it.
func testHalfMath[T gpuarr.Float16 | gpuarr.BFloat16](t *testing.T, to func(float64) T, from func(T) float64, bits func(T) uint16) {
	in32 := mathArgs[float32]()
	in := make([]T, len(in32))
	for i, v := range in32 {
		in[i] = to(float64(v))
	}
	x := must(gpuarr.FromSlice(in, gpuarr.Shape{len(in)}))
	defer x.Release()
	cases := []struct {
		name  string
		f     func(gpuarr.Operand[T]) gpuarr.Expr[T]
		ref   func(float64) float64
		exact bool
	}{
		{"Sin", gpuarr.Sin[T], math.Sin, false},
		{"Atanh", gpuarr.Atanh[T], math.Atanh, false},
		{"Expm1", gpuarr.Expm1[T], math.Expm1, false},
		{"Log2", gpuarr.Log2[T], math.Log2, false},
		{"Erfc", gpuarr.Erfc[T], math.Erfc, false},
		{"Cbrt", gpuarr.Cbrt[T], math.Cbrt, false},
		{"Floor", gpuarr.Floor[T], math.Floor, true},
		{"Round", gpuarr.Round[T], math.RoundToEven, true},
		{"Sign", gpuarr.Sign[T], signRef, true},
	}
	for _, c := range cases {
		got := values(t, must(gpuarr.Eval(c.f(x))))
		for i, v := range in {
			want := to(c.ref(from(v)))
			g, w := bits(got[i]), bits(want)
			wv, gv := from(want), from(got[i])
			switch {
			case math.IsNaN(wv) && math.IsNaN(gv), g == w:
			case !c.exact && g>>15 == w>>15 && (g-w == 1 || w-g == 1):
			default:
				t.Errorf("%s(%v) = %v (%#04x), want %v (%#04x)", c.name, from(v), gv, g, wv, w)
			}
		}
	}
	// A binary one, broadcasting a scalar.
	got := values(t, must(gpuarr.Eval(gpuarr.Hypot(x, gpuarr.Scalar(to(3))))))
	for i, v := range in {
		w := to(math.Hypot(from(v), 3))
		if g, wb := bits(got[i]), bits(w); g != wb && !(g>>15 == wb>>15 && (g-wb == 1 || wb-g == 1)) {
			t.Errorf("Hypot(%v, 3) = %v, want %v", from(v), from(got[i]), from(w))
		}
	}
}

func TestHalfMath(t *testing.T) {
	t.Run("float16", func(t *testing.T) {
		testHalfMath(t, gpuarr.ToFloat16[float64], func(h gpuarr.Float16) float64 { return h.Float64() }, gpuarr.Float16.Bits)
	})
	t.Run("bfloat16", func(t *testing.T) {
		testHalfMath(t, gpuarr.ToBFloat16[float64], func(h gpuarr.BFloat16) float64 { return h.Float64() }, gpuarr.BFloat16.Bits)
	})
}

// testIntegerFunctions checks FloorDiv, Mod, Sign, Fmin, Fmax, the bitwise
// operations and the shifts of signed T against Go's operators and NumPy's
// definitions, on every pair of a set including MinInt, MaxInt, 0 and -1,
// with counts at and beyond the width for the shifts.
func testIntegerFunctions[T int8 | int16 | int32 | int64](t *testing.T) {
	bitsOf := int64(8 * sizeOf[T]())
	minT := T(-1) << (bitsOf - 1)
	maxT := ^minT
	vs := []T{minT, minT + 1, -7, -2, -1, 0, 1, 2, 3, 7, maxT}
	n := len(vs)
	col := must(gpuarr.FromSlice(vs, gpuarr.Shape{n, 1}))
	row := must(gpuarr.FromSlice(vs, gpuarr.Shape{1, n}))
	defer col.Release()
	defer row.Release()
	floorDiv := func(a, b T) T {
		if b == 0 {
			return 0
		}
		q := a / b // MinInt / -1 wraps to MinInt in Go
		if r := a - q*b; r != 0 && (r < 0) != (b < 0) {
			q--
		}
		return q
	}
	mod := func(a, b T) T {
		if b == 0 {
			return 0
		}
		r := a % b
		if r != 0 && (r < 0) != (b < 0) {
			r += b
		}
		return r
	}
	rem := func(a, b T) T {
		if b == 0 {
			return 0
		}
		return a % b // MinInt % -1 is 0 in Go
	}
	binary := []struct {
		name string
		f    func(x, y gpuarr.Operand[T]) gpuarr.Expr[T]
		ref  func(a, b T) T
	}{
		{"FloorDiv", gpuarr.FloorDiv[T], floorDiv},
		{"Mod", gpuarr.Mod[T], mod},
		{"Rem", gpuarr.Rem[T], rem},
		{"Fmin", gpuarr.Fmin[T], func(a, b T) T { return min(a, b) }},
		{"Fmax", gpuarr.Fmax[T], func(a, b T) T { return max(a, b) }},
		{"BitAnd", gpuarr.BitAnd[T], func(a, b T) T { return a & b }},
		{"BitOr", gpuarr.BitOr[T], func(a, b T) T { return a | b }},
		{"BitXor", gpuarr.BitXor[T], func(a, b T) T { return a ^ b }},
	}
	for _, c := range binary {
		got := values(t, must(gpuarr.Eval(c.f(col, row))))
		for i, a := range vs {
			for j, b := range vs {
				if w := c.ref(a, b); got[i*n+j] != w {
					t.Errorf("%s(%d, %d) = %d, want %d", c.name, a, b, got[i*n+j], w)
				}
			}
		}
	}
	// The documented edges, spelled out.
	fd := values(t, must(gpuarr.Eval(gpuarr.FloorDiv(col, gpuarr.Scalar(T(-1))))))
	assert.Equal(t, minT, fd[0], "MinInt // -1 is MinInt")
	m := values(t, must(gpuarr.Eval(gpuarr.Mod(gpuarr.Scalar(T(-7)), row))))
	assert.Equal(t, []T{-7, -7, 0, -1, 0, 0, 0, 1, 2, 0, maxT - 7}, m, "-7 %% each of %v: the divisor's sign", vs)
	r := values(t, must(gpuarr.Eval(gpuarr.Rem(gpuarr.Scalar(T(-7)), row))))
	assert.Equal(t, []T{-7, -7, 0, -1, 0, 0, 0, -1, -1, 0, -7}, r, "-7 Rem each of %v: the dividend's sign, 0 for 0", vs)
	r = values(t, must(gpuarr.Eval(gpuarr.Rem(col, gpuarr.Scalar(T(-1))))))
	assert.Equal(t, make([]T, n), r, "x Rem -1 is 0, MinInt Rem -1 too")
	r = values(t, must(gpuarr.Eval(gpuarr.Rem(gpuarr.Scalar(T(7)), row))))
	assert.Equal(t, []T{7, 7, 0, 1, 0, 0, 0, 1, 1, 0, 7}, r, "7 Rem each of %v", vs)

	sg := values(t, must(gpuarr.Eval(gpuarr.Sign(row))))
	inv := values(t, must(gpuarr.Eval(gpuarr.Invert(row))))
	for i, v := range vs {
		w := T(0)
		switch {
		case v > 0:
			w = 1
		case v < 0:
			w = -1
		}
		assert.Equal(t, w, sg[i], "Sign(%d)", v)
		assert.Equal(t, ^v, inv[i], "Invert(%d)", v)
		assert.Equal(t, -v-1, inv[i], "Invert(%d) is -x-1", v)
	}

	// Shifts: counts 0 … width+2 and negative ones; at or beyond the
	// width << gives 0 and >> gives 0 or -1.
	var counts []T
	for c := int64(0); c <= bitsOf+2; c++ {
		counts = append(counts, T(c))
	}
	counts = append(counts, -1, minT)
	cs := must(gpuarr.FromSlice(counts, gpuarr.Shape{1, len(counts)}))
	defer cs.Release()
	shl := values(t, must(gpuarr.Eval(gpuarr.LeftShift(col, cs))))
	shr := values(t, must(gpuarr.Eval(gpuarr.RightShift(col, cs))))
	for i, a := range vs {
		for j, c := range counts {
			wl, wr := T(0), T(0)
			if c >= 0 && int64(c) < bitsOf {
				wl, wr = a<<c, a>>c
			} else if a < 0 {
				wr = -1
			}
			k := i*len(counts) + j
			if shl[k] != wl || shr[k] != wr {
				t.Errorf("%d << %d = %d, >> = %d; want %d, %d", a, c, shl[k], shr[k], wl, wr)
			}
		}
	}
}

// testUnsignedFunctions: the same for an unsigned T (logical right
// shift; Sign is 0 or 1; Mod, Rem and FloorDiv are Go's % and /).
func testUnsignedFunctions[T uint8 | uint16 | uint32 | uint64](t *testing.T) {
	bitsOf := uint64(8 * sizeOf[T]())
	maxT := ^T(0)
	vs := []T{0, 1, 2, 3, 7, maxT / 2, maxT/2 + 1, maxT - 1, maxT}
	n := len(vs)
	col := must(gpuarr.FromSlice(vs, gpuarr.Shape{n, 1}))
	row := must(gpuarr.FromSlice(vs, gpuarr.Shape{1, n}))
	defer col.Release()
	defer row.Release()
	fd := values(t, must(gpuarr.Eval(gpuarr.FloorDiv(col, row))))
	md := values(t, must(gpuarr.Eval(gpuarr.Mod(col, row))))
	rm := values(t, must(gpuarr.Eval(gpuarr.Rem(col, row))))
	for i, a := range vs {
		for j, b := range vs {
			wq, wm := T(0), T(0)
			if b != 0 {
				wq, wm = a/b, a%b
			}
			if fd[i*n+j] != wq || md[i*n+j] != wm || rm[i*n+j] != wm {
				t.Errorf("%d // %d = %d, Mod = %d, Rem = %d; want %d, %d", a, b, fd[i*n+j], md[i*n+j], rm[i*n+j], wq, wm)
			}
		}
	}
	sg := values(t, must(gpuarr.Eval(gpuarr.Sign(row))))
	inv := values(t, must(gpuarr.Eval(gpuarr.Invert(row))))
	for i, v := range vs {
		w := T(0)
		if v > 0 {
			w = 1
		}
		assert.Equal(t, w, sg[i], "Sign(%d)", v)
		assert.Equal(t, maxT-v, inv[i], "Invert(%d)", v)
	}
	var counts []T
	for c := uint64(0); c <= bitsOf+2; c++ {
		counts = append(counts, T(c))
	}
	counts = append(counts, maxT)
	cs := must(gpuarr.FromSlice(counts, gpuarr.Shape{1, len(counts)}))
	defer cs.Release()
	shl := values(t, must(gpuarr.Eval(gpuarr.LeftShift(col, cs))))
	shr := values(t, must(gpuarr.Eval(gpuarr.RightShift(col, cs))))
	for i, a := range vs {
		for j, c := range counts {
			wl, wr := a<<c, a>>c // Go gives 0 at or past the width too
			k := i*len(counts) + j
			if shl[k] != wl || shr[k] != wr {
				t.Errorf("%d << %d = %d, >> = %d; want %d, %d", a, c, shl[k], shr[k], wl, wr)
			}
		}
	}
}

func sizeOf[T int8 | int16 | int32 | int64 | uint8 | uint16 | uint32 | uint64]() int {
	var z T
	switch any(z).(type) {
	case int8, uint8:
		return 1
	case int16, uint16:
		return 2
	case int32, uint32:
		return 4
	}
	return 8
}

func TestIntegerFunctions(t *testing.T) {
	t.Run("int8", testIntegerFunctions[int8])
	t.Run("int16", testIntegerFunctions[int16])
	t.Run("int32", testIntegerFunctions[int32])
	t.Run("int64", testIntegerFunctions[int64])
	t.Run("uint8", testUnsignedFunctions[uint8])
	t.Run("uint16", testUnsignedFunctions[uint16])
	t.Run("uint32", testUnsignedFunctions[uint32])
	t.Run("uint64", testUnsignedFunctions[uint64])
}

// TestMathFuses: several of the new functions in one expression compile
// to one kernel, and compute what they compute apart.
func TestMathFuses(t *testing.T) {
	xs := []float32{-2.75, -1, -0.25, 0, 0.5, 1.5, 3.25, 10}
	x := must(gpuarr.FromSlice(xs, gpuarr.Shape{len(xs)}))
	defer x.Release()
	// floor(sin(x)·4) mod 3 + hypot(x, 1), where x is finite, else 0
	e := gpuarr.Where(gpuarr.IsFinite[float32](x),
		gpuarr.Add(gpuarr.Mod(gpuarr.Floor(gpuarr.Mul(gpuarr.Sin[float32](x), gpuarr.Scalar[float32](4))), gpuarr.Scalar[float32](3)),
			gpuarr.Hypot(x, gpuarr.Scalar[float32](1))),
		gpuarr.Scalar[float32](0))
	before := gpuarr.ReadKernelStats()
	out := must(gpuarr.Eval(e))
	after := gpuarr.ReadKernelStats()
	assert.Equal(t, uint64(1), after.Compiles+after.Hits-before.Compiles-before.Hits, "one kernel for the whole tree")
	got := values(t, out)
	for i, v := range xs {
		s := float32(math.Sin(float64(v))) // within 4 ulp of the GPU's; floor of it ×4 is the same here
		_, m := npDivmod(float32(math.Floor(float64(s*4))), 3)
		w := m + float32(math.Hypot(float64(v), 1))
		assert.InDelta(t, w, got[i], 1e-5, "x = %v", v)
	}

	// Integers: (x & 0xF) << 2 | ^x >> 60, one kernel.
	is := []int64{0, 1, -1, 0x7F, math.MinInt64, math.MaxInt64, -12345}
	xi := must(gpuarr.FromSlice(is, gpuarr.Shape{len(is)}))
	defer xi.Release()
	ei := gpuarr.BitOr(gpuarr.LeftShift(gpuarr.BitAnd(xi, gpuarr.Scalar[int64](0xF)), gpuarr.Scalar[int64](2)),
		gpuarr.RightShift(gpuarr.Invert(xi), gpuarr.Scalar[int64](60)))
	gi := values(t, must(gpuarr.Eval(ei)))
	for i, v := range is {
		assert.Equal(t, (v&0xF)<<2|^v>>60, gi[i], "x = %d", v)
	}
}
