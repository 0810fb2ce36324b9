package testutil

import (
	"math"
	"math/big"
	"testing"

	"github.com/stretchr/testify/assert"
)

// The references against known constants: ln 2, ln 10, ln 2⁻¹⁰⁷⁴ =
// −1074·ln 2 (the least subnormal), e, √2 as 2^½.
func TestBigMathConstants(t *testing.T) {
	f := func(x *big.Float) float64 { v, _ := x.Float64(); return v }
	assert.Equal(t, math.Ln2, f(BigLog(2)))
	assert.Equal(t, math.Ln10, f(BigLog(10)))
	assert.Equal(t, -744.4400719213812, f(BigLog(math.SmallestNonzeroFloat64)))
	assert.Equal(t, 0.0, f(BigLog(1)))
	assert.Equal(t, math.E, f(BigExp(new(big.Float).SetFloat64(1))))
	assert.Equal(t, math.Sqrt2, f(BigPow(2, 0.5)))
	assert.Equal(t, 0x1p-1074, f(BigPow(0x1p-537, 2)), "a subnormal result")
}
