package numpytest_test

import (
	"encoding/binary"
	"math"
	"math/big"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Element formats: how the runner reads an element type's bytes when it
// compares results. This table knows every type the goldens name, whether
// or not gpuarr stores it yet (the interpreter's types table says that).

type kind uint8

const (
	kindBool kind = iota
	kindSigned
	kindUnsigned
	kindFloat
	kindComplex
)

type format struct {
	size int
	kind kind
	// real floats: precision in bits (with the hidden bit), least normal
	// and greatest exponents; complex: the part's format name
	prec, emin, emax int
	part             string
}

var formats = map[string]format{
	"bool":       {size: 1, kind: kindBool},
	"int8":       {size: 1, kind: kindSigned},
	"int16":      {size: 2, kind: kindSigned},
	"int32":      {size: 4, kind: kindSigned},
	"int64":      {size: 8, kind: kindSigned},
	"uint8":      {size: 1, kind: kindUnsigned},
	"uint16":     {size: 2, kind: kindUnsigned},
	"uint32":     {size: 4, kind: kindUnsigned},
	"uint64":     {size: 8, kind: kindUnsigned},
	"float16":    {size: 2, kind: kindFloat, prec: 11, emin: -14, emax: 15},
	"bfloat16":   {size: 2, kind: kindFloat, prec: 8, emin: -126, emax: 127},
	"float32":    {size: 4, kind: kindFloat, prec: 24, emin: -126, emax: 127},
	"float64":    {size: 8, kind: kindFloat, prec: 53, emin: -1022, emax: 1023},
	"complex64":  {size: 8, kind: kindComplex, part: "float32"},
	"complex128": {size: 16, kind: kindComplex, part: "float64"},
}

// eps is the distance from 1 to the next value of a real float format.
func (f format) eps() float64 { return math.Ldexp(1, 1-f.prec) }

// ulp is the spacing of the format's values at |x| (the least subnormal
// at and below the least normal's spacing).
func (f format) ulp(x float64) float64 {
	x = math.Abs(x)
	if x == 0 {
		return math.Ldexp(1, f.emin-f.prec+1)
	}
	if math.IsInf(x, 0) || math.IsNaN(x) {
		x = math.Ldexp(2-f.eps(), f.emax)
	}
	_, e := math.Frexp(x) // x = m·2^e, m in [0.5, 1)
	return math.Ldexp(1, max(e-1, f.emin)-f.prec+1)
}

// bits is element i's raw bits (up to 8 bytes).
func bitsAt(raw []byte, size, i int) uint64 {
	b := raw[i*size : (i+1)*size]
	switch size {
	case 1:
		return uint64(b[0])
	case 2:
		return uint64(binary.LittleEndian.Uint16(b))
	case 4:
		return uint64(binary.LittleEndian.Uint32(b))
	default:
		return binary.LittleEndian.Uint64(b)
	}
}

// float decodes a real float element to float64 (exactly).
func (f format) float(raw []byte, i int) float64 {
	b := bitsAt(raw, f.size, i)
	switch f.size {
	case 8:
		return math.Float64frombits(b)
	case 4:
		return float64(math.Float32frombits(uint32(b)))
	}
	if f.prec == 8 { // bfloat16: the top half of a float32
		return float64(math.Float32frombits(uint32(b) << 16))
	}
	return halfToFloat(uint16(b))
}

func halfToFloat(h uint16) float64 {
	sign := 1.0
	if h&0x8000 != 0 {
		sign = -1
	}
	e := int(h>>10) & 0x1f
	m := float64(h & 0x3ff)
	switch e {
	case 0:
		return sign * math.Ldexp(m, -24)
	case 0x1f:
		if m != 0 {
			return math.NaN()
		}
		return math.Inf(int(sign))
	}
	return sign * math.Ldexp(1+m/1024, e-15)
}

// ordered maps a float's bits to an integer that counts representable
// values: neighbours differ by 1, −0 and +0 are both 0.
func (f format) ordered(raw []byte, i int) int64 {
	b := bitsAt(raw, f.size, i)
	sign := uint64(1) << (8*f.size - 1)
	if b&sign != 0 {
		return -int64(b &^ sign)
	}
	return int64(b)
}

// integer decodes an integer element exactly.
func (f format) integer(raw []byte, i int) *big.Int {
	b := bitsAt(raw, f.size, i)
	if f.kind == kindSigned {
		shift := 64 - 8*f.size
		return big.NewInt(int64(b<<shift) >> shift)
	}
	return new(big.Int).SetUint64(b)
}

// signbit reports whether a float element's sign bit is set.
func (f format) signbit(raw []byte, i int) bool {
	return bitsAt(raw, f.size, i)>>(8*f.size-1) != 0
}

// TestFormats: the decoding and ulp arithmetic the comparisons rest on.
func TestFormats(t *testing.T) {
	f16, bf16, f32 := formats["float16"], formats["bfloat16"], formats["float32"]
	for _, c := range []struct {
		bits uint16
		want float64
	}{{0x3c00, 1}, {0xc000, -2}, {0x7bff, 65504}, {0x0001, 0x1p-24}, {0x0400, 0x1p-14}, {0x7c00, math.Inf(1)}, {0x8000, 0}} {
		assert.Equal(t, c.want, f16.float([]byte{byte(c.bits), byte(c.bits >> 8)}, 0), "float16 %#04x", c.bits)
	}
	assert.True(t, math.IsNaN(f16.float([]byte{0x01, 0x7c}, 0)))
	assert.Equal(t, 1.0078125, bf16.float([]byte{0x81, 0x3f}, 0), "bfloat16 0x3f81")

	assert.Equal(t, 0x1p-23, f32.ulp(1))
	assert.Equal(t, 0x1p-24, f32.ulp(0.75))
	assert.Equal(t, 0x1p-149, f32.ulp(0))
	assert.Equal(t, 0x1p-149, f32.ulp(1e-40))
	assert.Equal(t, 0x1p-10, f16.ulp(1.5))

	raw := func(vs ...float32) []byte { return asBytes(vs) }
	negZero := float32(math.Copysign(0, -1))
	b := raw(1, math.Nextafter32(1, 2), negZero, 0, float32(math.Inf(1)), math.MaxFloat32, -math.SmallestNonzeroFloat32)
	assert.Equal(t, int64(1), f32.ordered(b, 1)-f32.ordered(b, 0))
	assert.Equal(t, f32.ordered(b, 2), f32.ordered(b, 3), "−0 and +0")
	assert.Equal(t, int64(1), f32.ordered(b, 4)-f32.ordered(b, 5), "+Inf follows MaxFloat32")
	assert.Equal(t, int64(-1), f32.ordered(b, 6), "the least negative subnormal")
	assert.True(t, f32.signbit(b, 2))

	i8 := formats["int8"]
	assert.Equal(t, int64(-128), i8.integer([]byte{0x80}, 0).Int64())
	u16 := formats["uint16"]
	assert.Equal(t, int64(65535), u16.integer([]byte{0xff, 0xff}, 0).Int64())
}

// TestGenerated: the SplitMix64 stream and the generated values match
// gen/numerics.py's (SplitMix64's published first outputs for seed 0).
func TestGenerated(t *testing.T) {
	assert.Equal(t, []uint64{0xe220a8397b1dcdaf, 0x6e789e6aa1b965f4, 0x06c45d188009454f}, splitmix64(0, 3))
	g := genSpec{Seed: 0, Lo: "-2", Hi: "2"}
	raw, err := g.generate("float64", 1)
	require.NoError(t, err)
	want := -2 + 4*(float64(uint64(0xe220a8397b1dcdaf)>>11)*0x1p-53)
	assert.Equal(t, want, formats["float64"].float(raw, 0))
	g = genSpec{Seed: 0, Lo: "-128", Hi: "127"}
	raw, err = g.generate("int8", 1)
	require.NoError(t, err)
	assert.Equal(t, int64(-128+int(uint64(0xe220a8397b1dcdaf)%256)), formats["int8"].integer(raw, 0).Int64())
}
