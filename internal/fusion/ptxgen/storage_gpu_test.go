package ptxgen

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gpuarr/gpuarr/device/dtype"
	"github.com/gpuarr/gpuarr/device/dtype/half"
	"github.com/gpuarr/gpuarr/internal/fusion/expr"
	"github.com/gpuarr/gpuarr/internal/fusion/hosteval"
)

// The storage types on a GPU (skipped on the host backend, whose
// evaluator package hosteval tests against the same references): the
// kernels' conversions of the 16-bit floats must agree bit for bit with
// package half, which the host uses.

// halfFormats are the 16-bit floats with their conversions in package half.
var halfFormats = []struct {
	t       dtype.DType
	toF32   func(uint16) float32
	fromF32 func(float32) uint16
	fromF64 func(float64) uint16
}{
	{dtype.Float16, half.F16ToF32, half.F32ToF16, half.F64ToF16},
	{dtype.BFloat16, half.BF16ToF32, half.F32ToBF16, half.F64ToBF16},
}

// halfSamples are float64 values around every value of a 16-bit format:
// the values, the ties between neighbours and points a float32 ulp and a
// hair (2⁻⁴⁰ relative) to each side of them, random points between,
// specials and random bit patterns; both signs.
func halfSamples(toF32 func(uint16) float32, last uint16, rng *rand.Rand) []float64 {
	var xs []float64
	for u := uint16(0); u < last; u++ {
		lo, hi := float64(toF32(u)), float64(toF32(u+1))
		mid := lo + (hi-lo)/2
		xs = append(xs, lo, mid, mid*(1+0x1p-40), mid*(1-0x1p-40), float64(math.Nextafter32(float32(mid), 0)),
			float64(math.Nextafter32(float32(mid), float32(math.Inf(1)))), lo+(hi-lo)*rng.Float64())
	}
	xs = append(xs, 0, math.Inf(1), math.NaN(), math.MaxFloat64, 1e-300, math.MaxFloat32, 0x1p-149, 0x1p-150, 0x1.8p-150)
	for range 100000 {
		xs = append(xs, math.Float64frombits(rng.Uint64()), float64(math.Float32frombits(rng.Uint32())))
	}
	n := len(xs)
	for i := range n {
		xs = append(xs, -xs[i])
	}
	return xs
}

func TestGPUHalfConversions(t *testing.T) {
	dev := cudaDevice(t)
	rng := rand.New(rand.NewPCG(27, 1))
	for _, f := range halfFormats {
		ht := f.t
		// Every bit pattern to float32 (exact), and back.
		all := make([]uint16, 1<<16)
		for i := range all {
			all[i] = uint16(i)
		}
		p := &expr.Program{Inputs: []expr.Input{mem(ht)}, Code: []expr.Instr{in(ht, 0), un(expr.OpCast, dtype.Float32, 0)}}
		out, _ := run(t, dev, p, launchSpec{inputs: [][]byte{bytesOf(all)}, n: 1 << 16, outLen: 4 << 16})
		for i, got := range fromBytes[float32](out) {
			want := f.toF32(uint16(i))
			if math.IsNaN(float64(want)) {
				require.True(t, math.IsNaN(float64(got)), "%s %#04x → float32: %v", ht, i, got)
				continue
			}
			require.Equal(t, math.Float32bits(want), math.Float32bits(got), "%s %#04x → float32", ht, i)
		}
		p = &expr.Program{Inputs: []expr.Input{mem(ht)}, Code: []expr.Instr{in(ht, 0), un(expr.OpCast, dtype.Float32, 0), un(expr.OpCast, ht, 1)}}
		out, _ = run(t, dev, p, launchSpec{inputs: [][]byte{bytesOf(all)}, n: 1 << 16, outLen: 2 << 16})
		for i, got := range fromBytes[uint16](out) {
			require.Equal(t, f.fromF32(f.toF32(uint16(i))), got, "%s %#04x → float32 → back", ht, i)
		}

		// float32 and float64 to the half: one rounding, ties to even.
		last := uint16(0x7C00)
		if ht == dtype.BFloat16 {
			last = 0x7F80
		}
		xs := halfSamples(f.toF32, last, rng)
		x32 := make([]float32, len(xs))
		for i, x := range xs {
			x32[i] = float32(x)
		}
		for _, from := range []dtype.DType{dtype.Float32, dtype.Float64} {
			p := &expr.Program{Inputs: []expr.Input{mem(from)}, Code: []expr.Instr{in(from, 0), un(expr.OpCast, ht, 0)}}
			data := bytesOf(xs)
			if from == dtype.Float32 {
				data = bytesOf(x32)
			}
			out, _ := run(t, dev, p, launchSpec{inputs: [][]byte{data}, n: uint64(len(xs)), outLen: 2 * len(xs), grid: 64})
			for i, got := range fromBytes[uint16](out) {
				want := f.fromF64(xs[i])
				if from == dtype.Float32 {
					want = f.fromF32(x32[i])
				}
				require.Equal(t, want, got, "%s from %s: %v (%#x)", ht, from, xs[i], math.Float64bits(xs[i]))
			}
		}
	}
}

func TestGPUStorageTypes(t *testing.T) {
	dev := cudaDevice(t)
	stubMath(t)

	t.Run("bool", func(t *testing.T) {
		// Any nonzero byte reads as true; stores are 0 or 1.
		a := []byte{0, 1, 2, 255, 0, 7, 1, 0}
		b := []byte{1, 1, 0, 9, 0, 0, 1, 1}
		p := &expr.Program{Inputs: []expr.Input{mem(dtype.Bool), mem(dtype.Bool)},
			Code: []expr.Instr{in(dtype.Bool, 0), in(dtype.Bool, 1), bin(expr.OpAnd, dtype.Bool, 0, 1), un(expr.OpNot, dtype.Bool, 0),
				bin(expr.OpOr, dtype.Bool, 2, 3)}}
		out, _ := run(t, dev, p, launchSpec{inputs: [][]byte{a, b}, n: 8, outLen: 8})
		for i := range a {
			want := byte(0)
			if a[i] != 0 && b[i] != 0 || a[i] == 0 {
				want = 1
			}
			assert.Equal(t, want, out[i], "%d, %d", a[i], b[i])
		}
		xs := []float32{1, 2, float32(math.NaN()), -1}
		ys := []float32{2, 2, 0, -2}
		out, _ = run(t, dev, storagePrograms()["bool_store"], launchSpec{inputs: [][]byte{bytesOf(xs), bytesOf(ys)}, n: 4, outLen: 4})
		assert.Equal(t, []byte{1, 0, 0, 0}, out)
		// Max (any) and Min (all) by groups, written as bools.
		g := []byte{0, 0, 0, 5, 0, 1, 1, 1, 1}
		for _, r := range []expr.ReduceOp{expr.Max, expr.Min} {
			q := &expr.Program{Inputs: []expr.Input{mem(dtype.Bool)}, Reduce: r, ArgIndex: -1, Result: dtype.Bool,
				Code: []expr.Instr{in(dtype.Bool, 0), un(expr.OpCast, dtype.Uint8, 0)}}
			out, _ := run(t, dev, q, launchSpec{inputs: [][]byte{g}, groups: 3, glen: 3, bpg: 1, outLen: 3})
			want := map[expr.ReduceOp][]byte{expr.Max: {0, 1, 1}, expr.Min: {0, 0, 1}}[r]
			assert.Equal(t, want, out, "%s", r)
		}
	})

	t.Run("half_arithmetic", func(t *testing.T) {
		// (a + b)·a in float32, each result rounded to the half.
		rng := rand.New(rand.NewPCG(5, 6))
		for _, f := range halfFormats {
			const n = 5000
			a, b := make([]uint16, n), make([]uint16, n)
			for i := range a {
				a[i], b[i] = f.fromF32(float32(rng.NormFloat64()*100)), f.fromF32(float32(rng.NormFloat64()))
			}
			out, _ := run(t, dev, storagePrograms()["half_add_"+f.t.String()], launchSpec{inputs: [][]byte{bytesOf(a), bytesOf(b)}, n: n, outLen: 2 * n})
			for i, got := range fromBytes[uint16](out) {
				s := f.fromF32(f.toF32(a[i]) + f.toF32(b[i]))
				want := f.fromF32(f.toF32(s) * f.toF32(a[i]))
				require.Equal(t, want, got, "%s: (%v + %v)·%v", f.t, f.toF32(a[i]), f.toF32(b[i]), f.toF32(a[i]))
			}
			// Sum and Max over a group, written as the half.
			for _, r := range []expr.ReduceOp{expr.Sum, expr.Max} {
				q := &expr.Program{Inputs: []expr.Input{mem(f.t)}, Reduce: r, ArgIndex: -1, Result: f.t,
					Code: []expr.Instr{in(f.t, 0), un(expr.OpCast, dtype.Float32, 0)}}
				out, _ := run(t, dev, q, launchSpec{inputs: [][]byte{bytesOf(a)}, groups: 1, glen: n, bpg: 1, outLen: 2})
				var sum float64
				mx := math.Inf(-1)
				for _, x := range a {
					sum += float64(f.toF32(x))
					mx = max(mx, float64(f.toF32(x)))
				}
				want := f.fromF64(sum)
				if r == expr.Max {
					want = f.fromF64(mx)
				}
				got := fromBytes[uint16](out)[0]
				if r == expr.Sum { // float64 sums in another order: within one half ulp step
					assert.InDelta(t, float64(f.toF32(want)), float64(f.toF32(got)), math.Abs(float64(f.toF32(want)))*0x1p-7, "%s sum", f.t)
				} else {
					assert.Equal(t, want, got, "%s max", f.t)
				}
			}
		}
	})

	t.Run("complex", func(t *testing.T) {
		rng := rand.New(rand.NewPCG(7, 8))
		const n = 777
		a, b := make([]complex64, n), make([]complex64, n)
		for i := range a {
			a[i] = complex(float32(rng.NormFloat64()), float32(rng.NormFloat64()))
			b[i] = complex(float32(rng.NormFloat64()), float32(rng.NormFloat64()))
		}
		a[3], b[4] = complex(float32(math.Inf(1)), 1), complex(float32(math.NaN()), 0)
		mul := func(x, y complex64) complex64 {
			xr, xi, yr, yi := real(x), imag(x), real(y), imag(y)
			return complex(float32(xr*yr)-float32(xi*yi), float32(xr*yi)+float32(xi*yr))
		}
		// b read as a strided input.
		p := storagePrograms()["complex_mul_complex64"]
		rb := make([]complex64, n)
		for i := range rb {
			rb[i] = b[n-1-i]
		}
		out, _ := run(t, dev, p, launchSpec{inputs: [][]byte{bytesOf(a), bytesOf(rb)}, dims: []uint64{n},
			strides: [][]int64{nil, {1}}, n: n, outLen: 8 * n})
		for i, got := range fromBytes[complex64](out) {
			want := mul(a[i], rb[i])
			assertSameComplex(t, complex128(want), complex128(got), "%v·%v", a[i], rb[i])
		}
		// Sum, Prod and Mean of the products, one stage and over partials.
		for _, r := range []expr.ReduceOp{expr.Sum, expr.Mean, expr.Prod} {
			q := *p
			q.Reduce, q.ArgIndex = r, -1
			small, other := a, rb
			if r == expr.Prod { // factors near 1, so that the product stays in range
				small, other = make([]complex64, n), make([]complex64, n)
				for i := range small {
					small[i] = 1 + complex(float32(rng.Float64()-0.5), float32(rng.Float64()-0.5))*0.01
					other[i] = 1 + complex(float32(rng.Float64()-0.5), float32(rng.Float64()-0.5))*0.01
				}
			}
			var acc complex128
			if r == expr.Prod {
				acc = 1
			}
			for i := range small {
				v := complex128(mul(small[i], other[i]))
				if r == expr.Prod {
					acc *= v
				} else {
					acc += v
				}
			}
			if r == expr.Mean {
				acc /= n
			}
			for _, bpg := range []uint64{1, 5} {
				if bpg == 1 {
					q.Stage = expr.Final
					out, _ := run(t, dev, &q, launchSpec{inputs: [][]byte{bytesOf(small), bytesOf(other)}, dims: []uint64{n},
						strides: [][]int64{nil, {1}}, groups: 1, glen: n, bpg: 1, outLen: 8})
					got := complex128(fromBytes[complex64](out)[0])
					assert.InDelta(t, real(acc), real(got), 1e-4*(1+math.Abs(real(acc))), "%s real", r)
					assert.InDelta(t, imag(acc), imag(got), 1e-4*(1+math.Abs(imag(acc))), "%s imag", r)
					continue
				}
				q.Stage = expr.Partial
				out, _ := run(t, dev, &q, launchSpec{inputs: [][]byte{bytesOf(small), bytesOf(other)}, dims: []uint64{n},
					strides: [][]int64{nil, {1}}, groups: 1, glen: n, bpg: bpg, outLen: 16 * int(bpg)})
				parts := fromBytes[complex128](out)
				var got complex128
				if r == expr.Prod {
					got = 1
				}
				for _, x := range parts {
					if r == expr.Prod {
						got *= x
					} else {
						got += x
					}
				}
				if r == expr.Mean {
					got /= n
				}
				assert.InDelta(t, real(acc), real(got), 1e-9*(1+math.Abs(real(acc))), "%s partials real", r)
				assert.InDelta(t, imag(acc), imag(got), 1e-9*(1+math.Abs(imag(acc))), "%s partials imag", r)
			}
		}
		// A complex128 copy through a transposed view: v2.f64 loads and stores.
		z := make([]complex128, 6)
		for i := range z {
			z[i] = complex(float64(i), -float64(i)/3)
		}
		out, _ = run(t, dev, storagePrograms()["complex_copy_complex128"], launchSpec{inputs: [][]byte{bytesOf(z)}, dims: []uint64{3, 2},
			strides: [][]int64{{1, 3}}, n: 6, outLen: 96})
		got := fromBytes[complex128](out)
		for i := range 3 {
			for j := range 2 {
				assert.Equal(t, z[j*3+i], got[i*2+j], "[%d,%d]", i, j)
			}
		}
	})
}

// The representative storage programs are ones the host runs too.
func TestStorageProgramsOnHost(t *testing.T) {
	for name, p := range storagePrograms() {
		assert.NoError(t, hosteval.Check(p), name)
	}
}

// assertSameComplex compares two complex numbers bit for bit, NaN parts
// as NaN.
func assertSameComplex(t *testing.T, want, got complex128, format string, args ...any) {
	t.Helper()
	msg := fmt.Sprintf(format, args...)
	for _, p := range [][2]float64{{real(want), real(got)}, {imag(want), imag(got)}} {
		if math.IsNaN(p[0]) {
			assert.True(t, math.IsNaN(p[1]), msg)
			continue
		}
		assert.Equal(t, math.Float64bits(p[0]), math.Float64bits(p[1]), msg)
	}
}
