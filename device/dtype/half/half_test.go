package half_test

import (
	"math"
	"math/rand/v2"
	"sort"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gpuarr/gpuarr/device/dtype/half"
)

// format describes one 16-bit format by its fields, independently of the
// package: the reference decodes bits with math.Ldexp and rounds by
// searching the sorted list of every finite value.
type format struct {
	name      string
	fracBits  uint
	bias      int
	toF32     func(uint16) float32
	fromF32   func(float32) uint16
	fromF64   func(float64) uint16
	expMask   uint16
	values    []float64 // every finite value ≥ 0, ascending
	bitsOf    []uint16  // their bits
	maxFinite float64
	infBits   uint16
}

func newFormat(name string, fracBits uint, bias int, toF32 func(uint16) float32, fromF32 func(float32) uint16, fromF64 func(float64) uint16) *format {
	f := &format{name: name, fracBits: fracBits, bias: bias, toF32: toF32, fromF32: fromF32, fromF64: fromF64}
	f.expMask = uint16(0x7FFF) &^ (1<<fracBits - 1)
	f.infBits = f.expMask
	for b := uint16(0); b < f.infBits; b++ {
		f.values = append(f.values, f.decode(b))
		f.bitsOf = append(f.bitsOf, b)
	}
	f.maxFinite = f.values[len(f.values)-1]
	return f
}

// decode is the value of bits b (finite, non-negative) by the format's
// definition.
func (f *format) decode(b uint16) float64 {
	exp := int(b&f.expMask) >> f.fracBits
	frac := float64(b & (1<<f.fracBits - 1))
	if exp == 0 {
		return math.Ldexp(frac, 1-f.bias-int(f.fracBits))
	}
	return math.Ldexp(1+math.Ldexp(frac, -int(f.fracBits)), exp-f.bias)
}

// round is the reference rounding: the nearest finite value, ties to the
// even bit pattern, ±Inf from the largest value plus half an ulp on,
// NaN as the canonical NaN.
func (f *format) round(x float64) uint16 {
	if math.IsNaN(x) {
		return half.NaN16
	}
	sign := uint16(0)
	if math.Signbit(x) {
		sign = 0x8000
	}
	a := math.Abs(x)
	n := len(f.values)
	if a > f.maxFinite {
		ulp := f.maxFinite - f.values[n-2]
		if a >= f.maxFinite+ulp/2 {
			return sign | f.infBits
		}
		return sign | f.bitsOf[n-1]
	}
	i := sort.SearchFloat64s(f.values, a) // values[i] ≥ a
	if f.values[i] == a || i == 0 {
		return sign | f.bitsOf[i]
	}
	lo, hi := f.values[i-1], f.values[i]
	switch dl, dh := a-lo, hi-a; {
	case dl < dh:
		return sign | f.bitsOf[i-1]
	case dh < dl:
		return sign | f.bitsOf[i]
	case f.bitsOf[i-1]%2 == 0:
		return sign | f.bitsOf[i-1]
	}
	return sign | f.bitsOf[i]
}

func formats() []*format {
	return []*format{
		newFormat("float16", 10, 15, half.F16ToF32, half.F32ToF16, half.F64ToF16),
		newFormat("bfloat16", 7, 127, half.BF16ToF32, half.F32ToBF16, half.F64ToBF16),
	}
}

// TestEveryBitPattern converts all 65536 bit patterns of each type to
// float32 (exactly, as the definition decodes them) and back (to the same
// bits), and to float64 and back.
func TestEveryBitPattern(t *testing.T) {
	for _, f := range formats() {
		for u := 0; u < 1<<16; u++ {
			b := uint16(u)
			v := f.toF32(b)
			abs := b & 0x7FFF
			if abs > f.infBits {
				require.True(t, math.IsNaN(float64(v)), "%s %#04x: NaN", f.name, b)
				require.Equal(t, uint16(half.NaN16), f.fromF32(v), "%s %#04x: NaN → canonical NaN", f.name, b)
				require.Equal(t, uint16(half.NaN16), f.fromF64(float64(v)), "%s %#04x: NaN → canonical NaN", f.name, b)
				continue
			}
			want := math.Inf(1)
			if abs < f.infBits {
				want = f.decode(abs)
			}
			if b&0x8000 != 0 {
				want = -want
			}
			require.Equal(t, math.Float64bits(want), math.Float64bits(float64(v)), "%s %#04x decodes to %g, want %g", f.name, b, v, want)
			require.Equal(t, b, f.fromF32(v), "%s %#04x → float32 → back", f.name, b)
			require.Equal(t, b, f.fromF64(float64(v)), "%s %#04x → float64 → back", f.name, b)
		}
	}
}

// TestRoundingMatchesReference rounds float32 and float64 values to each
// type and compares with the reference: every midpoint between
// neighbouring values (ties), a float ulp on each side of it, random
// values in each interval, the overflow threshold, subnormals of the
// source and the target, zeros, infinities and NaNs.
func TestRoundingMatchesReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(27, 16))
	for _, f := range formats() {
		var xs []float64
		vals := append(append([]float64(nil), f.values...), f.maxFinite+(f.maxFinite-f.values[len(f.values)-2]))
		for i := 0; i+1 < len(vals); i++ {
			lo, hi := vals[i], vals[i+1]
			mid := lo + (hi-lo)/2
			xs = append(xs, lo, mid, math.Nextafter(mid, 0), math.Nextafter(mid, math.Inf(1)),
				float64(math.Nextafter32(float32(mid), 0)), float64(math.Nextafter32(float32(mid), float32(math.Inf(1)))),
				lo+(hi-lo)*rng.Float64())
		}
		xs = append(xs, 0, math.Inf(1), math.NaN(), math.MaxFloat64, math.SmallestNonzeroFloat64,
			math.MaxFloat32, math.SmallestNonzeroFloat32, 1e-300, 1e300, 0x1p-126, 0x1p-149, 0x1p-150, 0x1.8p-150)
		for range 200000 {
			xs = append(xs, math.Float64frombits(rng.Uint64()), float64(math.Float32frombits(rng.Uint32())))
		}
		for _, x := range xs {
			for _, s := range []float64{1, -1} {
				x := s * x
				require.Equal(t, f.round(x), f.fromF64(x), "%s: float64 %v (%#x)", f.name, x, math.Float64bits(x))
				x32 := float32(x)
				require.Equal(t, f.round(float64(x32)), f.fromF32(x32), "%s: float32 %v (%#x)", f.name, x32, math.Float32bits(x32))
			}
		}
	}
}

func TestTypes(t *testing.T) {
	h := half.ToFloat16(1.5)
	assert.Equal(t, uint16(0x3E00), h.Bits())
	assert.Equal(t, float32(1.5), h.Float32())
	assert.Equal(t, 1.5, h.Float64())
	assert.Equal(t, h, half.ToFloat16(float32(1.5)))
	assert.Equal(t, h, half.Float16FromBits(0x3E00))
	assert.Equal(t, "1.5", h.String())
	assert.Equal(t, "0.1", half.ToFloat16(0.1).String(), "the shortest decimal that rounds back, as NumPy prints")
	assert.Equal(t, float32(0.0999755859375), half.ToFloat16(0.1).Float32())
	assert.Equal(t, "65500", half.ToFloat16(65504.0).String())
	assert.Equal(t, "+Inf", half.ToFloat16(65520.0).String())
	assert.Equal(t, "NaN", half.ToFloat16(math.NaN()).String())
	assert.True(t, half.ToFloat16(math.NaN()).IsNaN())
	assert.False(t, half.ToFloat16(math.Inf(-1)).IsNaN())

	b := half.ToBFloat16(3.0)
	assert.Equal(t, uint16(0x4040), b.Bits())
	assert.Equal(t, float32(3), b.Float32())
	assert.Equal(t, "3", b.String())
	assert.Equal(t, "0.1", half.ToBFloat16(0.1).String())
	assert.Equal(t, float32(0.10009765625), half.ToBFloat16(0.1).Float32())
	assert.True(t, half.ToBFloat16(math.NaN()).IsNaN())
	assert.Equal(t, half.BFloat16FromBits(0x7F80), half.ToBFloat16(1e39), "beyond float32's range: Inf")
	assert.Equal(t, uint16(0x8000), half.ToBFloat16(-1e-60).Bits(), "underflow keeps the sign")

	// A float64 rounds once: 1 + 2⁻¹¹ + 2⁻⁴⁰ is just above a float16 tie,
	// but rounds to the tie in float32 (which then goes to even, down).
	x := 1 + 0x1p-11 + 0x1p-40
	assert.Equal(t, uint16(0x3C01), half.ToFloat16(x).Bits())
	assert.Equal(t, uint16(0x3C00), half.ToFloat16(float32(x)).Bits())
}
