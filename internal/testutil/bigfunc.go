package testutil

import (
	"math"
	"math/big"
	"sync"
)

// Exact references for the elementwise math functions: each
// BigX(x) is the function at about RefPrec bits for finite float64
// arguments (special values are the caller's: ±Inf, NaN and the edges of
// a domain), so that the float64 nearest to it is the correctly rounded
// result and its distance from a result is that result's error. Where
// the computation cancels (expm1 and log1p near 0, acosh near 1, erfc far
// out), it is arranged so that the cancellation happens in exact
// arithmetic or not at all.

// RefPrec is the working precision of the Big functions below.
const RefPrec = 128

func fp(x float64) *big.Float { return new(big.Float).SetPrec(RefPrec).SetFloat64(x) }
func nf() *big.Float          { return new(big.Float).SetPrec(RefPrec) }
func nfp(p uint) *big.Float   { return new(big.Float).SetPrec(p) }

// consts are π and ln 2 at refConstPrec bits (enough to reduce the
// largest float64 by π/2 with RefPrec bits left) and ln 10 at RefPrec.
const refConstPrec = 1200 + RefPrec

var consts = sync.OnceValue(func() (c struct{ pi, ln2, ln10 *big.Float }) {
	// π = 16·atan(1/5) − 4·atan(1/239) (Machin).
	p := uint(refConstPrec + 16)
	atanInv := func(n int64) *big.Float {
		x := nfp(p).Quo(nfp(p).SetInt64(1), nfp(p).SetInt64(n))
		x2 := nfp(p).Mul(x, x)
		sum, term := nfp(p).Set(x), nfp(p).Set(x)
		for k := int64(3); ; k += 2 {
			term.Mul(term, x2)
			t := nfp(p).Quo(term, nfp(p).SetInt64(k))
			if (k/2)%2 == 1 {
				t.Neg(t)
			}
			if t.MantExp(nil) < -int(p)-8 {
				break
			}
			sum.Add(sum, t)
		}
		return sum
	}
	pi := nfp(p).Mul(nfp(p).SetInt64(16), atanInv(5))
	pi.Sub(pi, nfp(p).Mul(nfp(p).SetInt64(4), atanInv(239)))
	c.pi = pi.SetPrec(refConstPrec)
	// ln 2 = 2·atanh(1/3), ln 10 = 3·ln 2 + 2·atanh(1/9).
	atanhInv := func(n int64) *big.Float {
		x := nfp(p).Quo(nfp(p).SetInt64(1), nfp(p).SetInt64(n))
		x2 := nfp(p).Mul(x, x)
		sum, term := nfp(p).Set(x), nfp(p).Set(x)
		for k := int64(3); ; k += 2 {
			term.Mul(term, x2)
			t := nfp(p).Quo(term, nfp(p).SetInt64(k))
			if t.MantExp(nil) < -int(p)-8 {
				break
			}
			sum.Add(sum, t)
		}
		return sum.Mul(sum, nfp(p).SetInt64(2))
	}
	c.ln2 = atanhInv(3).SetPrec(refConstPrec)
	c.ln10 = nfp(p).Add(nfp(p).Mul(nfp(p).SetInt64(3), c.ln2), atanhInv(9))
	c.ln10.SetPrec(RefPrec)
	return c
})

// BigPi is π at more than 1,200 bits.
func BigPi() *big.Float { return consts().pi }

// BigLn2 is ln 2 at more than 1,200 bits.
func BigLn2() *big.Float { return consts().ln2 }

// recip is 1/k at recipPrec bits, for the series' divisions by small
// integers (a multiplication is several times faster than a division);
// recipPrec exceeds every working precision below but the constants'.
const recipPrec = RefPrec + 300

var recips = sync.OnceValue(func() []*big.Float {
	r := make([]*big.Float, 4096)
	for k := 1; k < len(r); k++ {
		r[k] = nfp(recipPrec).Quo(nfp(recipPrec).SetInt64(1), nfp(recipPrec).SetInt64(int64(k)))
	}
	return r
})

// divK sets t = t/k.
func divK(t *big.Float, k int64) *big.Float {
	neg := k < 0
	if neg {
		k = -k
	}
	if k < 4096 {
		t.Mul(t, recips()[k])
	} else {
		t.Quo(t, nfp(t.Prec()).SetInt64(k))
	}
	if neg {
		t.Neg(t)
	}
	return t
}

func tiny(t *big.Float, prec uint) bool {
	return t.Sign() == 0 || t.MantExp(nil) < -int(prec)-8
}

// expSmall is e^r for |r| ≤ 1 at precision p: r/2^8 by its Taylor series,
// squared 8 times.
func expSmall(r *big.Float, p uint) *big.Float {
	const halvings = 8
	q := p + 2*halvings
	y := nfp(q).SetMantExp(r, -halvings)
	sum, term := nfp(q).SetInt64(1), nfp(q).SetInt64(1)
	for n := int64(1); ; n++ {
		term.Mul(term, y)
		divK(term, n)
		if tiny(term, q) {
			break
		}
		sum.Add(sum, term)
	}
	for range halvings {
		sum.Mul(sum, sum)
	}
	return sum.SetPrec(p)
}

// BigExpOf is e^t (+Inf beyond float64's range by far, 0 below it).
func BigExpOf(t *big.Float) *big.Float {
	ln2 := consts().ln2
	kf, _ := nf().Quo(t, ln2).Float64()
	switch {
	case kf > 1e6:
		return nf().SetInf(false)
	case kf < -1e6:
		return nf()
	}
	k := math.Round(kf)
	p := uint(RefPrec + 40)
	r := nfp(p).Sub(nfp(p).Set(t), nfp(p).Mul(nfp(p).SetFloat64(k), ln2))
	e := expSmall(r, p)
	return e.SetMantExp(e, int(k)).SetPrec(RefPrec)
}

// BigLogOf is ln x for x > 0.
func BigLogOf(x *big.Float) *big.Float {
	p := uint(RefPrec + 20)
	m := nfp(p)
	e := x.MantExp(m) // x = m·2^e, m in [½, 1)
	if m.Cmp(nfp(p).SetFloat64(math.Sqrt2/2)) < 0 {
		m.SetMantExp(m, 1)
		e--
	}
	// ln m = 2·atanh((m−1)/(m+1)), |z| ≤ 0.172.
	z := nfp(p).Quo(nfp(p).Sub(m, nfp(p).SetInt64(1)), nfp(p).Add(m, nfp(p).SetInt64(1)))
	lm := atanhSeriesP(z, p)
	lm.Mul(lm, nfp(p).SetInt64(2))
	le := nfp(p).Mul(nfp(p).SetInt64(int64(e)), consts().ln2)
	return lm.Add(lm, le).SetPrec(RefPrec)
}

func atanhSeriesP(z *big.Float, p uint) *big.Float {
	z2 := nfp(p).Mul(z, z)
	sum, term := nfp(p).Set(z), nfp(p).Set(z)
	for k := int64(3); ; k += 2 {
		term.Mul(term, z2)
		t := divK(nfp(p).Set(term), k)
		if tiny(t, p) || t.MantExp(nil) < sum.MantExp(nil)-int(p)-8 {
			return sum
		}
		sum.Add(sum, t)
	}
}

// BigExp2 is 2^x.
func BigExp2(x float64) *big.Float {
	k := math.Floor(x)
	f := x - k // exact
	e := BigExpOf(nf().Mul(fp(f), consts().ln2))
	return e.SetMantExp(e, int(k))
}

// BigExpm1 is e^x − 1.
func BigExpm1(x float64) *big.Float {
	if math.Abs(x) < 0.25 {
		// Taylor series: no cancellation.
		p := uint(RefPrec + 8)
		bx := nfp(p).SetFloat64(x)
		sum, term := nfp(p).Set(bx), nfp(p).Set(bx)
		for n := int64(2); ; n++ {
			term.Mul(term, bx)
			divK(term, n)
			if tiny(term, p) || term.MantExp(nil) < sum.MantExp(nil)-int(p)-8 {
				break
			}
			sum.Add(sum, term)
		}
		return sum.SetPrec(RefPrec)
	}
	e := BigExpOf(fp(x))
	return e.Sub(e, fp(1))
}

// BigLog is ln x for finite x > 0.
func BigLn(x float64) *big.Float { return BigLogOf(fp(x)) }

// BigLog2 and BigLog10 are base-2 and base-10 logarithms of finite x > 0.
func BigLog2(x float64) *big.Float {
	_, e := math.Frexp(x)
	if x == math.Ldexp(0.5, e) {
		return fp(float64(e - 1)) // exact powers of two
	}
	return nf().Quo(BigLn(x), consts().ln2)
}

func BigLog10(x float64) *big.Float { return nf().Quo(BigLn(x), consts().ln10) }

// BigLog1p is ln(1 + x) for x > −1: 2·atanh(x/(2+x)) near 0, where the
// sum 1 + x would round away x's low bits.
func BigLog1p(x float64) *big.Float {
	if math.Abs(x) < 0.5 {
		p := uint(RefPrec + 20)
		bx := nfp(p).SetFloat64(x)
		z := nfp(p).Quo(bx, nfp(p).Add(bx, nfp(p).SetInt64(2)))
		s := atanhSeriesP(z, p)
		return s.Mul(s, nfp(p).SetInt64(2)).SetPrec(RefPrec)
	}
	s := nfp(1200).SetFloat64(x)
	s.Add(s, nfp(1200).SetInt64(1)) // exact
	return BigLogOf(s)
}

// reducePio2 returns r and q with x = q·π/2 + r, |r| ≤ π/4 (and a bit),
// r at RefPrec bits.
func reducePio2(x float64) (*big.Float, int) {
	pi := consts().pi
	_, ex := math.Frexp(x)
	p := uint(RefPrec + 40 + max(0, ex))
	bx := nfp(p).SetFloat64(x)
	pio2 := nfp(p).SetMantExp(pi, -1)
	qf := nfp(p).Quo(bx, pio2)
	qi, _ := qf.Int(nil)
	// round to nearest
	frac := nfp(p).Sub(qf, nfp(p).SetInt(qi))
	half := nfp(p).SetFloat64(0.5)
	if frac.Cmp(half) > 0 {
		qi.Add(qi, big.NewInt(1))
	} else if frac.Cmp(nfp(p).Neg(half)) < 0 {
		qi.Sub(qi, big.NewInt(1))
	}
	r := nfp(p).Sub(bx, nfp(p).Mul(nfp(p).SetInt(qi), pio2))
	q := int(new(big.Int).And(qi, big.NewInt(3)).Int64())
	return r.SetPrec(RefPrec + 16), q
}

// sinCosSmall is sin r and cos r for |r| ≤ 1 (Taylor series).
func sinCosSmall(r *big.Float) (s, c *big.Float) {
	p := uint(RefPrec + 16)
	r2 := nfp(p).Mul(r, r)
	s, c = nfp(p).Set(r), nfp(p).SetInt64(1)
	ts, tc := nfp(p).Set(r), nfp(p).SetInt64(1)
	for n := int64(1); ; n++ {
		ts.Mul(ts, r2)
		divK(divK(ts, -(2*n)), 2*n+1)
		tc.Mul(tc, r2)
		divK(divK(tc, -(2*n-1)), 2*n)
		if tiny(tc, p) && (tiny(ts, p) || ts.MantExp(nil) < s.MantExp(nil)-int(p)-8) {
			break
		}
		s.Add(s, ts)
		c.Add(c, tc)
	}
	return s, c
}

// BigSin, BigCos and BigTan of finite x, reduced exactly by π/2.
func BigSin(x float64) *big.Float {
	r, q := reducePio2(x)
	s, c := sinCosSmall(r)
	return [4]*big.Float{s, c, nf().Neg(s), nf().Neg(c)}[q].SetPrec(RefPrec)
}

func BigCos(x float64) *big.Float {
	r, q := reducePio2(x)
	s, c := sinCosSmall(r)
	return [4]*big.Float{c, nf().Neg(s), nf().Neg(c), s}[q].SetPrec(RefPrec)
}

func BigTan(x float64) *big.Float {
	r, q := reducePio2(x)
	s, c := sinCosSmall(r)
	if q%2 == 1 {
		return nf().Quo(c.Neg(c), s)
	}
	return nf().Quo(s, c)
}

// atanOf is atan x for any finite x: 1/x above 1, then two halvings
// (atan x = 2·atan(x/(1+√(1+x²)))), then the Taylor series.
func atanOf(x *big.Float) *big.Float {
	p := uint(RefPrec + 20)
	a := nfp(p).Abs(x)
	inv := a.Cmp(nfp(p).SetInt64(1)) > 0
	if inv {
		a.Quo(nfp(p).SetInt64(1), a)
	}
	for range 2 {
		d := nfp(p).Mul(a, a)
		d.Add(d, nfp(p).SetInt64(1))
		d.Sqrt(d)
		d.Add(d, nfp(p).SetInt64(1))
		a.Quo(a, d)
	}
	a2 := nfp(p).Mul(a, a)
	sum, term := nfp(p).Set(a), nfp(p).Set(a)
	for k := int64(3); ; k += 2 {
		term.Mul(term, a2)
		t := divK(nfp(p).Set(term), k)
		if tiny(t, p) || t.MantExp(nil) < sum.MantExp(nil)-int(p)-8 {
			break
		}
		if (k/2)%2 == 1 {
			t.Neg(t)
		}
		sum.Add(sum, t)
	}
	sum.Mul(sum, nfp(p).SetInt64(4))
	if inv {
		sum.Sub(nfp(p).SetMantExp(consts().pi, -1), sum)
	}
	if x.Sign() < 0 {
		sum.Neg(sum)
	}
	return sum.SetPrec(RefPrec)
}

// BigAtan is atan x.
func BigAtan(x float64) *big.Float {
	if math.IsInf(x, 0) {
		h := nf().SetMantExp(consts().pi, -1)
		if x < 0 {
			h.Neg(h)
		}
		return h
	}
	return atanOf(fp(x))
}

// BigAtan2 is atan2(y, x) for finite x, y not both zero.
func BigAtan2(y, x float64) *big.Float {
	pi := nf().Set(consts().pi)
	switch {
	case x == 0:
		h := nf().SetMantExp(pi, -1)
		if y < 0 {
			h.Neg(h)
		}
		return h
	case y == 0:
		if x > 0 {
			return fp(y)
		}
		if math.Signbit(y) {
			return pi.Neg(pi)
		}
		return pi
	}
	a := atanOf(nfp(RefPrec+20).Quo(fp(y), fp(x)))
	if x < 0 {
		if y > 0 {
			a.Add(a, pi)
		} else {
			a.Sub(a, pi)
		}
	}
	return a
}

// BigAsin and BigAcos of x in [−1, 1].
func BigAsin(x float64) *big.Float {
	p := uint(RefPrec + 20)
	bx := nfp(p).SetFloat64(x)
	d := nfp(p).Mul(bx, bx)
	d.Sub(nfp(p).SetInt64(1), d)
	if d.Sign() == 0 {
		h := nf().SetMantExp(consts().pi, -1)
		if x < 0 {
			h.Neg(h)
		}
		return h
	}
	d.Sqrt(d)
	return atanOf(nfp(p).Quo(bx, d))
}

func BigAcos(x float64) *big.Float {
	// acos x = 2·atan(√((1−x)/(1+x))).
	p := uint(RefPrec + 20)
	if x == -1 {
		return nf().Set(consts().pi)
	}
	bx := nfp(p).SetFloat64(x)
	q := nfp(p).Quo(nfp(p).Sub(nfp(p).SetInt64(1), bx), nfp(p).Add(nfp(p).SetInt64(1), bx))
	q.Sqrt(q)
	a := atanOf(q)
	return a.SetMantExp(a, 1)
}

// BigSinh, BigCosh and BigTanh of finite x.
func BigSinh(x float64) *big.Float {
	if math.Abs(x) < 1 {
		p := uint(RefPrec + 8)
		bx := nfp(p).SetFloat64(x)
		x2 := nfp(p).Mul(bx, bx)
		sum, term := nfp(p).Set(bx), nfp(p).Set(bx)
		for n := int64(1); ; n++ {
			term.Mul(term, x2)
			divK(divK(term, 2*n), 2*n+1)
			if tiny(term, p) || term.MantExp(nil) < sum.MantExp(nil)-int(p)-8 {
				break
			}
			sum.Add(sum, term)
		}
		return sum.SetPrec(RefPrec)
	}
	e := BigExpOf(fp(x))
	ei := nf().Quo(fp(1), e)
	e.Sub(e, ei)
	return e.SetMantExp(e, -1)
}

func BigCosh(x float64) *big.Float {
	e := BigExpOf(fp(x))
	ei := nf().Quo(fp(1), e)
	e.Add(e, ei)
	return e.SetMantExp(e, -1)
}

func BigTanh(x float64) *big.Float {
	if math.Abs(x) > 40 {
		return fp(math.Copysign(1, x)) // within 2^-115 of ±1
	}
	s, c := BigSinh(x), BigCosh(x)
	return s.Quo(s, c)
}

// BigAsinh, BigAcosh and BigAtanh.
func BigAsinh(x float64) *big.Float {
	a := math.Abs(x)
	var r *big.Float
	if a < 0x1p-100 {
		r = fp(a) // asinh a = a − a³/6 …: the second term is below 2^-200 relative
	} else {
		// ln(a + √(a²+1)) = log1p(a + a²/(1+√(1+a²))) in exact-enough steps.
		p := uint(RefPrec + 240)
		ba := nfp(p).SetFloat64(a)
		s := nfp(p).Mul(ba, ba)
		s.Add(s, nfp(p).SetInt64(1))
		s.Sqrt(s)
		s.Add(s, ba)
		r = BigLogOf(s)
	}
	if x < 0 {
		r.Neg(r)
	}
	return r
}

func BigAcosh(x float64) *big.Float {
	// ln(x + √(x²−1)), x²−1 = (x−1)(x+1) exactly.
	p := uint(RefPrec + 120)
	bx := nfp(p).SetFloat64(x)
	d := nfp(p).Mul(nfp(p).Sub(bx, nfp(p).SetInt64(1)), nfp(p).Add(bx, nfp(p).SetInt64(1)))
	d.Sqrt(d)
	d.Add(d, bx)
	// ln d with d − 1 small near x = 1: log of 1 + (d − 1).
	dm1 := nfp(p).Sub(d, nfp(p).SetInt64(1))
	if dm1.Cmp(nfp(p).SetFloat64(0.5)) < 0 {
		z := nfp(p).Quo(dm1, nfp(p).Add(dm1, nfp(p).SetInt64(2)))
		s := atanhSeriesP(z, p)
		return s.Mul(s, nfp(p).SetInt64(2)).SetPrec(RefPrec)
	}
	return BigLogOf(d)
}

func BigAtanh(x float64) *big.Float {
	// ½·ln((1+x)/(1−x)) = atanh by its series for small |x|.
	p := uint(RefPrec + 20)
	if math.Abs(x) < 0.5 {
		return atanhSeriesP(nfp(p).SetFloat64(x), p).SetPrec(RefPrec)
	}
	bx := nfp(p).SetFloat64(x)
	q := nfp(p).Quo(nfp(p).Add(nfp(p).SetInt64(1), bx), nfp(p).Sub(nfp(p).SetInt64(1), bx))
	l := BigLogOf(q)
	return l.SetMantExp(l, -1)
}

// BigCbrt is the real cube root.
func BigCbrt(x float64) *big.Float {
	if x == 0 {
		return fp(x)
	}
	p := uint(RefPrec + 8)
	bx := nfp(p).SetFloat64(x)
	y := nfp(p).SetFloat64(math.Cbrt(x))
	for range 3 { // Newton: y −= (y³ − x)/(3y²), from 50 bits
		y2 := nfp(p).Mul(y, y)
		num := nfp(p).Mul(y2, y)
		num.Sub(num, bx)
		den := y2.Mul(y2, nfp(p).SetInt64(3))
		y.Sub(y, num.Quo(num, den))
	}
	return y.SetPrec(RefPrec)
}

// BigHypot is √(x² + y²).
func BigHypot(x, y float64) *big.Float {
	p := uint(2200)
	bx, by := nfp(p).SetFloat64(x), nfp(p).SetFloat64(y)
	s := nfp(p).Add(nfp(p).Mul(bx, bx), nfp(p).Mul(by, by)) // exact
	return nf().Sqrt(s)
}

// BigErf and BigErfc: the Taylor series of erf where it converges well
// (|x| < 3, with guard bits for its alternating terms), the continued
// fraction of erfc (Lentz) beyond.
func BigErf(x float64) *big.Float {
	a := math.Abs(x)
	var r *big.Float
	if a < 3 {
		r = erfSeries(a)
	} else {
		r = erfcFraction(a)
		r.Sub(fp(1), r)
	}
	if x < 0 {
		r.Neg(r)
	}
	return r
}

func BigErfc(x float64) *big.Float {
	a := math.Abs(x)
	var r *big.Float
	if a < 3 {
		r = erfSeries(a)
		r.Sub(fp(1), r)
	} else {
		r = erfcFraction(a)
	}
	if x < 0 {
		r.Sub(fp(2), r)
	}
	return r
}

var sqrtPi = sync.OnceValue(func() *big.Float {
	return nfp(RefPrec + 40).Sqrt(nfp(RefPrec + 40).Set(consts().pi))
})

func erfSeries(a float64) *big.Float {
	// erf a = 2/√π · e^{−a²} · Σ 2^n a^(2n+1)/(2n+1)!!: positive terms,
	// which grow to about e^{a²} ≤ 2^13 before they shrink; erfc = 1 − erf
	// loses up to 16 more bits for a < 3.
	p := uint(RefPrec + 40)
	ba := nfp(p).SetFloat64(a)
	a2 := nfp(p).Mul(ba, ba)
	twoA2 := nfp(p).Mul(a2, nfp(p).SetInt64(2))
	sum, term := nfp(p).Set(ba), nfp(p).Set(ba)
	for n := int64(1); ; n++ {
		term.Mul(term, twoA2)
		divK(term, 2*n+1)
		if tiny(term, p) || term.MantExp(nil) < sum.MantExp(nil)-int(p)-8 {
			break
		}
		sum.Add(sum, term)
	}
	sum.Mul(sum, BigExpOf(nfp(p).Neg(a2)))
	sum.Mul(sum, nfp(p).SetInt64(2))
	sum.Quo(sum, sqrtPi())
	return sum.SetPrec(RefPrec)
}

func erfcFraction(a float64) *big.Float {
	// erfc a = e^{−a²}/√π · 1/(a + (1/2)/(a + 1/(a + (3/2)/(a + …)))),
	// evaluated bottom up from a depth where it has converged.
	p := uint(RefPrec + 20)
	ba := nfp(p).SetFloat64(a)
	depth := int(1400/(a*a)) + 24 // converged to below 2^-135 relative
	f := nfp(p).Set(ba)
	for k := depth; k >= 1; k-- {
		t := nfp(p).Quo(nfp(p).SetFloat64(float64(k)/2), f)
		f = t.Add(t, ba)
	}
	e := BigExpOf(nfp(p).Neg(nfp(p).Mul(ba, ba)))
	e.Quo(e, sqrtPi())
	return e.Quo(e, f).SetPrec(RefPrec)
}

// BigPowOf is x^y for finite x, y with x^y real (x > 0, or y an integer);
// 0^y is the caller's.
func BigPowOf(x, y float64) *big.Float {
	ax := math.Abs(x)
	if fr, e := math.Frexp(ax); fr == 0.5 && y == math.Trunc(y) && math.Abs(y) < 1<<20 {
		// A power of two to an integer power: exact.
		r := nf().SetMantExp(fp(1), (e-1)*int(y))
		if x < 0 && math.Mod(y, 2) != 0 {
			r.Neg(r)
		}
		return r
	}
	if y == math.Trunc(y) && math.Abs(y) <= 64 {
		// Exact: repeated squaring at a precision that keeps every bit.
		n := int64(math.Abs(y))
		base := nfp(0).SetFloat64(ax)
		res := big.NewFloat(1)
		for n > 0 {
			if n&1 == 1 {
				res.SetPrec(res.MinPrec()+base.MinPrec()+8).Mul(res, base)
			}
			n >>= 1
			if n > 0 {
				base.SetPrec(2*base.MinPrec()+8).Mul(base, base)
			}
		}
		if y < 0 {
			res = nf().Quo(fp(1), res)
		} else {
			res = nf().Set(res)
		}
		if x < 0 && math.Mod(y, 2) != 0 {
			res.Neg(res)
		}
		return res
	}
	l := BigLogOf(nfp(RefPrec + 20).SetFloat64(ax))
	r := BigExpOf(nfp(RefPrec+20).Mul(l, nfp(RefPrec+20).SetFloat64(y)))
	if x < 0 && math.Mod(y, 2) != 0 {
		r.Neg(r)
	}
	return r
}
