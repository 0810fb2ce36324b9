package testutil

import (
	"math"
	"math/big"
)

// Exact references for the math functions' tests: the natural logarithm
// and the exponential at BigPrec bits with math/big, so that a float64
// result can be compared with the correctly rounded one.

// BigPrec is the precision of the references, far beyond float64's 53
// bits, so that rounding them to float64 gives the correctly rounded
// value.
const BigPrec = 256

func bigF(x float64) *big.Float { return new(big.Float).SetPrec(BigPrec).SetFloat64(x) }

// atanhSeries is atanh(z) = Σ z^(2k+1)/(2k+1) for small |z| (≤ 1/3).
func atanhSeries(z *big.Float) *big.Float {
	sum := new(big.Float).SetPrec(BigPrec).Set(z)
	z2 := new(big.Float).SetPrec(BigPrec).Mul(z, z)
	term := new(big.Float).SetPrec(BigPrec).Set(z)
	eps := new(big.Float).SetMantExp(big.NewFloat(1), -BigPrec-8)
	for k := 3; ; k += 2 {
		term.Mul(term, z2)
		t := new(big.Float).SetPrec(BigPrec).Quo(term, bigF(float64(k)))
		if t.Sign() == 0 || new(big.Float).Abs(t).Cmp(eps) < 0 {
			return sum
		}
		sum.Add(sum, t)
	}
}

// bigLn2 is ln 2 = 2·atanh(1/3).
func bigLn2() *big.Float {
	third := new(big.Float).SetPrec(BigPrec).Quo(bigF(1), bigF(3))
	return new(big.Float).SetPrec(BigPrec).Mul(bigF(2), atanhSeries(third))
}

// BigLog is ln x for finite x > 0 (subnormal x included): x = m·2^e with m
// in [1, 2), ln x = e·ln 2 + 2·atanh((m−1)/(m+1)).
func BigLog(x float64) *big.Float {
	if !(x > 0) || math.IsInf(x, 0) {
		panic("testutil.BigLog: x must be finite and positive")
	}
	bx := bigF(x)
	m := new(big.Float).SetPrec(BigPrec)
	e := bx.MantExp(m) // bx = m·2^e, m in [0.5, 1)
	m.SetMantExp(m, 1)
	e--
	num := new(big.Float).SetPrec(BigPrec).Sub(m, bigF(1))
	den := new(big.Float).SetPrec(BigPrec).Add(m, bigF(1))
	z := new(big.Float).SetPrec(BigPrec).Quo(num, den)
	lm := new(big.Float).SetPrec(BigPrec).Mul(bigF(2), atanhSeries(z))
	le := new(big.Float).SetPrec(BigPrec).Mul(bigF(float64(e)), bigLn2())
	return lm.Add(lm, le)
}

// BigExp is e^t for |t| below about 2000: t = k·ln 2 + r with |r| ≤ ln 2 / 2,
// e^r by its Taylor series, times 2^k.
func BigExp(t *big.Float) *big.Float {
	ln2 := bigLn2()
	kf, _ := new(big.Float).SetPrec(BigPrec).Quo(t, ln2).Float64()
	k := math.Round(kf)
	r := new(big.Float).SetPrec(BigPrec).Sub(t, new(big.Float).SetPrec(BigPrec).Mul(bigF(k), ln2))
	sum := bigF(1)
	term := bigF(1)
	eps := new(big.Float).SetMantExp(big.NewFloat(1), -BigPrec-8)
	for n := 1; ; n++ {
		term.Mul(term, r)
		term.Quo(term, bigF(float64(n)))
		if term.Sign() == 0 || new(big.Float).Abs(term).Cmp(eps) < 0 {
			break
		}
		sum.Add(sum, term)
	}
	return sum.SetMantExp(sum, int(k))
}

// BigPow is x^y = e^(y·ln x) for finite x > 0 and finite y.
func BigPow(x, y float64) *big.Float {
	t := new(big.Float).SetPrec(BigPrec).Mul(bigF(y), BigLog(x))
	return BigExp(t)
}
