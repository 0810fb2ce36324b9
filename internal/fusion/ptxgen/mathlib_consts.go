package ptxgen

import (
	"math"
	"math/big"
)

// Constants and polynomial coefficients of the math library. The PTX
// emitters and the Go models in the tests read these same tables, so a
// model that passes its accuracy tests vouches for the constants the GPU
// uses.

const (
	log2E = math.Log2E
	// ln 2 split so that n·ln2Hi is exact for |n| < 2²⁰ (fdlibm's split).
	ln2Hi = 6.93147180369123816490e-01
	ln2Lo = 1.90821492927058770002e-10
	twoPi = 2 * math.Pi

	// exp clamps its argument to these bounds: beyond them the result
	// has over- or underflowed already, and the clamp keeps the scale
	// exponent in range.
	expF64Lo, expF64Hi = -746.0, 710.0
	expF32Lo, expF32Hi = -104.0, 89.0

	// sqrt2Mant is the mantissa field of √2: log reduces to m in
	// [√½, √2) by halving mantissas above it.
	sqrt2MantF64 = 0x6A09E667F3BCD

	// tanh_f64 uses a polynomial below tanhSmall and 1 − 2/(e^{2a}+1)
	// above; a is clamped to tanhClampF64, where tanh is 1 in float64.
	tanhSmall    = 0.55
	tanhClampF64 = 22.0
	// ln 2 split for float32: n·ln2HiF32 is exact for |n| < 2⁸.
	ln2HiF32 = float32(0.693145751953125) // 0x3F317200
	ln2LoF32 = float32(math.Ln2 - 0.693145751953125)
	// log₂e rounded to float32.
	log2EHiF32 = float32(math.Log2E)

	twoM24, twoM53 = 0x1p-24, 0x1p-53
)

// Philox4x32-10's round multipliers and key (Weyl) steps, Random123's.
const (
	philoxM0, philoxM1 = 0xD2511F53, 0xCD9E8D57
	philoxW0, philoxW1 = 0x9E3779B9, 0xBB67AE85
	philoxRounds       = 10
)

// invFact returns 1/k! correctly rounded to float64.
func invFact(k int) float64 {
	f := new(big.Int).MulRange(1, int64(max(k, 1)))
	v, _ := new(big.Rat).SetFrac(big.NewInt(1), f).Float64()
	return v
}

// series returns n coefficients c[j] = 1/(first+step·j)!, lowest order
// first (the order of Horner's scheme); alternate makes them −, +, −, …
func taylorSeries(n, first, step int, alternate bool) []float64 {
	c := make([]float64, n)
	for j := range c {
		c[j] = invFact(first + step*j)
		if alternate && j%2 == 0 {
			c[j] = -c[j]
		}
	}
	return c
}

func toF32(c []float64) []float32 {
	out := make([]float32, len(c))
	for i, v := range c {
		out[i] = float32(v)
	}
	return out
}

var (
	// exp(r) = Σ r^k/k!, |r| ≤ ln2/2: degree 13 (float64) and 8
	// (float32) leave a truncation below 1e-17 and 1e-9.
	expF64Coef = taylorSeries(14, 0, 1, false)
	expF32Coef = toF32(taylorSeries(9, 0, 1, false))

	// log(1+f) = f − (f²/2 − s·(f²/2 + R)), s = f/(2+f), R = Σ_k 2s^{2k}/(2k+1)
	// = s²·P(s²); |s| ≤ 0.1716.
	logF64Coef = logSeries(11)

	// sin θ = θ + θ³·S(θ²), cos θ = 1 + θ²·C(θ²) for |θ| ≤ π/4.
	sinF64Coef = taylorSeries(8, 3, 2, true) // −1/3!, 1/5!, …, 1/17!
	cosF64Coef = taylorSeries(9, 2, 2, true) // −1/2!, 1/4!, …, 1/18!
)

// logSeries returns P's coefficients 2/(2k+1), k = 1..n.
func logSeries(n int) []float64 {
	c := make([]float64, n)
	for k := 1; k <= n; k++ {
		c[k-1] = 2 / float64(2*k+1)
	}
	return c
}
