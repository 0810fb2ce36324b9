package ptxgen

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
)

// Random123's known-answer vectors for philox4x32 with 10 rounds: counter,
// key, expected output words.
func TestPhiloxModelKnownAnswers(t *testing.T) {
	for _, tc := range []struct {
		ctr  [4]uint32
		key  [2]uint32
		want [4]uint32
	}{
		{[4]uint32{}, [2]uint32{}, [4]uint32{0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8}},
		{[4]uint32{0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff}, [2]uint32{0xffffffff, 0xffffffff},
			[4]uint32{0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd}},
		{[4]uint32{0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344}, [2]uint32{0xa4093822, 0x299f31d0},
			[4]uint32{0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1}},
	} {
		seed := join64(tc.key[1], tc.key[0])
		counter := join64(tc.ctr[1], tc.ctr[0])
		stream := join64(tc.ctr[3], tc.ctr[2])
		assert.Equal(t, tc.want, philoxModel(seed, counter, stream), "ctr %08x key %08x", tc.ctr, tc.key)
	}
}

// The conversions of expr.InputKind's doc, spelled out on a known block.
func TestRandomModelConversions(t *testing.T) {
	x := [4]uint32{0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8} // the block of seed, counter, stream 0
	assert.Equal(t, float32(0x6627e8)/(1<<24), uniformF32Model(0, 0, 0))
	assert.Equal(t, float64(join64(x[0], x[1])>>11)/(1<<53), uniformF64Model(0, 0, 0))
	u1 := float64(x[0]>>8+1) / (1 << 24)
	u2 := float64(x[1]>>8) / (1 << 24)
	assert.InDelta(t, math.Sqrt(-2*math.Log(u1))*math.Cos(2*math.Pi*u2), float64(normalF32Model(0, 0, 0)), 1e-6)
	v1 := float64(join64(x[0], x[1])>>11+1) / (1 << 53)
	v2 := float64(join64(x[2], x[3])>>11) / (1 << 53)
	assert.InDelta(t, math.Sqrt(-2*math.Log(v1))*math.Cos(2*math.Pi*v2), normalF64Model(0, 0, 0), 1e-14)
}
