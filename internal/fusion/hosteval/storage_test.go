package hosteval

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gpuarr/gpuarr/device/dtype"
	"github.com/gpuarr/gpuarr/device/dtype/half"
	"github.com/gpuarr/gpuarr/internal/fusion/expr"
)

// The storage types (expr.Storage) and bools on the host evaluator:
// loads, stores, conversions and reductions against Go references.

func TestBoolArrays(t *testing.T) {
	dev := hostDevice(t)
	// Any nonzero byte is true, contiguous or strided; stores are 0 or 1.
	raw := []uint8{0, 1, 2, 255, 0, 7, 1, 0}
	for _, strided := range []bool{false, true} {
		p := elementwise([]expr.Instr{input(0, dtype.Bool), un(expr.OpNot, dtype.Bool, 0), un(expr.OpNot, dtype.Bool, 1)},
			[]expr.Input{{T: dtype.Bool, Strided: strided}})
		c := call{n: 8, ins: []inArg{{ptr: upload(t, dev, raw)}}}
		if strided {
			p.Rank, c.dims, c.ins[0].strides = 1, []uint64{8}, []int64{1}
		}
		c.out = alloc[uint8](t, dev, 8)
		require.NoError(t, run(t, dev, p, c))
		assert.Equal(t, []uint8{0, 1, 1, 1, 0, 1, 1, 0}, download[uint8](t, dev, c.out, 8), "strided %v", strided)
	}
	// A copy of a bool array normalizes too (the program is its input alone).
	p := elementwise([]expr.Instr{input(0, dtype.Bool)}, contiguous(dtype.Bool, 1))
	c := call{n: 8, out: alloc[uint8](t, dev, 8), ins: []inArg{{ptr: upload(t, dev, raw)}}}
	require.NoError(t, run(t, dev, p, c))
	assert.Equal(t, []uint8{0, 1, 1, 1, 0, 1, 1, 0}, download[uint8](t, dev, c.out, 8))

	// Max (any) and Min (all) as bools, by groups, in one stage and over
	// partials.
	g := []uint8{0, 0, 0, 5, 0, 1, 1, 1, 1}
	for _, r := range []expr.ReduceOp{expr.Max, expr.Min} {
		want := map[expr.ReduceOp][]uint8{expr.Max: {0, 1, 1}, expr.Min: {0, 0, 1}}[r]
		p := &expr.Program{Code: []expr.Instr{input(0, dtype.Bool), un(expr.OpCast, dtype.Uint8, 0)}, Inputs: contiguous(dtype.Bool, 1),
			Reduce: r, ArgIndex: -1, Result: dtype.Bool}
		c := call{out: alloc[uint8](t, dev, 3), groups: 3, glen: 3, bpg: 1, count: 3, ins: []inArg{{ptr: upload(t, dev, g)}}}
		require.NoError(t, run(t, dev, p, c))
		assert.Equal(t, want, download[uint8](t, dev, c.out, 3), "%s", r)

		part := *p
		part.Stage, part.Result = expr.Partial, 0
		c.out, c.bpg = alloc[uint8](t, dev, 6), 2
		require.NoError(t, run(t, dev, &part, c))
		parts := download[uint8](t, dev, c.out, 6)
		fin := &expr.Program{Code: []expr.Instr{input(0, dtype.Uint8)}, Inputs: contiguous(dtype.Uint8, 1), Reduce: r, ArgIndex: -1, Result: dtype.Bool}
		c = call{out: alloc[uint8](t, dev, 3), groups: 3, glen: 2, bpg: 1, count: 3, ins: []inArg{{ptr: upload(t, dev, parts)}}}
		require.NoError(t, run(t, dev, fin, c))
		assert.Equal(t, want, download[uint8](t, dev, c.out, 3), "%s over partials", r)
	}
}

func TestHalfArrays(t *testing.T) {
	dev := hostDevice(t)
	rng := rand.New(rand.NewPCG(3, 4))
	for _, f := range []struct {
		t       dtype.DType
		toF32   func(uint16) float32
		fromF32 func(float32) uint16
		fromF64 func(float64) uint16
	}{
		{dtype.Float16, half.F16ToF32, half.F32ToF16, half.F64ToF16},
		{dtype.BFloat16, half.BF16ToF32, half.F32ToBF16, half.F64ToBF16},
	} {
		ht, f32 := f.t, dtype.Float32
		const n = 3000
		a, b := make([]uint16, n), make([]uint16, n)
		for i := range a {
			a[i], b[i] = f.fromF32(float32(rng.NormFloat64()*50)), f.fromF32(float32(rng.NormFloat64()))
		}
		a[0], a[1] = half.NaN16, 0x8000 // NaN, -0
		// (a + b)·a, rounding each result to the half.
		p := elementwise([]expr.Instr{input(0, ht), input(1, ht), un(expr.OpCast, f32, 0), un(expr.OpCast, f32, 1), bin(expr.OpAdd, f32, 2, 3),
			un(expr.OpCast, ht, 4), un(expr.OpCast, f32, 5), bin(expr.OpMul, f32, 6, 2), un(expr.OpCast, ht, 7)}, contiguous(ht, 2))
		c := call{n: n, out: alloc[uint16](t, dev, n), ins: []inArg{{ptr: upload(t, dev, a)}, {ptr: upload(t, dev, b)}}}
		require.NoError(t, run(t, dev, p, c))
		for i, got := range download[uint16](t, dev, c.out, n) {
			s := f.fromF32(f.toF32(a[i]) + f.toF32(b[i]))
			require.Equal(t, f.fromF32(f.toF32(s)*f.toF32(a[i])), got, "%s %d", ht, i)
		}
		// float64 to the half: one rounding (not through float32).
		x := []float64{1 + 0x1p-11 + 0x1p-40, 1 + 0x1p-8 + 0x1p-40, 1e300, -1e-300, math.NaN(), 65519.99, 0x1p-25}
		p = elementwise([]expr.Instr{input(0, dtype.Float64), un(expr.OpCast, ht, 0)}, contiguous(dtype.Float64, 1))
		c = call{n: uint64(len(x)), out: alloc[uint16](t, dev, len(x)), ins: []inArg{{ptr: upload(t, dev, x)}}}
		require.NoError(t, run(t, dev, p, c))
		for i, got := range download[uint16](t, dev, c.out, len(x)) {
			assert.Equal(t, f.fromF64(x[i]), got, "%s ← %v", ht, x[i])
		}
		// Sum, Mean and Max of halves, reduced in float32 values and
		// written as the half (Sum and Mean from the float64 total).
		for _, r := range []expr.ReduceOp{expr.Sum, expr.Mean, expr.Max} {
			p := &expr.Program{Code: []expr.Instr{input(0, ht), un(expr.OpCast, f32, 0)}, Inputs: contiguous(ht, 1), Reduce: r,
				ArgIndex: -1, Result: ht}
			c := call{out: alloc[uint16](t, dev, 1), groups: 1, glen: n - 2, bpg: 1, count: n - 2, ins: []inArg{{ptr: upload(t, dev, a[2:])}}}
			require.NoError(t, run(t, dev, p, c))
			var sum float64
			mx := math.Inf(-1)
			for _, v := range a[2:] {
				sum += float64(f.toF32(v))
				mx = max(mx, float64(f.toF32(v)))
			}
			want := map[expr.ReduceOp]float64{expr.Sum: sum, expr.Mean: sum / (n - 2), expr.Max: mx}[r]
			got := f.toF32(download[uint16](t, dev, c.out, 1)[0])
			assert.InDelta(t, float64(f.toF32(f.fromF64(want))), float64(got), math.Abs(want)*0x1p-7, "%s %s", ht, r)
		}
	}
}

func TestComplexArrays(t *testing.T) {
	dev := hostDevice(t)
	rng := rand.New(rand.NewPCG(5, 6))
	const n = 2500
	z := make([]complex128, n)
	for i := range z {
		z[i] = complex(rng.NormFloat64(), rng.NormFloat64())
	}
	c128, f64 := dtype.Complex128, dtype.Float64
	// Parts, joined again in another order: conj(z)·i = imag + real·i.
	p := elementwise([]expr.Instr{input(0, c128), un(expr.OpReal, f64, 0), un(expr.OpImag, f64, 0), bin(expr.OpComplex, c128, 2, 1)},
		contiguous(c128, 1))
	c := call{n: n, out: alloc[complex128](t, dev, n), ins: []inArg{{ptr: upload(t, dev, z)}}}
	require.NoError(t, run(t, dev, p, c))
	for i, got := range download[complex128](t, dev, c.out, n) {
		require.Equal(t, complex(imag(z[i]), real(z[i])), got)
	}
	// A strided (reversed) complex copy: 16-byte gathers.
	p = &expr.Program{Code: []expr.Instr{input(0, c128)}, Inputs: []expr.Input{{T: c128, Strided: true}}, Rank: 1, ArgIndex: -1}
	c = call{n: n, out: alloc[complex128](t, dev, n), dims: []uint64{n}, ins: []inArg{{ptr: upload(t, dev, z), strides: []int64{-1}}}}
	c.ins[0].ptr += 16 * (n - 1)
	require.NoError(t, run(t, dev, p, c))
	for i, got := range download[complex128](t, dev, c.out, n) {
		require.Equal(t, z[n-1-i], got)
	}
	// complex64 to complex128 and back: each part converted.
	p = elementwise([]expr.Instr{input(0, c128), un(expr.OpCast, dtype.Complex64, 0)}, contiguous(c128, 1))
	c = call{n: n, out: alloc[complex64](t, dev, n), ins: []inArg{{ptr: upload(t, dev, z)}}}
	require.NoError(t, run(t, dev, p, c))
	for i, got := range download[complex64](t, dev, c.out, n) {
		require.Equal(t, complex64(z[i]), got)
	}
	// Sum, Prod and Mean, in one stage and over partials (complex128
	// partials), into complex64.
	near1 := make([]complex128, n)
	for i := range near1 {
		near1[i] = 1 + complex(rng.Float64()-0.5, rng.Float64()-0.5)*0.01
	}
	for _, r := range []expr.ReduceOp{expr.Sum, expr.Prod, expr.Mean} {
		vals := z
		if r == expr.Prod {
			vals = near1
		}
		want := complex128(0)
		if r == expr.Prod {
			want = 1
		}
		for _, v := range vals {
			if r == expr.Prod {
				want *= v
			} else {
				want += v
			}
		}
		if r == expr.Mean {
			want /= n
		}
		p := &expr.Program{Code: []expr.Instr{input(0, c128)}, Inputs: contiguous(c128, 1), Reduce: r, ArgIndex: -1, Result: dtype.Complex64}
		c := call{out: alloc[complex64](t, dev, 1), groups: 1, glen: n, bpg: 1, count: n, ins: []inArg{{ptr: upload(t, dev, vals)}}}
		require.NoError(t, run(t, dev, p, c))
		got := download[complex64](t, dev, c.out, 1)[0]
		assert.InDelta(t, real(want), float64(real(got)), 1e-6*(1+math.Abs(real(want))), "%s", r)
		assert.InDelta(t, imag(want), float64(imag(got)), 1e-6*(1+math.Abs(imag(want))), "%s", r)

		part := *p
		part.Stage, part.Result = expr.Partial, 0
		c.out, c.bpg = alloc[complex128](t, dev, 4), 4
		require.NoError(t, run(t, dev, &part, c))
		parts := download[complex128](t, dev, c.out, 4)
		fin := *p
		c = call{out: alloc[complex64](t, dev, 1), groups: 1, glen: 4, bpg: 1, count: n, ins: []inArg{{ptr: upload(t, dev, parts)}}}
		require.NoError(t, run(t, dev, &fin, c))
		got = download[complex64](t, dev, c.out, 1)[0]
		assert.InDelta(t, real(want), float64(real(got)), 1e-6*(1+math.Abs(real(want))), "%s over partials", r)
		assert.InDelta(t, imag(want), float64(imag(got)), 1e-6*(1+math.Abs(imag(want))), "%s over partials", r)
	}
}
