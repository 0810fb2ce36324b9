package gpuarr_test

import (
	"math"
	"math/big"
	"math/cmplx"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gpuarr/gpuarr/gpuarr"
)

// The element types beyond Go's integers and floats: bool, Float16,
// BFloat16, complex64 and complex128, on the default device (the host in
// CI, a GPU in the bundle), against references computed in Go.

// itemOf is the value of a one-element array a call returned (panicking
// on an error, as must does).
func itemOf[T gpuarr.Element](a *gpuarr.Array[T], err error) T { return must(must(a, err).Item()) }

func evalValues[T gpuarr.Element](t *testing.T, e gpuarr.Operand[T]) []T {
	t.Helper()
	a, err := gpuarr.Eval(e)
	require.NoError(t, err)
	defer a.Release()
	return values(t, a)
}

func TestBoolArrays(t *testing.T) {
	x := must(gpuarr.FromSlice([]float32{1, 5, float32(math.NaN()), -2, 0, 3}, gpuarr.Shape{2, 3}))
	y := must(gpuarr.FromSlice([]float32{2, 5, 1, -3, 0, 4}, gpuarr.Shape{2, 3}))

	// A comparison is stored as a bool array, one byte an element.
	m := must(gpuarr.Eval(gpuarr.Less(x, y)))
	assert.Equal(t, []bool{true, false, false, false, false, true}, values(t, m))
	assert.Equal(t, uint64(6), m.Bytes())
	assert.Equal(t, "gpuarr.Array[bool][2 3] on "+m.Device().String()+"\n[[ true false false]\n [false false  true]]", m.String())
	b := must(gpuarr.FromSlice([]bool{true, true, false, true, false, false}, gpuarr.Shape{2, 3}))
	assert.Equal(t, []bool{true, true, false, true, false, false}, values(t, b))

	// Stored masks serve wherever masks do; bools compare as 0 < 1.
	assert.Equal(t, []float32{1, 5, 1, -2, 0, 4}, evalValues[float32](t, gpuarr.Where(b, x, y)))
	assert.Equal(t, []bool{true, false, false, false, false, false}, evalValues[bool](t, gpuarr.Less(x, y).And(b)))
	assert.Equal(t, []bool{false, false, false, false, false, true}, evalValues[bool](t, gpuarr.Less(b, m)))
	assert.Equal(t, []bool{true, false, true, false, true, false}, evalValues[bool](t, gpuarr.Equal[bool](b, m)))
	assert.Equal(t, []float32{1, 1, 0, 1, 0, 0}, evalValues(t, gpuarr.Cast[float32](b)))
	assert.Equal(t, []bool{true, true, true, true, false, true}, evalValues(t, gpuarr.Cast[bool](x)), "NaN is true, as != 0")
	assert.Equal(t, []bool{false, false, true, false, true, true}, evalValues[bool](t, gpuarr.Where(b, gpuarr.Scalar(false), gpuarr.Scalar(true))))

	// Constructors.
	assert.Equal(t, []bool{false, false}, values(t, must(gpuarr.Zeros[bool](gpuarr.Shape{2}))))
	assert.Equal(t, []bool{true, true, true}, values(t, must(gpuarr.Ones[bool](gpuarr.Shape{3}))))
	assert.Equal(t, []bool{true}, values(t, must(gpuarr.Full(gpuarr.Shape{1}, true))))

	// Reductions: Max is any, Min all; SumAs counts; MeanAs is the
	// fraction true; ArgMax finds the first true.
	assert.True(t, itemOf(gpuarr.Max(b)))
	assert.False(t, itemOf(gpuarr.Min(b)))
	assert.Equal(t, []bool{true, true}, values(t, must(gpuarr.Max(b, gpuarr.Axis(1)))))
	assert.Equal(t, []bool{true, false, false}, values(t, must(gpuarr.Min(b, gpuarr.Axis(0)))))
	assert.Equal(t, int64(3), itemOf(gpuarr.SumAs[int64](b)))
	assert.Equal(t, []int64{2, 1}, values(t, must(gpuarr.SumAs[int64](b, gpuarr.Axis(1)))))
	assert.Equal(t, 0.5, itemOf(gpuarr.MeanAs[float64](b)))
	assert.Equal(t, int64(0), itemOf(gpuarr.ArgMax(b)))
	assert.Equal(t, []int64{2, 1}, values(t, must(gpuarr.ArgMin(b, gpuarr.Axis(1)))))
	assert.Equal(t, []int64{0, 0, 1}, values(t, must(gpuarr.ArgMax(gpuarr.Less(x, y), gpuarr.Axis(0)))))
}

func TestNonzero(t *testing.T) {
	x := must(gpuarr.FromSlice([]float32{0, 1.5, 0, float32(math.NaN()), -0.0, 2, 0, 0, 7}, gpuarr.Shape{3, 3}))
	assert.Equal(t, int64(4), itemOf(gpuarr.CountNonzero(x)), "NaN counts")
	assert.Equal(t, []int64{1, 2, 1}, values(t, must(gpuarr.CountNonzero(x, gpuarr.Axis(1)))))
	assert.Equal(t, []int64{1, 1, 2}, values(t, must(gpuarr.CountNonzero(x, gpuarr.Axis(0)))))
	assert.Equal(t, int64(2), itemOf(gpuarr.CountNonzero[complex64](must(gpuarr.FromSlice([]complex64{0, 1i, 2, 0}, gpuarr.Shape{4})))))
	assert.Equal(t, int64(0), itemOf(gpuarr.CountNonzero(gpuarr.Less(x, gpuarr.Scalar[float32](0)))), "-0 < 0 is false")

	idx, err := gpuarr.Nonzero(x)
	require.NoError(t, err)
	require.Len(t, idx, 2)
	assert.Equal(t, []int64{0, 1, 1, 2}, values(t, idx[0]))
	assert.Equal(t, []int64{1, 0, 2, 2}, values(t, idx[1]))
	idx, err = gpuarr.Nonzero(gpuarr.Greater(x, gpuarr.Scalar[float32](100)))
	require.NoError(t, err)
	assert.Equal(t, gpuarr.Shape{0}, idx[0].Shape())
	v := must(gpuarr.FromSlice([]int8{0, 3, 0, 0, -1}, gpuarr.Shape{5}))
	idx, err = gpuarr.Nonzero(v)
	require.NoError(t, err)
	assert.Equal(t, []int64{1, 4}, values(t, idx[0]))
	_, err = gpuarr.Nonzero(must(gpuarr.FromSlice([]float32{1}, gpuarr.Shape{})))
	require.ErrorIs(t, err, gpuarr.ErrShape)
	assert.Contains(t, err.Error(), "0-d")
}

// halfType is one of the 16-bit float types with its conversions.
type halfCase[H gpuarr.Float16 | gpuarr.BFloat16] struct {
	from   func(float64) H
	to     func(H) float64
	relUlp float64 // a unit in the last place, relative
}

func testHalf[H gpuarr.Float16 | gpuarr.BFloat16](t *testing.T, c halfCase[H]) {
	rng := rand.New(rand.NewPCG(1, 2))
	const n = 1000
	av, bv := make([]H, n), make([]H, n)
	for i := range av {
		av[i], bv[i] = c.from(rng.NormFloat64()*100), c.from(rng.NormFloat64())
	}
	av[0], av[1], bv[2] = c.from(math.NaN()), c.from(math.Inf(-1)), c.from(0)
	a := must(gpuarr.FromSlice(av, gpuarr.Shape{n}))
	b := must(gpuarr.FromSlice(bv, gpuarr.Shape{n}))
	assert.Equal(t, av, values(t, a), "stored bits come back")
	r := func(x float64) float64 { return c.to(c.from(float64(float32(x)))) } // a float32 result rounded to H
	same := func(want float64, got H, what string, i int) {
		g := c.to(got)
		if math.IsNaN(want) {
			assert.True(t, math.IsNaN(g), "%s %d: %v", what, i, g)
			return
		}
		assert.Equal(t, want, g, "%s %d: %v, %v", what, i, c.to(av[i]), c.to(bv[i]))
	}

	// Each operation computes in float32 and rounds to the half at once.
	got := evalValues(t, gpuarr.Add(gpuarr.Mul(a, b), gpuarr.Div(a, b)))
	for i := range got {
		x, y := c.to(av[i]), c.to(bv[i])
		same(r(r(x*y)+r(float64(float32(x)/float32(y)))), got[i], "a·b + a/b", i)
	}
	got = evalValues(t, gpuarr.Sub(gpuarr.Neg(a), gpuarr.Scalar(c.from(0.1))))
	for i := range got {
		same(r(-c.to(av[i])-c.to(c.from(0.1))), got[i], "-a - 0.1", i)
	}
	got = evalValues(t, gpuarr.Maximum(a, b))
	for i := range got {
		want := math.Max(c.to(av[i]), c.to(bv[i]))
		if math.IsNaN(c.to(av[i])) {
			want = math.NaN()
		}
		same(want, got[i], "maximum", i)
	}
	// Exp within half an ulp of the correctly rounded half (the float32
	// exponential is itself within a few float32 ulps).
	got = evalValues(t, gpuarr.Exp(gpuarr.Div(b, gpuarr.Scalar(c.from(4)))))
	for i := range got {
		want := math.Exp(c.to(c.from(c.to(bv[i]) / 4)))
		assert.InDelta(t, want, c.to(got[i]), want*c.relUlp, "exp %d", i)
	}
	mask := evalValues[bool](t, gpuarr.Less(a, b))
	for i := range mask {
		assert.Equal(t, c.to(av[i]) < c.to(bv[i]), mask[i], "less %d", i)
	}

	// Casts: from float64 once (1 + half an ulp + a hair rounds up, as it
	// would not through float32), to float32 exactly, to integers
	// saturating, from integers.
	x64 := []float64{1 + c.relUlp/2 + 0x1p-40, 1 + c.relUlp/2, -1e300, 1e-300, math.NaN(), 2.5}
	h := evalValues(t, gpuarr.Cast[H](must(gpuarr.FromSlice(x64, gpuarr.Shape{6}))))
	for i, x := range x64 {
		assert.Equal(t, c.from(x), h[i], "%v", x)
	}
	assert.Equal(t, 1+c.relUlp, c.to(h[0]))
	assert.Equal(t, 1.0, c.to(h[1]), "a tie goes to even")
	f32 := evalValues(t, gpuarr.Cast[float32](a))
	for i := range f32 {
		same(float64(f32[i]), av[i], "to float32", i)
	}
	i8 := evalValues(t, gpuarr.Cast[int8](gpuarr.Mul(a, gpuarr.Scalar(c.from(2)))))
	for i := range i8 {
		v := c.to(c.from(c.to(av[i]) * 2))
		want := int8(0)
		switch {
		case math.IsNaN(v):
		case v >= 127:
			want = 127
		case v <= -128:
			want = -128
		default:
			want = int8(v)
		}
		assert.Equal(t, want, i8[i], "int8 of %v", v)
	}
	ints := must(gpuarr.FromSlice([]int32{1, -3, 1 << 20, 2049}, gpuarr.Shape{4}))
	for i, v := range evalValues(t, gpuarr.Cast[H](ints)) {
		assert.Equal(t, c.from([]float64{1, -3, 1 << 20, 2049}[i]), v)
	}

	// Reductions: float32 values summed in float64, rounded once.
	ok := must(gpuarr.FromSlice(av[2:], gpuarr.Shape{n - 2}))
	var sum, mx float64 = 0, math.Inf(-1)
	for _, v := range av[2:] {
		sum += c.to(v)
		mx = math.Max(mx, c.to(v))
	}
	assert.InDelta(t, c.to(c.from(sum)), c.to(itemOf(gpuarr.Sum(ok))), math.Abs(sum)*c.relUlp)
	assert.InDelta(t, c.to(c.from(sum/(n-2))), c.to(itemOf(gpuarr.Mean(ok))), math.Abs(sum/(n-2))*c.relUlp)
	assert.Equal(t, c.from(mx), itemOf(gpuarr.Max(ok)))
	assert.True(t, math.IsNaN(c.to(itemOf(gpuarr.Max(a)))), "a NaN element makes Max NaN")
	assert.Equal(t, int64(0), itemOf(gpuarr.ArgMin(a)), "the NaN counts as the least")
	assert.Equal(t, int64(0), itemOf(gpuarr.ArgMin(must(a.Slice(1, n)))), "then -Inf")

	// Constructors.
	assert.Equal(t, []H{c.from(1), c.from(1)}, values(t, must(gpuarr.Ones[H](gpuarr.Shape{2}))))
	assert.Equal(t, []H{c.from(-2.5)}, values(t, must(gpuarr.Full(gpuarr.Shape{1}, c.from(-2.5)))))
}

func TestHalfArrays(t *testing.T) {
	t.Run("float16", func(t *testing.T) {
		testHalf(t, halfCase[gpuarr.Float16]{from: gpuarr.ToFloat16[float64], to: gpuarr.Float16.Float64, relUlp: 0x1p-10})
	})
	t.Run("bfloat16", func(t *testing.T) {
		testHalf(t, halfCase[gpuarr.BFloat16]{from: gpuarr.ToBFloat16[float64], to: gpuarr.BFloat16.Float64, relUlp: 0x1p-7})
	})
	h := must(gpuarr.FromSlice([]gpuarr.Float16{gpuarr.ToFloat16(0.1), gpuarr.ToFloat16(65504.0)}, gpuarr.Shape{2}))
	assert.Equal(t, "gpuarr.Array[float16][2] on "+h.Device().String()+" [  0.1 65500]", h.String())
	bf := evalValues(t, gpuarr.Cast[gpuarr.BFloat16](h))
	assert.Equal(t, []gpuarr.BFloat16{gpuarr.ToBFloat16(0.0999755859375), gpuarr.ToBFloat16(65504.0)}, bf)
}

// complexMul and complexDiv are NumPy's formulas (each operation rounded
// in the part type F).
func complexMul[F float32 | float64](ar, ai, br, bi F) (F, F) {
	return F(ar*br) - F(ai*bi), F(ar*bi) + F(ai*br)
}

func complexDiv[F float32 | float64](ar, ai, br, bi F) (F, F) {
	abr, abi := F(math.Abs(float64(br))), F(math.Abs(float64(bi)))
	if abr >= abi {
		if abr == 0 && abi == 0 {
			return ar / abr, ai / abr
		}
		rat := bi / br
		scl := 1 / F(br+F(bi*rat))
		return F(ar+F(ai*rat)) * scl, F(ai-F(ar*rat)) * scl
	}
	rat := br / bi
	scl := 1 / F(bi+F(br*rat))
	return F(F(ar*rat)+ai) * scl, F(F(ai*rat)-ar) * scl
}

func sameFloat(t *testing.T, want, got float64, format string, args ...any) {
	t.Helper()
	if math.IsNaN(want) {
		assert.True(t, math.IsNaN(got), append([]any{"want NaN: " + format}, args...)...)
		return
	}
	assert.Equal(t, want, got, append([]any{format}, args...)...)
}

func TestComplexArrays(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	const n = 500
	zv, wv := make([]complex64, n), make([]complex64, n)
	for i := range zv {
		zv[i] = complex(float32(rng.NormFloat64()), float32(rng.NormFloat64()))
		wv[i] = complex(float32(rng.NormFloat64()), float32(rng.NormFloat64()))
	}
	inf, nan := float32(math.Inf(1)), float32(math.NaN())
	wv[0], wv[1], wv[2], zv[3], wv[4] = 0, complex(0, 3), complex(1e-30, 1e30), complex(inf, 1), complex(nan, 1)
	z := must(gpuarr.FromSlice(zv, gpuarr.Shape{n}))
	w := must(gpuarr.FromSlice(wv, gpuarr.Shape{n}))
	assert.Equal(t, zv, values(t, z))

	prod, quot := evalValues(t, gpuarr.Mul(z, w)), evalValues(t, gpuarr.Div(z, w))
	sum, neg := evalValues(t, gpuarr.Sub(gpuarr.Add(z, w), gpuarr.Scalar(complex64(1+2i)))), evalValues(t, gpuarr.Neg(z))
	conj := evalValues(t, gpuarr.Conj(z))
	for i := range zv {
		ar, ai, br, bi := real(zv[i]), imag(zv[i]), real(wv[i]), imag(wv[i])
		mr, mi := complexMul(ar, ai, br, bi)
		qr, qi := complexDiv(ar, ai, br, bi)
		for _, c := range []struct {
			what string
			want complex64
			got  complex64
		}{
			{"mul", complex(mr, mi), prod[i]}, {"div", complex(qr, qi), quot[i]},
			{"add-sub", complex(float32(ar+br)-1, float32(ai+bi)-2), sum[i]}, {"neg", -zv[i], neg[i]},
			{"conj", complex(ar, -ai), conj[i]},
		} {
			sameFloat(t, float64(real(c.want)), float64(real(c.got)), "%s %d real", c.what, i)
			sameFloat(t, float64(imag(c.want)), float64(imag(c.got)), "%s %d imag", c.what, i)
		}
	}

	// Parts and construction.
	re, im := evalValues(t, gpuarr.Real[float32](z)), evalValues(t, gpuarr.Imag[float32](z))
	for i := range zv {
		assert.Equal(t, real(zv[i]), re[i])
		assert.Equal(t, imag(zv[i]), im[i])
	}
	back := evalValues(t, gpuarr.Complex[complex64](gpuarr.Real[float32](z), gpuarr.Imag[float32](z)))
	assert.Equal(t, zv[5:], back[5:])
	_, err := gpuarr.Eval(gpuarr.Real[float64](z))
	require.ErrorIs(t, err, gpuarr.ErrArgument)
	assert.Contains(t, err.Error(), "the parts of complex64 values are float32, not float64: call gpuarr.Real[float32]")
	_, err = gpuarr.Eval(gpuarr.Complex[complex128](gpuarr.Real[float32](z), gpuarr.Imag[float32](z)))
	require.ErrorIs(t, err, gpuarr.ErrArgument)
	assert.Contains(t, err.Error(), "call gpuarr.Complex[complex64]")

	// Casts: between complex types each part; from reals with imaginary 0;
	// never to reals (Go has no such conversion: Real takes the part).
	z128 := evalValues(t, gpuarr.Cast[complex128](z))
	for i := range zv {
		assert.Equal(t, complex128(zv[i]), z128[i])
	}
	assert.Equal(t, []complex64{1, -2.5}, evalValues(t, gpuarr.Cast[complex64](must(gpuarr.FromSlice([]float64{1, -2.5}, gpuarr.Shape{2})))))
	_, err = gpuarr.Eval(gpuarr.Cast[float32](z))
	require.ErrorIs(t, err, gpuarr.ErrArgument)
	assert.Contains(t, err.Error(), "complex64 to float32 would drop the imaginary part: take gpuarr.Real[float32](x)")

	// Comparisons and selections.
	eq := evalValues[bool](t, gpuarr.Equal(z, gpuarr.Scalar(zv[7])))
	for i := range eq {
		assert.Equal(t, zv[i] == zv[7], eq[i])
	}
	sel := evalValues(t, gpuarr.Where(gpuarr.NotEqual(w, gpuarr.Scalar[complex64](0)), z, gpuarr.Scalar[complex64](-1i)))
	assert.Equal(t, complex64(-1i), sel[0])
	assert.Equal(t, zv[5], sel[5])

	// Reductions in complex128, into T; along an axis of a strided view.
	var s, p complex128 = 0, 1
	for i, v := range zv[5:] {
		s += complex128(v)
		if i < 40 {
			p *= complex128(v)
		}
	}
	ok := must(gpuarr.FromSlice(zv[5:], gpuarr.Shape{n - 5}))
	close := func(want complex128, got complex64, what string) {
		t.Helper()
		assert.InDelta(t, real(want), float64(real(got)), 1e-5*cmplx.Abs(want)+1e-6, what)
		assert.InDelta(t, imag(want), float64(imag(got)), 1e-5*cmplx.Abs(want)+1e-6, what)
	}
	close(s, itemOf(gpuarr.Sum(ok)), "sum")
	close(s/(n-5), itemOf(gpuarr.Mean(ok)), "mean")
	close(p, itemOf(gpuarr.Prod(must(ok.Slice(0, 40)))), "prod")
	m := must(must(gpuarr.FromSlice(zv[:6], gpuarr.Shape{2, 3})).Transpose())
	cols := values(t, must(gpuarr.Sum(m, gpuarr.Axis(1))))
	close(complex128(zv[0])+complex128(zv[3]), cols[0], "sum of a transposed view's rows")
	assert.Equal(t, []complex64{zv[0], zv[3], zv[1], zv[4], zv[2], zv[5]}, values(t, must(gpuarr.Clone(m))))
	assert.Equal(t, []complex128{1, 1}, values(t, must(gpuarr.Ones[complex128](gpuarr.Shape{2}))))
}

// exactAbs is |z| to 200 bits.
func exactAbs(z complex128) *big.Float {
	re, im := new(big.Float).SetPrec(200).SetFloat64(real(z)), new(big.Float).SetPrec(200).SetFloat64(imag(z))
	re.Mul(re, re)
	im.Mul(im, im)
	return re.Add(re, im).Sqrt(re)
}

// ulps is |got − exact| in units of the last place of want's float type
// (bits 53 or 24) at exact.
func ulps(got float64, exact *big.Float, bits int) float64 {
	e, _ := exact.Float64()
	_, exp := math.Frexp(e)
	d, _ := new(big.Float).Sub(new(big.Float).SetPrec(200).SetFloat64(got), exact).Float64()
	return math.Abs(d) / math.Ldexp(1, exp-bits)
}

func TestComplexAbs(t *testing.T) {
	inf, nan := math.Inf(1), math.NaN()
	specials := []complex128{0, complex(3, 4), complex(-3, -4), complex(inf, nan), complex(nan, -inf), complex(nan, 1),
		complex(1e300, 1e300), complex(1e-300, 1e-310), complex(0, -2), complex(math.MaxFloat64, 1)}
	rng := rand.New(rand.NewPCG(9, 9))
	zs := append([]complex128(nil), specials...)
	for range 2000 {
		zs = append(zs, complex(rng.NormFloat64()*math.Pow(10, float64(rng.IntN(40)-20)), rng.NormFloat64()))
	}
	got := evalValues(t, gpuarr.ComplexAbs[float64](must(gpuarr.FromSlice(zs, gpuarr.Shape{len(zs)}))))
	for i, z := range zs {
		if i < len(specials) && i != 6 && i != 7 && i != 9 {
			sameFloat(t, cmplx.Abs(z), got[i], "|%v|", z)
			continue
		}
		assert.LessOrEqual(t, ulps(got[i], exactAbs(z), 53), 2.0, "|%v| = %v within 2 ulps", z, got[i])
	}
	z64 := make([]complex64, len(zs))
	for i, z := range zs {
		z64[i] = complex64(z)
	}
	got32 := evalValues(t, gpuarr.ComplexAbs[float32](must(gpuarr.FromSlice(z64, gpuarr.Shape{len(z64)}))))
	for i, z := range z64 {
		want := cmplx.Abs(complex128(z))
		if math.IsNaN(want) || math.IsInf(float64(float32(want)), 0) || want == 0 {
			sameFloat(t, float64(float32(want)), float64(got32[i]), "|%v|", z)
			continue
		}
		assert.LessOrEqual(t, ulps(float64(got32[i]), exactAbs(complex128(z)), 24), 1.0, "|%v| = %v within an ulp", z, got32[i])
	}
}

// TestComplexAngle: Angle is atan2(imag, real) of each element, in z's
// part type, with Atan2's special cases (signed zeros, infinities, NaN)
// and within Atan2's accuracy; a wrong part type fails naming Angle.
func TestComplexAngle(t *testing.T) {
	inf, nan := math.Inf(1), math.NaN()
	zs := []complex128{0, complex(math.Copysign(0, -1), 0), complex(math.Copysign(0, -1), math.Copysign(0, -1)),
		complex(1, 0), complex(-1, 0), complex(0, 2), complex(0, -2), complex(3, 4), complex(-3, -4),
		complex(inf, inf), complex(-inf, 1), complex(1, -inf), complex(nan, 1), complex(1, nan), complex(1e-310, 1e300)}
	rng := rand.New(rand.NewPCG(27, 29))
	for range 500 {
		zs = append(zs, complex(rng.NormFloat64(), rng.NormFloat64()))
	}
	check := func(got, want float64, bits int, z complex128) {
		if math.IsNaN(want) || want == 0 {
			sameFloat(t, want, got, "Angle(%v)", z)
			return
		}
		_, exp := math.Frexp(want)
		assert.LessOrEqual(t, math.Abs(got-want)/math.Ldexp(1, exp-bits), 4.0, "Angle(%v) = %v, want %v", z, got, want)
	}
	got := evalValues(t, gpuarr.Angle[float64](must(gpuarr.FromSlice(zs, gpuarr.Shape{len(zs)}))))
	for i, z := range zs {
		check(got[i], cmplx.Phase(z), 53, z)
	}
	z64 := make([]complex64, len(zs))
	for i, z := range zs {
		z64[i] = complex64(z)
	}
	got32 := evalValues(t, gpuarr.Angle[float32](must(gpuarr.FromSlice(z64, gpuarr.Shape{len(z64)}))))
	for i, z := range z64 {
		check(float64(got32[i]), float64(float32(cmplx.Phase(complex128(z)))), 24, complex128(z))
	}
	_, err := gpuarr.Eval(gpuarr.Angle[float32](must(gpuarr.FromSlice(zs, gpuarr.Shape{len(zs)}))))
	require.ErrorIs(t, err, gpuarr.ErrArgument)
	assert.Contains(t, err.Error(), "gpuarr.Angle[float64]")
}

// matmulRef is a·b for row-major [m k] and [k n] slices, in complex128.
func matmulRef(a, b []complex128, m, k, n int) []complex128 {
	c := make([]complex128, m*n)
	for i := range m {
		for j := range n {
			for l := range k {
				c[i*n+j] += a[i*k+l] * b[l*n+j]
			}
		}
	}
	return c
}

func TestMatmulTypes(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	const m, k, n = 7, 33, 5
	av, bv := make([]complex128, m*k), make([]complex128, k*n)
	for i := range av {
		av[i] = complex(rng.NormFloat64(), rng.NormFloat64())
	}
	for i := range bv {
		bv[i] = complex(rng.NormFloat64(), rng.NormFloat64())
	}
	// b's transpose stored, read through a transposed view.
	bt := make([]complex128, n*k)
	for l := range k {
		for j := range n {
			bt[j*k+l] = bv[l*n+j]
		}
	}
	want := matmulRef(av, bv, m, k, n)

	a := must(gpuarr.FromSlice(av, gpuarr.Shape{m, k}))
	b := must(must(gpuarr.FromSlice(bt, gpuarr.Shape{n, k})).Transpose())
	got := values(t, must(gpuarr.Matmul(a, b)))
	for i := range want {
		assert.InDelta(t, 0, cmplx.Abs(want[i]-got[i]), 1e-12, "complex128 [%d]", i)
	}

	a64, b64 := make([]complex64, len(av)), make([]complex64, len(bv))
	for i, x := range av {
		a64[i] = complex64(x)
	}
	for i, x := range bv {
		b64[i] = complex64(x)
	}
	got64 := values(t, must(gpuarr.Matmul(must(gpuarr.FromSlice(a64, gpuarr.Shape{m, k})), must(gpuarr.FromSlice(b64, gpuarr.Shape{k, n})))))
	for i := range want {
		assert.InDelta(t, 0, cmplx.Abs(want[i]-complex128(got64[i])), 1e-4, "complex64 [%d]", i)
	}

	// 16-bit floats: float32 accumulation, each result rounded once.
	ra, rb := make([]float64, m*k), make([]float64, k*n)
	for i := range ra {
		ra[i] = real(av[i])
	}
	for i := range rb {
		rb[i] = real(bv[i])
	}
	testHalfMatmul(t, ra, rb, m, k, n, gpuarr.ToFloat16[float64], gpuarr.Float16.Float64, 0x1p-10)
	testHalfMatmul(t, ra, rb, m, k, n, gpuarr.ToBFloat16[float64], gpuarr.BFloat16.Float64, 0x1p-7)
}

func testHalfMatmul[H gpuarr.Float16 | gpuarr.BFloat16](t *testing.T, ra, rb []float64, m, k, n int, from func(float64) H, to func(H) float64, ulp float64) {
	t.Helper()
	ha, hb := make([]H, len(ra)), make([]H, len(rb))
	wa, wb := make([]complex128, len(ra)), make([]complex128, len(rb))
	for i, x := range ra {
		ha[i] = from(x)
		wa[i] = complex(to(ha[i]), 0)
	}
	for i, x := range rb {
		hb[i] = from(x)
		wb[i] = complex(to(hb[i]), 0)
	}
	want := matmulRef(wa, wb, m, k, n)
	for i := range wa {
		wa[i] = complex(math.Abs(real(wa[i])), 0)
	}
	for i := range wb {
		wb[i] = complex(math.Abs(real(wb[i])), 0)
	}
	bound := matmulRef(wa, wb, m, k, n) // Σ|a||b|: float32 accumulation errs within k·2⁻²² of it (tensor cores may truncate)
	got := values(t, must(gpuarr.Matmul(must(gpuarr.FromSlice(ha, gpuarr.Shape{m, k})), must(gpuarr.FromSlice(hb, gpuarr.Shape{k, n})))))
	for i := range want {
		w := real(want[i])
		assert.InDelta(t, w, to(got[i]), ulp*math.Abs(w)+float64(k)*0x1p-22*real(bound[i]), "[%d]", i)
	}
}
