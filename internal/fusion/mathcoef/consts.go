package mathcoef

import (
	"math"
	"math/big"
	"sync"
)

// The irrational constants of the math functions, computed once with
// math/big (π by Machin's formula, ln 2 and ln 10 by atanh series) rather
// than typed in: their float64 and float32 splits and the bits of 2/π for
// the reduction of large trigonometric arguments.

// bigConstPrec is the precision of the constants: enough for 2/π's bits
// at the exponent of the largest float64 (1,024) plus the 192 bits the
// reduction reads, with guard bits.
const bigConstPrec = 1600

type bigConstants struct {
	pi, ln2, ln10 *big.Float
}

var bigConsts = sync.OnceValue(func() bigConstants {
	p := uint(bigConstPrec + 32)
	nf := func() *big.Float { return new(big.Float).SetPrec(p) }
	series := func(n int64, alternate bool) *big.Float {
		// Σ_k (±1)^k x^(2k+1)/(2k+1) for x = 1/n: atan or atanh.
		x := nf().Quo(nf().SetInt64(1), nf().SetInt64(n))
		x2 := nf().Mul(x, x)
		sum, term := nf().Set(x), nf().Set(x)
		for k := int64(3); ; k += 2 {
			term.Mul(term, x2)
			t := nf().Quo(term, nf().SetInt64(k))
			if t.MantExp(nil) < -int(p)-4 {
				return sum
			}
			if alternate && (k/2)%2 == 1 {
				t.Neg(t)
			}
			sum.Add(sum, t)
		}
	}
	// π = 16·atan(1/5) − 4·atan(1/239); ln 2 = 2·atanh(1/3);
	// ln 10 = 3·ln 2 + 2·atanh(1/9).
	pi := nf().Mul(nf().SetInt64(16), series(5, true))
	pi.Sub(pi, nf().Mul(nf().SetInt64(4), series(239, true)))
	ln2 := nf().Mul(nf().SetInt64(2), series(3, false))
	ln10 := nf().Mul(nf().SetInt64(3), ln2)
	ln10.Add(ln10, nf().Mul(nf().SetInt64(2), series(9, false)))
	return bigConstants{pi: pi, ln2: ln2, ln10: ln10}
})

// splitF64 returns hi + lo = v to about 106 bits, hi with at most bits
// significant bits (so that hi times a small integer is exact).
func splitF64(v *big.Float, bits uint) (hi, lo float64) {
	h := new(big.Float).SetPrec(bits).Set(v)
	hi, _ = h.Float64()
	r := new(big.Float).SetPrec(v.Prec()).Sub(v, new(big.Float).SetFloat64(hi))
	lo, _ = r.Float64()
	return hi, lo
}

// splitF32 is splitF64 for float32.
func splitF32(v *big.Float, bits uint) (hi, lo float32) {
	h := new(big.Float).SetPrec(bits).Set(v)
	hi, _ = h.Float32()
	r := new(big.Float).SetPrec(v.Prec()).Sub(v, new(big.Float).SetFloat64(float64(hi)))
	lo, _ = r.Float32()
	return hi, lo
}

func bigQuo(a, b *big.Float) *big.Float { return new(big.Float).SetPrec(a.Prec()).Quo(a, b) }
func bigOne() *big.Float                { return new(big.Float).SetPrec(bigConstPrec).SetInt64(1) }
func bigMulInt(a *big.Float, n int64) *big.Float {
	return new(big.Float).SetPrec(a.Prec()).Mul(a, new(big.Float).SetInt64(n))
}

// Constants are the splits the math functions use.
type Constants struct {
	// log₂e, log₁₀e, log₁₀2 (hi with 32 bits), π/2, π/4, π, 3π/4 and ln 2
	// (hi with 32 bits) as double-doubles; π/2 in three parts for
	// Cody–Waite reduction (the first with 33 bits, so k·Pio2A is exact
	// for k < 2^20).
	Log2eHi, Log2eLo, Log10eHi, Log10eLo, Log10of2Hi, Log10of2Lo float64
	Pio2Hi, Pio2Lo, Pio4Hi, Pio4Lo, PiHi, PiLo, Pi3o4Hi, Pi3o4Lo float64
	Pio2A, Pio2B, Pio2C                                          float64
	Ln2Hi, Ln2Lo                                                 float64
	TwoThirdsHi, TwoThirdsLo                                     float64 // 2/3, atanh's series

	// float32: the same (log₁₀2's hi with 12 bits), and π/2 in three
	// float32 parts (k·Pio2A32 is exact in an fma for any k).
	Log2eHi32, Log2eLo32, Log10eHi32, Log10eLo32, Log10of2Hi32, Log10of2Lo32     float32
	Pio2Hi32, Pio2Lo32, Pio4Hi32, Pio4Lo32, PiHi32, PiLo32, Pi3o4Hi32, Pi3o4Lo32 float32
	Pio2A32, Pio2B32, Pio2C32, TwoOverPi32                                       float32

	// TwoOverPi are the bits of 2/π after the binary point, 64 per word,
	// preceded by two zero words (the integer bits of 2/π's multiples of
	// small numbers).
	TwoOverPi []uint64
}

// Consts are the constants, computed once.
var Consts = sync.OnceValue(func() (c Constants) {
	k := bigConsts()
	log2e := bigQuo(bigOne(), k.ln2)
	log10e := bigQuo(bigOne(), k.ln10)
	log10of2 := bigQuo(k.ln2, k.ln10)
	pio2 := new(big.Float).SetPrec(bigConstPrec).SetMantExp(k.pi, -1)
	pio4 := new(big.Float).SetPrec(bigConstPrec).SetMantExp(k.pi, -2)
	pi3o4 := bigMulInt(pio4, 3)

	c.Log2eHi, c.Log2eLo = splitF64(log2e, 53)
	c.Log10eHi, c.Log10eLo = splitF64(log10e, 53)
	c.Log10of2Hi, c.Log10of2Lo = splitF64(log10of2, 32)
	c.Pio2Hi, c.Pio2Lo = splitF64(pio2, 53)
	c.Pio4Hi, c.Pio4Lo = splitF64(pio4, 53)
	c.PiHi, c.PiLo = splitF64(k.pi, 53)
	c.Pi3o4Hi, c.Pi3o4Lo = splitF64(pi3o4, 53)
	c.Ln2Hi, c.Ln2Lo = splitF64(k.ln2, 32)
	c.TwoThirdsHi, c.TwoThirdsLo = splitF64(bigQuo(bigMulInt(bigOne(), 2), bigMulInt(bigOne(), 3)), 53)
	var rest *big.Float
	c.Pio2A, rest = splitRest(pio2, 33)
	c.Pio2B, rest = splitRest(rest, 53)
	c.Pio2C, _ = splitRest(rest, 53)

	c.Log2eHi32, c.Log2eLo32 = splitF32(log2e, 24)
	c.Log10eHi32, c.Log10eLo32 = splitF32(log10e, 24)
	c.Log10of2Hi32, c.Log10of2Lo32 = splitF32(log10of2, 12)
	c.Pio2Hi32, c.Pio2Lo32 = splitF32(pio2, 24)
	c.Pio4Hi32, c.Pio4Lo32 = splitF32(pio4, 24)
	c.PiHi32, c.PiLo32 = splitF32(k.pi, 24)
	c.Pi3o4Hi32, c.Pi3o4Lo32 = splitF32(pi3o4, 24)
	var a, b float64
	a, rest = splitRest(pio2, 24)
	b, rest = splitRest(rest, 24)
	cc, _ := splitRest(rest, 24)
	c.Pio2A32, c.Pio2B32, c.Pio2C32 = float32(a), float32(b), float32(cc)
	c.TwoOverPi32 = float32(2 / math.Pi)

	// 2/π's bits: floor(2/π · 2^(64·n)) word by word.
	const words = 22
	v := new(big.Float).SetPrec(bigConstPrec).Quo(new(big.Float).SetPrec(bigConstPrec).SetInt64(2), k.pi)
	c.TwoOverPi = make([]uint64, 2, words+2)
	two64 := new(big.Float).SetPrec(bigConstPrec).SetMantExp(bigOne(), 64)
	for range words {
		v.Mul(v, two64)
		w, _ := v.Int(nil)
		c.TwoOverPi = append(c.TwoOverPi, w.Uint64())
		v.Sub(v, new(big.Float).SetPrec(bigConstPrec).SetInt(w))
	}
	return c
})

// splitRest returns v rounded to bits significant bits (as a float64) and
// the remainder v − that, exactly.
func splitRest(v *big.Float, bits uint) (float64, *big.Float) {
	h := new(big.Float).SetPrec(bits).Set(v)
	hf, _ := h.Float64()
	r := new(big.Float).SetPrec(v.Prec()).Sub(v, new(big.Float).SetFloat64(hf))
	return hf, r
}
