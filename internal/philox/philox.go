package philox

import "math/bits"

// Random123's Philox4x32 constants: the round multipliers and the Weyl
// sequence steps that bump the key between rounds.
const (
	mul0  = 0xD2511F53
	mul1  = 0xCD9E8D57
	weyl0 = 0x9E3779B9
	weyl1 = 0xBB67AE85
)

// Rounds is the number of Philox rounds (the "-10" of Philox4x32-10).
const Rounds = 10

// Philox4x32 encrypts counter ctr under key with 10 rounds of Philox4x32.
func Philox4x32(ctr [4]uint32, key [2]uint32) [4]uint32 {
	// Locals rather than arrays keep the rounds in registers.
	c0, c1, c2, c3 := ctr[0], ctr[1], ctr[2], ctr[3]
	k0, k1 := key[0], key[1]
	for r := 0; r < Rounds; r++ {
		if r > 0 {
			k0 += weyl0
			k1 += weyl1
		}
		hi0, lo0 := bits.Mul32(mul0, c0)
		hi1, lo1 := bits.Mul32(mul1, c2)
		c0, c1, c2, c3 = hi1^c1^k0, lo1, hi0^c3^k1, lo0
	}
	return [4]uint32{c0, c1, c2, c3}
}

// Block is the Philox block gpuarr draws for one element: key (seed low,
// seed high) and counter (counter low, counter high, stream low, stream
// high).
func Block(seed, counter, stream uint64) [4]uint32 {
	return Philox4x32(
		[4]uint32{uint32(counter), uint32(counter >> 32), uint32(stream), uint32(stream >> 32)},
		[2]uint32{uint32(seed), uint32(seed >> 32)})
}
