package gpuarr_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gpuarr/gpuarr/gpuarr"
)

// Every elementwise op is checked against a reference computed on the CPU
// (in T's own arithmetic, which Go rounds or wraps exactly as the kernels
// must, or in float64 for the math functions), on fresh random non-zero
// inputs, into outputs poisoned first so that an element the kernel skips
// cannot pass.

// randomValues returns n values of T in roughly [lo, hi], never zero.
func randomValues[T gpuarr.Numeric](r *rand.Rand, n int, lo, hi float64) []T {
	out := make([]T, n)
	for i := range out {
		for out[i] == 0 {
			out[i] = T(lo + r.Float64()*(hi-lo))
		}
	}
	return out
}

// poisoned is an array of shape sh whose elements are all a value no op
// here produces from the inputs (NaN for floats).
func poisoned[T gpuarr.Numeric](t testing.TB, sh gpuarr.Shape) *gpuarr.Array[T] {
	t.Helper()
	var p T
	switch any(p).(type) {
	case float32, float64:
		nan := math.NaN()
		p = T(nan)
	default:
		p = T(0x5a)
	}
	a, err := gpuarr.Full(sh, p)
	require.NoError(t, err)
	t.Cleanup(func() { _ = a.Release() })
	return a
}

func isFloat[T gpuarr.Numeric]() bool {
	var z T
	switch any(z).(type) {
	case float32, float64:
		return true
	}
	return false
}

// tolerance is the relative error allowed for T: exact for integers.
func tolerance[T gpuarr.Numeric](math bool) float64 {
	var z T
	switch any(z).(type) {
	case float32:
		if math {
			return 2e-6
		}
		return 1e-6
	case float64:
		if math {
			return 1e-13
		}
		return 1e-15
	}
	return 0
}

func assertClose[T gpuarr.Numeric](t testing.TB, what string, want, got []T, rtol float64) {
	t.Helper()
	require.Len(t, got, len(want), what)
	bad := 0
	for i := range want {
		w, g := float64(want[i]), float64(got[i])
		ok := w == g || (math.IsNaN(w) && math.IsNaN(g)) || math.Abs(w-g) <= rtol*math.Max(math.Abs(w), 1e-30)
		if !ok {
			if bad < 5 {
				t.Errorf("%s: element %d: got %v, want %v (rtol %g)", what, i, got[i], want[i], rtol)
			}
			bad++
		}
	}
	if bad > 0 {
		t.Errorf("%s: %d of %d elements wrong", what, bad, len(want))
	}
}

type binCase[T gpuarr.Numeric] struct {
	name  string
	build func(x, y gpuarr.Operand[T]) gpuarr.Expr[T]
	ref   func(x, y T) T
}

func minT[T gpuarr.Numeric](x, y T) T {
	if x != x || y != y {
		return x + y
	}
	return min(x, y)
}

func maxT[T gpuarr.Numeric](x, y T) T {
	if x != x || y != y {
		return x + y
	}
	return max(x, y)
}

func testElementwise[T gpuarr.Numeric](t *testing.T) {
	r := rand.New(rand.NewPCG(1, uint64(len(fmt.Sprintf("%T", *new(T))))))
	sh := gpuarr.Shape{37, 129} // not a multiple of any vector width
	n := sh.Len()
	lo, hi := -100.0, 100.0
	var z T
	if T(0)-1 > z { // unsigned
		lo, hi = 1, 200
	}
	if _, ok := any(z).(int8); ok {
		lo, hi = -120, 120
	}
	hx := randomValues[T](r, n, lo, hi)
	hy := randomValues[T](r, n, lo, hi)
	hz := randomValues[T](r, n, lo, hi)
	x := must(gpuarr.FromSlice(hx, sh))
	y := must(gpuarr.FromSlice(hy, sh))
	zz := must(gpuarr.FromSlice(hz, sh))
	defer x.Release()
	defer y.Release()
	defer zz.Release()
	tol := tolerance[T](false)

	cases := []binCase[T]{
		{"Add", gpuarr.Add[T], func(a, b T) T { return a + b }},
		{"Sub", gpuarr.Sub[T], func(a, b T) T { return a - b }},
		{"Mul", gpuarr.Mul[T], func(a, b T) T { return a * b }},
		{"Div", gpuarr.Div[T], func(a, b T) T { return a / b }},
		{"Minimum", gpuarr.Minimum[T], minT[T]},
		{"Maximum", gpuarr.Maximum[T], maxT[T]},
		{"Neg", func(a, _ gpuarr.Operand[T]) gpuarr.Expr[T] { return gpuarr.Neg(a) }, func(a, _ T) T { return -a }},
		{"Abs", func(a, _ gpuarr.Operand[T]) gpuarr.Expr[T] { return gpuarr.Abs(a) }, func(a, _ T) T {
			if a < 0 {
				return -a
			}
			return a
		}},
		{"Where(Less)", func(a, b gpuarr.Operand[T]) gpuarr.Expr[T] { return gpuarr.Where(gpuarr.Less(a, b), a, b) },
			func(a, b T) T {
				if a < b {
					return a
				}
				return b
			}},
		{"FromMask(GreaterEqual)+Equal", func(a, b gpuarr.Operand[T]) gpuarr.Expr[T] {
			return gpuarr.Add(gpuarr.FromMask[T](gpuarr.GreaterEqual(a, b)), gpuarr.FromMask[T](gpuarr.Equal(a, a).And(gpuarr.NotEqual(a, b))))
		}, func(a, b T) T {
			var v T
			if a >= b {
				v++
			}
			if a != b {
				v++
			}
			return v
		}},
		{"Clamp", func(a, _ gpuarr.Operand[T]) gpuarr.Expr[T] { return gpuarr.Clamp(a, T(lo/2), T(hi/2)) },
			func(a, _ T) T { return min(max(a, T(lo/2)), T(hi/2)) }},
		{"scalar", func(a, _ gpuarr.Operand[T]) gpuarr.Expr[T] {
			return gpuarr.Sub(gpuarr.Mul(a, gpuarr.Scalar(T(3))), gpuarr.Scalar(T(7)))
		}, func(a, _ T) T { return a*3 - 7 }},
		{"shared subtree", func(a, b gpuarr.Operand[T]) gpuarr.Expr[T] {
			s := gpuarr.Add(a, b)
			return gpuarr.Mul(s, s)
		}, func(a, b T) T { return (a + b) * (a + b) }},
	}
	for _, c := range cases {
		out := poisoned[T](t, sh)
		require.NoError(t, gpuarr.EvalInto(out, c.build(x, y)), c.name)
		want := make([]T, n)
		for i := range want {
			want[i] = c.ref(hx[i], hy[i])
		}
		assertClose(t, c.name, want, values(t, out), tol)
	}

	// FMA: fused for floats (one rounding), so compare with float64.
	out := poisoned[T](t, sh)
	require.NoError(t, gpuarr.EvalInto(out, gpuarr.FMA(x, y, zz)))
	want := make([]T, n)
	for i := range want {
		if isFloat[T]() {
			want[i] = T(math.FMA(float64(hx[i]), float64(hy[i]), float64(hz[i])))
		} else {
			want[i] = hx[i]*hy[i] + hz[i]
		}
	}
	assertClose(t, "FMA", want, values(t, out), tol)

	// Casts to float64 and back to T.
	f := must(gpuarr.Eval(gpuarr.Cast[float64](x)))
	defer f.Release()
	wantF := make([]float64, n)
	for i := range wantF {
		wantF[i] = float64(hx[i])
	}
	assertClose(t, "Cast[float64]", wantF, values(t, f), 0)
	back := must(gpuarr.Eval(gpuarr.Cast[T](f)))
	defer back.Release()
	assertClose(t, "Cast back", hx, values(t, back), 0)
	i8 := must(gpuarr.Eval(gpuarr.Cast[int8](x)))
	defer i8.Release()
	wantI8 := make([]int8, n)
	for i := range wantI8 {
		if isFloat[T]() {
			wantI8[i] = int8(max(-128, min(127, math.Trunc(float64(hx[i])))))
		} else {
			wantI8[i] = int8(hx[i]) // integer narrowing wraps
		}
	}
	assertClose(t, "Cast[int8]", wantI8, values(t, i8), 0)
}

func TestElementwiseEveryType(t *testing.T) {
	t.Run("int8", testElementwise[int8])
	t.Run("int16", testElementwise[int16])
	t.Run("int32", testElementwise[int32])
	t.Run("int64", testElementwise[int64])
	t.Run("uint8", testElementwise[uint8])
	t.Run("uint16", testElementwise[uint16])
	t.Run("uint32", testElementwise[uint32])
	t.Run("uint64", testElementwise[uint64])
	t.Run("float32", testElementwise[float32])
	t.Run("float64", testElementwise[float64])
}

func testMath[T gpuarr.Float](t *testing.T) {
	r := rand.New(rand.NewPCG(2, 3))
	n := 5000
	sh := gpuarr.Shape{n}
	hx := randomValues[T](r, n, -20, 20)
	hp := randomValues[T](r, n, 1e-3, 50)
	hsmall := randomValues[T](r, n, -1e-3, 1e-3)
	x := must(gpuarr.FromSlice(hx, sh))
	p := must(gpuarr.FromSlice(hp, sh))
	small := must(gpuarr.FromSlice(hsmall, sh))
	defer x.Release()
	defer p.Release()
	defer small.Release()
	tol := tolerance[T](true)
	cases := []struct {
		name string
		e    gpuarr.Expr[T]
		in   []T
		ref  func(x float64) float64
	}{
		{"Exp", gpuarr.Exp[T](x), hx, math.Exp},
		{"Exp small", gpuarr.Exp[T](small), hsmall, math.Exp},
		{"Log", gpuarr.Log[T](p), hp, math.Log},
		{"Log near 1", gpuarr.Log(gpuarr.Add(gpuarr.Scalar(T(1)), small)), hsmall, func(v float64) float64 {
			return math.Log(float64(T(1) + T(v)))
		}},
		{"Sqrt", gpuarr.Sqrt[T](p), hp, math.Sqrt},
		{"Tanh", gpuarr.Tanh[T](x), hx, math.Tanh},
		{"Tanh small", gpuarr.Tanh[T](small), hsmall, math.Tanh},
		{"Sigmoid", gpuarr.Sigmoid[T](x), hx, func(v float64) float64 { return 1 / (1 + math.Exp(-v)) }},
		{"Pow", gpuarr.Pow(p, gpuarr.Scalar(T(1.7))), hp, func(v float64) float64 { return math.Pow(v, float64(T(1.7))) }},
		{"Pow integer exponent of negatives", gpuarr.Pow(x, gpuarr.Scalar(T(3))), hx, func(v float64) float64 { return math.Pow(v, 3) }},
	}
	for _, c := range cases {
		out := poisoned[T](t, sh)
		require.NoError(t, gpuarr.EvalInto(out, c.e), c.name)
		want := make([]T, n)
		for i := range want {
			want[i] = T(c.ref(float64(c.in[i])))
		}
		assertClose(t, c.name, want, values(t, out), tol)
	}
}

func TestMathFunctions(t *testing.T) {
	t.Run("float32", testMath[float32])
	t.Run("float64", testMath[float64])
}

// NaN and infinities follow IEEE and Go's math package: NaN propagates
// through arithmetic, Minimum and Maximum; comparisons with NaN are false
// except NotEqual; casts of NaN to integers give 0 and out-of-range
// values saturate.
func testSpecialValues[T gpuarr.Float](t *testing.T) {
	inf, nan := T(math.Inf(1)), T(math.NaN())
	x := must(gpuarr.FromSlice([]T{nan, inf, -inf, 0, -1, 1}, gpuarr.Shape{6}))
	defer x.Release()
	one := gpuarr.Scalar(T(1))
	check := func(name string, e gpuarr.Expr[T], want ...float64) {
		t.Helper()
		got := values(t, must(gpuarr.Eval(e)))
		for i, w := range want {
			w = float64(T(w)) // the reference rounded to T
			g := float64(got[i])
			if !(g == w || math.IsNaN(g) && math.IsNaN(w)) {
				t.Errorf("%s[%d] = %v, want %v", name, i, g, w)
			}
		}
	}
	n, p, m := math.NaN(), math.Inf(1), math.Inf(-1)
	check("Add", gpuarr.Add(x, one), n, p, m, 1, 0, 2)
	check("Div", gpuarr.Div(one, x), n, 0, math.Copysign(0, -1), p, -1, 1)
	check("Minimum", gpuarr.Minimum(x, one), n, 1, m, 0, -1, 1)
	check("Maximum", gpuarr.Maximum(x, one), n, p, 1, 1, 1, 1)
	check("Less", gpuarr.FromMask[T](gpuarr.Less(x, one)), 0, 0, 1, 1, 1, 0)
	check("NotEqual", gpuarr.FromMask[T](gpuarr.NotEqual(x, x)), 1, 0, 0, 0, 0, 0)
	check("Exp", gpuarr.Exp[T](x), n, p, 0, 1, math.Exp(-1), math.E)
	check("Log", gpuarr.Log[T](x), n, p, n, m, n, 0)
	check("Sqrt", gpuarr.Sqrt[T](x), n, p, n, 0, n, 1)
	check("Tanh", gpuarr.Tanh[T](x), n, 1, -1, 0, math.Tanh(-1), math.Tanh(1))
	i32 := values(t, must(gpuarr.Eval(gpuarr.Cast[int32](x))))
	assert.Equal(t, []int32{0, math.MaxInt32, math.MinInt32, 0, -1, 1}, i32, "Cast[int32] saturates, NaN → 0")
	u8 := values(t, must(gpuarr.Eval(gpuarr.Cast[uint8](x))))
	assert.Equal(t, []uint8{0, 255, 0, 0, 0, 1}, u8, "Cast[uint8] saturates")
}

func TestSpecialValues(t *testing.T) {
	t.Run("float32", testSpecialValues[float32])
	t.Run("float64", testSpecialValues[float64])
}

func TestIntegerDivisionEdges(t *testing.T) {
	x := must(gpuarr.FromSlice([]int32{7, -7, math.MinInt32, 5, math.MinInt32}, gpuarr.Shape{5}))
	y := must(gpuarr.FromSlice([]int32{2, 2, -1, 0, 1}, gpuarr.Shape{5}))
	got := values(t, must(gpuarr.Eval(gpuarr.Div(x, y))))
	assert.Equal(t, []int32{3, -3, math.MinInt32, 0, math.MinInt32}, got, "truncation, MinInt/-1 = MinInt, x/0 = 0")
	u := must(gpuarr.FromSlice([]uint8{200, 7}, gpuarr.Shape{2}))
	got8 := values(t, must(gpuarr.Eval(gpuarr.Add(u, gpuarr.Scalar[uint8](100)))))
	assert.Equal(t, []uint8{44, 107}, got8, "uint8 wraps")
	neg := values(t, must(gpuarr.Eval(gpuarr.Neg[uint8](u))))
	assert.Equal(t, []uint8{56, 249}, neg, "unsigned Neg wraps")
	abs := values(t, must(gpuarr.Eval(gpuarr.Abs[int32](x))))
	assert.Equal(t, []int32{7, 7, math.MinInt32, 5, math.MinInt32}, abs, "Abs(MinInt) = MinInt")
}
