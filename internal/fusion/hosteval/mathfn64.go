package hosteval

import (
	"math"
	"math/bits"

	"github.com/gpuarr/gpuarr/internal/fusion/mathcoef"
)

// The float64 functions where Go's math package is not within CUDA's
// documented bounds (sin, cos and tan lose up to 3·10^5 ulps near the
// multiples of π/2 around 10^6; Asin and Acos divide by √(1−x²); Exp and
// so Sinh and Cosh overflow early on amd64; Log2 and Log10 of values near
// 1 and of subnormals; Atan2's sign for y/x underflowing to 0; Pow
// squares its rounding errors): the same algorithms as
// internal/fusion/ptxgen's PTX math library, operation for operation
// (math.FMA where the PTX has fma.rn, the same coefficients from
// internal/fusion/mathcoef), so the two back ends agree bit for bit. See
// the PTX functions (mathlib_*.go) for the algorithms and their error
// analysis.

// Double-double building blocks.

func twoSum(a, b float64) (s, e float64) {
	s = a + b
	bb := s - a
	return s, (a - (s - bb)) + (b - bb)
}

func fastTwoSum(a, b float64) (s, e float64) {
	s = a + b
	return s, b - (s - a)
}

func twoProd(a, b float64) (p, e float64) {
	p = a * b
	return p, math.FMA(a, b, -p)
}

func horner(x float64, c []float64) float64 {
	p := c[len(c)-1]
	for i := len(c) - 2; i >= 0; i-- {
		p = math.FMA(p, x, c[i])
	}
	return p
}

// exp2i is 2^n for n in the normal exponent range.
func exp2i(n int32) float64 { return math.Float64frombits(uint64(n+1023) << 52) }

// ldexp2 is x·2^⌊n/2⌋·2^(n−⌊n/2⌋): one rounding into a subnormal, +Inf
// on overflow.
func ldexp2(x float64, n int32) float64 {
	n1 := n >> 1
	return x * exp2i(n1) * exp2i(n-n1)
}

// ptxMin and ptxMax are PTX's min and max: a NaN operand is ignored.
func ptxMin(a, b float64) float64 {
	switch {
	case a != a:
		return b
	case b != b:
		return a
	}
	return math.Min(a, b)
}

func ptxMax(a, b float64) float64 {
	switch {
	case a != a:
		return b
	case b != b:
		return a
	}
	return math.Max(a, b)
}

// rint is round to nearest even, the PTX cvt.rni.
func rint(x float64) float64 { return math.RoundToEven(x) }

// reduceLn2 returns r + rl = a − al − k·ln 2 (see the PTX's).
func reduceLn2(a, al, k float64) (r, rl float64) {
	rh := math.FMA(-k, ln2Hi, a)
	th, tl := twoProd(k, ln2Lo)
	if al != 0 {
		var se float64
		th, se = twoSum(th, al)
		tl += se
	}
	r, e1 := twoSum(rh, -th)
	return r, e1 - tl
}

// expTail returns e^(r+rl) − 1 as a double-double.
func expTail(r, rl float64) (em, eml float64) {
	r2h, r2l := twoProd(r, r)
	h := r2h * 0.5
	g := horner(r, mathcoef.ExpGF64)
	rest := (r2h * r) * g
	rest = math.FMA(rl, r+1, rest)
	rest = math.FMA(r2l, 0.5, rest)
	a, ae := fastTwoSum(r, h)
	return fastTwoSum(a, ae+rest)
}

// expF64 is e^x within half an ulp or so, with the overflow threshold
// where it belongs (709.78); Go's amd64 math.Exp overflows from 709.4.
func expF64(x float64) float64 {
	if x != x {
		return x
	}
	xc := math.Min(math.Max(x, -1200), 1200)
	k := rint(xc * math.Log2E)
	r, rl := reduceLn2(xc, 0, k)
	em, eml := expTail(r, rl)
	qh, ql := fastTwoSum(1, em)
	ql += eml
	return scaleDD(qh, ql, int32(k))
}

// scaleDD is 2^k·(qh + ql) rounded about once (the PTX pow's ending).
func scaleDD(qh, ql float64, k int32) float64 {
	k1 := k >> 1
	s1, s2 := exp2i(k1), exp2i(k-k1)
	if k < 0 {
		u, v := qh*s1, ql*s1
		return math.FMA(u, s2, v*s2)
	}
	return (qh + ql) * s1 * s2
}

// sinhF64 and coshF64 (ptxgen's hyperbolicFunc).
func sinhF64(x float64) float64 { return hyperbolic(x, true) }
func coshF64(x float64) float64 { return hyperbolic(x, false) }

func hyperbolic(x float64, isSinh bool) float64 {
	if x != x {
		return x
	}
	a := math.Abs(x)
	var y float64
	if a < 1 {
		if isSinh {
			z := a * a
			y = math.FMA(a*z, horner(z, mathcoef.SinhSF64), a)
		} else {
			zh, zl := twoProd(a, a)
			c := horner(zh, mathcoef.CoshCF64)
			s, se := fastTwoSum(1, zh*0.5)
			rest := math.FMA(zh*zh, c, math.FMA(zl, 0.5, se))
			y = s + rest
		}
	} else {
		ac := ptxMin(a, 711)
		k := rint(ac * math.Log2E)
		r, rl := reduceLn2(ac, 0, k)
		em, eml := expTail(r, rl)
		emn, emnl := expTail(-r, -rl)
		ki := int32(k)
		w := exp2i(-(min(ki, 511) << 1))
		sw := w
		if isSinh {
			sw = -w
		}
		a1, ae1 := fastTwoSum(1, em)
		rest := math.FMA(sw, 1+emn, ae1)
		rest += math.FMA(sw, emnl, eml)
		y = ldexp2(a1+rest, ki-1)
	}
	if isSinh {
		y = math.Copysign(y, x)
	}
	return y
}

// Logarithms (ptxgen's logReduce64 and log1pCore64).

var logSeries11 = func() []float64 {
	c := make([]float64, 11)
	for k := range c {
		c[k] = 2 / float64(2*k+3)
	}
	return c
}()

func logReduce64(x float64) (e, fr float64) {
	xs, eadj := x, int32(0)
	if x < 0x1p-1022 {
		xs, eadj = x*0x1p54, -54
	}
	b := math.Float64bits(xs)
	ei := int32(b >> 52 & 2047)
	m := b & (1<<52 - 1)
	mb, eb := m|0x3FF0000000000000, int32(-1023)
	if m > 1865452045155277 {
		mb, eb = m|0x3FE0000000000000, -1022
	}
	ei += eb + eadj
	return float64(ei), math.Float64frombits(mb) - 1
}

func log1pCore64(fr float64) (lh, ll float64) {
	s := fr / (fr + 2)
	z := s * s
	r := z * horner(z, logSeries11)
	sq, sql := twoProd(fr, fr)
	h, hl := sq*0.5, sql*0.5
	corr := s * (h + r)
	lh, ll = fastTwoSum(fr, -h)
	return lh, ll + (corr - hl)
}

// logSpecial is log's result for x < 0, ±0, +Inf and NaN.
func logSpecial(x float64) (float64, bool) {
	switch {
	case x != x:
		return x, true
	case x < 0:
		return math.NaN(), true
	case x == 0:
		return math.Inf(-1), true
	case math.IsInf(x, 1):
		return x, true
	}
	return 0, false
}

func log2F64(x float64) float64 {
	if s, ok := logSpecial(x); ok {
		return s
	}
	c := mathcoef.Consts()
	e, fr := logReduce64(x)
	lh, ll := log1pCore64(fr)
	p, pe := twoProd(lh, c.Log2eHi)
	q := math.FMA(ll, c.Log2eHi, math.FMA(lh, c.Log2eLo, pe))
	a, ae := twoSum(e, p)
	return a + (ae + q)
}

func log10F64(x float64) float64 {
	if s, ok := logSpecial(x); ok {
		return s
	}
	c := mathcoef.Consts()
	e, fr := logReduce64(x)
	lh, ll := log1pCore64(fr)
	A := e * c.Log10of2Hi
	p, pe := twoProd(lh, c.Log10eHi)
	q := math.FMA(ll, c.Log10eHi, math.FMA(lh, c.Log10eLo, pe))
	q = math.FMA(e, c.Log10of2Lo, q)
	a, ae := twoSum(A, p)
	return a + (ae + q)
}

// Trigonometric functions (ptxgen's trigReduce, payneHanek and
// sinCosKernel).

// trigReduce returns x = q·π/2 + r + rl.
func trigReduce(x float64) (r, rl float64, q int32) {
	c := mathcoef.Consts()
	k := rint(x * (2 / math.Pi))
	r1 := math.FMA(-k, c.Pio2A, x)
	th, tl := twoProd(k, c.Pio2B)
	tl = math.FMA(k, c.Pio2C, tl)
	r, e1 := twoSum(r1, -th)
	rl = e1 - tl
	q = int32(math.Max(math.Min(k, math.MaxInt32), math.MinInt32))
	if ax := math.Abs(x); ax >= 1.6e6 && !math.IsInf(ax, 0) {
		r, rl, q = payneHanek(ax)
		if x < 0 {
			r, rl, q = -r, -rl, -q
		}
	}
	return r, rl, q
}

// payneHanek reduces a finite ax ≥ 2^20 with 2/π's bits.
func payneHanek(ax float64) (r, rl float64, q int32) {
	c := mathcoef.Consts()
	b := math.Float64bits(ax)
	be := uint32(b >> 52)
	m := b&(1<<52-1) | 1<<52
	p0 := be - 949
	w, o := p0>>6, p0&63
	tw := c.TwoOverPi[w : w+4]
	word := func(i int) uint64 { return tw[i]<<o | shr64(tw[i+1], 64-o) }
	f0, f1, f2 := word(0), word(1), word(2)
	h2, _ := bits.Mul64(m, f2)
	h1, l1 := bits.Mul64(m, f1)
	l0 := m * f0
	glo := l1 + h2
	var carry uint64
	if glo < l1 {
		carry = 1
	}
	ghi := l0 + h1 + carry
	qv := uint32(ghi >> 62)
	rhi := ghi<<2 | glo>>62
	rlo := glo << 2
	up := int64(rhi) < 0
	mhi, mlo := rhi, rlo
	if up {
		var borrow uint64
		if rlo == 0 {
			borrow = 1
		}
		mhi, mlo = ^rhi+borrow, -rlo
		qv++
	}
	lz := uint32(bits.LeadingZeros64(mhi))
	nh := shl64(mhi, lz) | shr64(mlo, 64-lz)
	nl := shl64(mlo, lz)
	hi := float64(nh>>11) * 0x1p-53
	lo := math.FMA(float64(nh&2047), 0x1p-64, float64(nl>>11)*0x1p-117)
	s := exp2i(-int32(lz))
	fh, fl := hi*s, lo*s
	rh, re := twoProd(fh, c.Pio2Hi)
	re = math.FMA(fh, c.Pio2Lo, re)
	re = math.FMA(fl, c.Pio2Hi, re)
	r, rl = fastTwoSum(rh, re)
	if up {
		r, rl = -r, -rl
	}
	return r, rl, int32(qv)
}

// shl64 and shr64 are PTX's shifts: amounts of 64 or more give 0.
func shl64(x uint64, n uint32) uint64 {
	if n >= 64 {
		return 0
	}
	return x << n
}

func shr64(x uint64, n uint32) uint64 {
	if n >= 64 {
		return 0
	}
	return x >> n
}

func sinCosKernel(r, rl float64) (sh, sl, ch, cl float64) {
	zh, zl := twoProd(r, r)
	S, C := horner(zh, mathcoef.SinSF64), horner(zh, mathcoef.CosCF64)
	hz := zh * 0.5
	stail := math.FMA(r*zh, S, math.FMA(-rl, hz, rl))
	sh, sl = fastTwoSum(r, stail)
	w := 1 - hz
	e := (1 - w) - hz
	ctail := math.FMA(zh*zh, C, math.FMA(-r, rl, math.FMA(-zl, 0.5, e)))
	ch, cl = fastTwoSum(w, ctail)
	return sh, sl, ch, cl
}

func trig(x float64, name byte) float64 {
	r, rl, q := trigReduce(x)
	sh, sl, ch, cl := sinCosKernel(r, rl)
	if name == 'c' {
		q++
	}
	odd := q&1 != 0
	var y float64
	if name == 't' {
		nh, dh, nl, dl := sh, ch, sl, cl
		if odd {
			nh, dh, nl, dl = ch, -sh, cl, -sl
		}
		y = nh / dh
		res := math.FMA(-y, dh, nh)
		res += math.FMA(-y, dl, nl)
		y += res / dh
	} else {
		y = sh
		if odd {
			y = ch
		}
		if q&2 != 0 {
			y = -y
		}
	}
	if name != 'c' && x == 0 {
		return x
	}
	return y
}

func sinF64(x float64) float64 { return trig(x, 's') }
func cosF64(x float64) float64 { return trig(x, 'c') }
func tanF64(x float64) float64 { return trig(x, 't') }

// asinF64 and acosF64 (ptxgen's asinAcosFunc).
func asinF64(x float64) float64 { return asinAcos(x, true) }
func acosF64(x float64) float64 { return asinAcos(x, false) }

func asinAcos(x float64, asin bool) float64 {
	c := mathcoef.Consts()
	a := math.Abs(x)
	zs := a * a
	us := (x * zs) * horner(zs, mathcoef.AsinPF64)
	z := (1 - a) * 0.5
	s := math.Sqrt(z)
	twoS := s * 2
	sl := math.FMA(-s, s, z) / twoS
	if s == 0 {
		sl = 0
	}
	tail := math.FMA(s*z, horner(z, mathcoef.AsinPF64), sl)
	small := a <= 0.5
	if asin {
		if small {
			return x + us
		}
		A, Ae := twoSum(c.Pio2Hi, -twoS)
		return math.Copysign(A+math.FMA(-2, tail, Ae+c.Pio2Lo), x)
	}
	if small {
		A, Ae := twoSum(c.Pio2Hi, -x)
		return A + ((Ae + c.Pio2Lo) - us)
	}
	if x < 0 {
		B, Be := twoSum(c.PiHi, -twoS)
		return B + math.FMA(-2, tail, Be+c.PiLo)
	}
	return math.FMA(2, tail, twoS)
}

// atan2F64 (ptxgen's atan2Func and atanCore).
func atan2F64(y, x float64) float64 {
	if x != x || y != y {
		return math.NaN()
	}
	c := mathcoef.Consts()
	ay, ax := math.Abs(y), math.Abs(x)
	swap := ay > ax
	mn, mx := ay, ax
	if swap {
		mn, mx = ax, ay
	}
	q := mn / mx
	if mx == 0 {
		q = 0
	}
	if math.IsInf(mn, 1) && math.IsInf(mx, 1) {
		q = 1
	}
	ql := 0.0
	if mx > 0 && !math.IsInf(mx, 0) && !math.IsInf(mn, 0) {
		ql = math.FMA(-q, mx, mn) / mx
	}
	// atanCore(q, ql) without its third case.
	c1 := q <= 0.4142135623730950
	am1 := q - 1
	ap1, dl := twoSum(q, 1)
	num, den := am1, ap1
	if c1 {
		num, den = q, 1
	}
	u := num / den
	dlc, ald := dl, ql
	if c1 {
		dlc, ald = 0, 0
	}
	res := math.FMA(-u, den, num)
	res += math.FMA(-u, dlc+ald, ql)
	ul := res / den
	if ul != ul {
		ul = 0
	}
	z := u * u
	tail := (u * z) * horner(z, mathcoef.AtanPF64)
	tail = math.FMA(ul, 1-z, tail)
	xneg := math.Signbit(x)
	// K ± C by (swap, x < 0, c1).
	consts := [5][2]float64{{0, 0}, {c.Pio4Hi, c.Pio4Lo}, {c.Pio2Hi, c.Pio2Lo}, {c.Pi3o4Hi, c.Pi3o4Lo}, {c.PiHi, c.PiLo}}
	idx := [8]int{1, 0, 3, 4, 1, 2, 3, 2}
	i := 0
	if swap {
		i += 4
	}
	if xneg {
		i += 2
	}
	if c1 {
		i++
	}
	kh, kl := consts[idx[i]][0], consts[idx[i]][1]
	if swap != xneg {
		u, tail = -u, -tail
	}
	s, e := fastTwoSum(kh, u)
	return math.Copysign(s+((e+kl)+tail), y)
}

// hypotF64 (ptxgen's hypotFunc).
func hypotF64(x, y float64) float64 {
	if math.IsInf(x, 0) || math.IsInf(y, 0) {
		return math.Inf(1)
	}
	if x != x || y != y {
		return math.NaN()
	}
	ax, ay := math.Abs(x), math.Abs(y)
	a, b := math.Max(ax, ay), math.Min(ax, ay)
	sc, inv := 1.0, 1.0
	switch {
	case a > 0x1p500:
		sc, inv = 0x1p-600, 0x1p600
	case a < 0x1p-500:
		sc, inv = 0x1p600, 0x1p-600
	}
	as, bs := a*sc, b*sc
	a2, a2l := twoProd(as, as)
	b2, b2l := twoProd(bs, bs)
	sh, se := fastTwoSum(a2, b2)
	sl := se + (a2l + b2l)
	r := math.Sqrt(sh)
	res := math.FMA(-r, r, sh) + sl
	corr := res / (r + r)
	if r == 0 {
		corr = 0
	}
	return (r + corr) * inv
}

// powF64 (ptxgen's powMag64 and powSpecials).
func powF64(x, y float64) float64 {
	if special := !(x > 0 && !math.IsInf(x, 1) && !math.IsInf(y, 0) && y == y && y != 0 && y != 1 &&
		math.Abs(y) != 0.5 && x != 1); !special {
		return powMag64(x, y)
	}
	// math.Pow's special cases; a negative finite base with an integer
	// exponent is ±|x|^y.
	if x < 0 && !math.IsInf(x, -1) && y == math.Trunc(y) && !math.IsInf(y, 0) && y != 0 && y != 1 && math.Abs(y) != 0.5 {
		r := powMag64(-x, y)
		if h := y * 0.5; math.Trunc(h) != h {
			r = -r
		}
		return r
	}
	return math.Pow(x, y)
}

var powSeries14 = func() []float64 {
	c := make([]float64, 13)
	for k := range c {
		c[k] = 2 / float64(2*k+5)
	}
	return c
}()

func powMag64(ax, y float64) float64 {
	c := mathcoef.Consts()
	e, fr := logReduce64(ax)
	dh, dl := fastTwoSum(2, fr)
	sh := fr / dh
	res := math.FMA(-sh, dh, fr)
	res = math.FMA(-sh, dl, res)
	sl := res / dh
	zh, zl := twoProd(sh, sh)
	zl = math.FMA(sh+sh, sl, zl)
	rt := zh * horner(zh, powSeries14)
	rh, rl := fastTwoSum(c.TwoThirdsHi, rt)
	rl += c.TwoThirdsLo
	szh, sze := twoProd(sh, zh)
	szl := math.FMA(sh, zl, math.FMA(sl, zh, sze))
	th, te := twoProd(szh, rh)
	tl := math.FMA(szh, rl, math.FMA(szl, rh, te))
	ah, ae := fastTwoSum(sh*2, th)
	al := ae + math.FMA(sl, 2, tl)
	A := e * ln2Hi
	bh, be := twoProd(e, ln2Lo)
	s1, s1e := twoSum(A, ah)
	s2, s2e := twoSum(s1, bh)
	lh, ll := fastTwoSum(s2, (s1e+s2e)+(be+al))
	ph, pe := twoProd(y, lh)
	pl := math.FMA(y, ll, pe)
	pc := ptxMin(ptxMax(ph, -1200), 1200)
	if pc != ph {
		pl = 0
	}
	k := rint(pc * math.Log2E)
	r, rrl := reduceLn2(pc, -pl, k)
	em, eml := expTail(r, rrl)
	qh, ql := fastTwoSum(1, em)
	ql += eml
	return scaleDD(qh, ql, int32(k))
}
