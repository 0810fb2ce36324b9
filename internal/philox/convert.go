package philox

import "math"

// Scales of the top 24 and 53 bits of a word to [0, 1).
const (
	twoM24 = 1.0 / (1 << 24)
	twoM53 = 1.0 / (1 << 53)
)

// Uniform32 is the float32 uniform in [0, 1) of element counter of stream
// stream under seed: the top 24 bits of the block's first word, scaled.
func Uniform32(seed, counter, stream uint64) float32 {
	x := Block(seed, counter, stream)
	return float32(x[0]>>8) * twoM24
}

// Uniform64 is the float64 uniform in [0, 1): the top 53 bits of the
// block's first two words, scaled.
func Uniform64(seed, counter, stream uint64) float64 {
	x := Block(seed, counter, stream)
	return float64(join(x[0], x[1])>>11) * twoM53
}

// Normal32 is a standard normal float32 by the Box-Muller transform in
// float64, u1 in (0, 1] from the first word (so ln never sees 0) and u2 in
// [0, 1) from the second.
func Normal32(seed, counter, stream uint64) float32 {
	x := Block(seed, counter, stream)
	u1 := float64(x[0]>>8+1) * twoM24
	u2 := float64(x[1]>>8) * twoM24
	return float32(boxMuller(u1, u2))
}

// Normal64 is a standard normal float64: Box-Muller with 53-bit u1 in
// (0, 1] from the first two words and u2 in [0, 1) from the last two.
func Normal64(seed, counter, stream uint64) float64 {
	x := Block(seed, counter, stream)
	u1 := float64(join(x[0], x[1])>>11+1) * twoM53
	u2 := float64(join(x[2], x[3])>>11) * twoM53
	return boxMuller(u1, u2)
}

func join(hi, lo uint32) uint64 { return uint64(hi)<<32 | uint64(lo) }

// boxMuller is sqrt(-2·ln(u1))·cos(2π·u2), evaluated exactly in the order
// the package doc of internal/fusion/expr gives (no fused operations: there is no
// addition to fuse into).
func boxMuller(u1, u2 float64) float64 {
	return math.Sqrt(-2*math.Log(u1)) * math.Cos(2*math.Pi*u2)
}
