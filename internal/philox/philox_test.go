package philox

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Random123's kat_vectors for philox4x32 with 10 rounds.
func TestPhilox4x32KnownAnswers(t *testing.T) {
	tests := []struct {
		name string
		ctr  [4]uint32
		key  [2]uint32
		want [4]uint32
	}{
		{"zero", [4]uint32{}, [2]uint32{}, [4]uint32{0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8}},
		{"ones",
			[4]uint32{0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff}, [2]uint32{0xffffffff, 0xffffffff},
			[4]uint32{0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd}},
		{"pi",
			[4]uint32{0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344}, [2]uint32{0xa4093822, 0x299f31d0},
			[4]uint32{0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, Philox4x32(tc.ctr, tc.key))
		})
	}
}

func TestBlockWordOrder(t *testing.T) {
	// The "pi" vector through Block: key (seed lo, seed hi), counter
	// (c lo, c hi, stream lo, stream hi).
	got := Block(0x299f31d0_a4093822, 0x85a308d3_243f6a88, 0x03707344_13198a2e)
	assert.Equal(t, [4]uint32{0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1}, got)
}

func TestConversionsFromBlock(t *testing.T) {
	const seed, stream = 0x0123456789abcdef, 7
	for c := uint64(0); c < 100; c++ {
		x := Block(seed, c, stream)
		assert.Equal(t, float32(x[0]>>8)/(1<<24), Uniform32(seed, c, stream))
		assert.Equal(t, float64((uint64(x[0])<<32|uint64(x[1]))>>11)/(1<<53), Uniform64(seed, c, stream))
		u1 := (float64(x[0]>>8) + 1) / (1 << 24)
		u2 := float64(x[1]>>8) / (1 << 24)
		assert.Equal(t, float32(math.Sqrt(-2*math.Log(u1))*math.Cos(2*math.Pi*u2)), Normal32(seed, c, stream))
	}
}

func TestEdgeWords(t *testing.T) {
	// The extreme words map to the ends of the ranges: 0 → 0 and all ones
	// → 1-2⁻²⁴ (uniform); u1 = 1 gives ln 1 = 0, a normal of exactly 0.
	assert.Equal(t, float32(0), float32(uint32(0)>>8)*twoM24)
	assert.Equal(t, float32(1-1.0/(1<<24)), float32(uint32(math.MaxUint32)>>8)*twoM24)
	assert.Less(t, float64(math.MaxUint64>>11)*twoM53, 1.0)
	assert.Equal(t, 0.0, boxMuller(1, 0.3))
	assert.Equal(t, math.Sqrt(-2*math.Log(twoM24)), boxMuller(twoM24, 0))
}

// moments checks mean and variance of 1e6 draws and that every uniform is
// in [lo, hi).
func moments(t *testing.T, draw func(c uint64) float64, mean, variance, lo, hi float64) {
	t.Helper()
	const n = 1_000_000
	var s, s2 float64
	for c := uint64(0); c < n; c++ {
		x := draw(c)
		require.Truef(t, x >= lo && x < hi, "draw %d = %v outside [%v, %v)", c, x, lo, hi)
		s += x
		s2 += x * x
	}
	m := s / n
	v := s2/n - m*m
	// Five standard errors of the mean; variance within 1%.
	assert.InDelta(t, mean, m, 5*math.Sqrt(variance/n))
	assert.InEpsilon(t, variance, v, 0.01)
}

func TestStatistics(t *testing.T) {
	const seed = 42
	inf := math.Inf(1)
	tests := []struct {
		name           string
		draw           func(c uint64) float64
		mean, variance float64
		lo, hi         float64
	}{
		{"uniform32", func(c uint64) float64 { return float64(Uniform32(seed, c, 0)) }, 0.5, 1.0 / 12, 0, 1},
		{"uniform64", func(c uint64) float64 { return Uniform64(seed, c, 3) }, 0.5, 1.0 / 12, 0, 1},
		{"normal32", func(c uint64) float64 { return float64(Normal32(seed, c, 0)) }, 0, 1, -inf, inf},
		{"normal64", func(c uint64) float64 { return Normal64(seed, c, 1<<40) }, 0, 1, -inf, inf},
		// Consecutive seeds and streams must look independent too.
		{"uniform32 across seeds", func(c uint64) float64 { return float64(Uniform32(c, 0, 0)) }, 0.5, 1.0 / 12, 0, 1},
		{"uniform64 across streams", func(c uint64) float64 { return Uniform64(seed, 0, c) }, 0.5, 1.0 / 12, 0, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			moments(t, tc.draw, tc.mean, tc.variance, tc.lo, tc.hi)
		})
	}
}

func TestStreamsDiffer(t *testing.T) {
	// Counter, stream and seed each change the block.
	a := Block(1, 2, 3)
	assert.NotEqual(t, a, Block(1, 2, 4))
	assert.NotEqual(t, a, Block(1, 3, 3))
	assert.NotEqual(t, a, Block(2, 2, 3))
	assert.NotEqual(t, a, Block(1, 2|1<<32, 3))
	assert.NotEqual(t, a, Block(1, 2, 3|1<<32))
	assert.NotEqual(t, a, Block(1|1<<32, 2, 3))
}

func BenchmarkUniform32(b *testing.B) {
	var s float32
	for i := 0; b.Loop(); i++ {
		s += Uniform32(1, uint64(i), 0)
	}
	_ = s
}
