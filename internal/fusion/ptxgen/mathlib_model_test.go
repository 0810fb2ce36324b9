package ptxgen

import (
	"math"
	"math/big"

	"github.com/gpuarr/gpuarr/internal/fusion/mathcoef"
)

// Go models of the PTX math library: the same constants and the same
// operations in the same order (math.FMA where the PTX has fma.rn, explicit
// conversions where it rounds, so Go fuses nothing), so the accuracy tests
// of a model check the algorithm and its constants, and on a GPU the PTX
// must reproduce its model bit for bit.

// PTX min and max return the other operand when one is NaN.
func ptxMin64(a, b float64) float64 {
	switch {
	case math.IsNaN(a):
		return b
	case math.IsNaN(b):
		return a
	}
	return math.Min(a, b)
}

func ptxMax64(a, b float64) float64 {
	switch {
	case math.IsNaN(a):
		return b
	case math.IsNaN(b):
		return a
	}
	return math.Max(a, b)
}

func ptxMin32(a, b float32) float32 { return float32(ptxMin64(float64(a), float64(b))) }
func ptxMax32(a, b float32) float32 { return float32(ptxMax64(float64(a), float64(b))) }

// fma32 is fma.rn.f32: a·b+c rounded once to float32. The float64 fma is
// exact up to one rounding, and rounding that to float32 is right unless
// it landed exactly halfway between two float32s; then big.Float decides.
func fma32(a, b, c float32) float32 {
	s := math.FMA(float64(a), float64(b), float64(c))
	r := float32(s)
	if float64(r) == s || math.IsInf(s, 0) || math.IsNaN(s) {
		return r
	}
	other := math.Nextafter32(r, float32(math.Copysign(math.Inf(1), s-float64(r))))
	if s != (float64(r)+float64(other))/2 {
		return r
	}
	x := new(big.Float).SetPrec(400).SetFloat64(float64(a))
	x.Mul(x, new(big.Float).SetFloat64(float64(b)))
	x.Add(x, new(big.Float).SetFloat64(float64(c)))
	f, _ := x.Float32()
	return f
}

func horner64(x float64, c []float64) float64 {
	p := c[len(c)-1]
	for i := len(c) - 2; i >= 0; i-- {
		p = math.FMA(p, x, c[i])
	}
	return p
}

func horner32(x float32, c []float32) float32 {
	p := c[len(c)-1]
	for i := len(c) - 2; i >= 0; i-- {
		p = fma32(p, x, c[i])
	}
	return p
}

func pow2F64(n int32) float64 { return math.Float64frombits(uint64(n+1023) << 52) }
func pow2F32(n int32) float32 { return math.Float32frombits(uint32(n+127) << 23) }

func expF64Model(x float64) float64 {
	xc := ptxMin64(ptxMax64(x, expF64Lo), expF64Hi)
	n := math.RoundToEven(float64(xc * log2E))
	r := math.FMA(-n, ln2Hi, xc)
	r = math.FMA(-n, ln2Lo, r)
	p := horner64(r, expF64Coef)
	ni := int32(n)
	n1 := ni >> 1
	n2 := ni - n1
	y := float64(p*pow2F64(n1)) * pow2F64(n2)
	if math.IsNaN(x) {
		return x
	}
	return y
}

func expF32Model(x float32) float32 {
	xc := ptxMin32(ptxMax32(x, expF32Lo), expF32Hi)
	n := float32(math.RoundToEven(float64(xc) * float64(float32(log2E)))) // the exact product, rounded once
	r := fma32(-n, ln2HiF32, xc)
	r = fma32(-n, ln2LoF32, r)
	p := horner32(r, expF32Coef)
	ni := int32(n)
	n1 := ni >> 1
	n2 := ni - n1
	y := float32(p*pow2F32(n1)) * pow2F32(n2)
	if x != x {
		return x
	}
	return y
}

func logF64Model(x float64) float64 {
	xs, eadj := x, int32(0)
	if x < 0x1p-1022 {
		xs, eadj = x*0x1p54, -54
	}
	b := math.Float64bits(xs)
	e := int32(b >> 52 & 0x7FF)
	m := b & (1<<52 - 1)
	mb, eb := m|0x3FF0000000000000, int32(-1023)
	if m > sqrt2MantF64 {
		mb, eb = m|0x3FE0000000000000, -1022
	}
	e += eb
	e += eadj
	f := math.Float64frombits(mb) - 1
	s := f / float64(f+2)
	s2 := float64(s * s)
	rr := float64(s2 * horner64(s2, logF64Coef))
	hf := float64(float64(f*f) * 0.5)
	corr := math.FMA(-s, float64(hf+rr), hf)
	lm := f - corr
	fe := float64(e)
	res := math.FMA(fe, ln2Hi, math.FMA(fe, ln2Lo, lm))
	switch {
	case math.IsNaN(x):
		return x
	case x < 0:
		return math.NaN()
	case x == 0:
		return math.Inf(-1)
	case math.IsInf(x, 1):
		return x
	}
	return res
}

// logCore32Model is logCore32: x = 2^e·(1+f), 1+f in [√½, √2).
func logCore32Model(x float32) (ef, f float32) {
	xs, k := x, uint32(logSqrtHalfBits)
	if x < 0x1p-126 {
		xs, k = x*0x1p23, k+23<<23
	}
	tmp := int32(math.Float32bits(xs) - k)
	mb := uint32(tmp&(1<<23-1)) + logSqrtHalfBits
	return float32(tmp >> 23), math.Float32frombits(mb) - 1
}

// logSpecials32Model is logSpecials32.
func logSpecials32Model(x, y float32) float32 {
	switch {
	case x > 0 && x < float32(math.Inf(1)):
		return y
	case x == 0:
		return float32(math.Inf(-1))
	}
	return fma32(x, float32(math.Inf(1)), float32(math.Inf(1)))
}

func logF32Model(x float32) float32 {
	e, f := logCore32Model(x)
	r := fma32(float32(f*f), horner32(f, mathcoef.LnQF32), f)
	return logSpecials32Model(x, fma32(e, float32(math.Ln2), r))
}

// logBase32Model is logBase32.
func logBase32Model(f float32, c []float32) float32 {
	return fma32(f, c[0], float32(float32(f*f)*horner32(f, c[1:])))
}

func log2F32Model(x float32) float32 {
	e, f := logCore32Model(x)
	return logSpecials32Model(x, e+logBase32Model(f, mathcoef.Log2PF32))
}

func log10F32Model(x float32) float32 {
	e, f := logCore32Model(x)
	u := logBase32Model(f, mathcoef.Log10PF32)
	return logSpecials32Model(x, fma32(e, log10of2Hi32, fma32(e, log10of2Lo32, u)))
}

func log1pF32Model(x float32) float32 {
	u := 1 + x
	c := x - (u - 1)
	eb := uint32(int32(math.Float32bits(u)-logSqrtHalfBits)) & 0xFF800000
	f := math.Float32frombits(math.Float32bits(u)-eb) - 1
	s := math.Float32frombits(0x40000000 - eb)
	q := fma32(fma32(f, 0.5, -0.5), f, 0.5)
	corr := float32(float32(c*s) * q)
	r := f + fma32(float32(f*f), horner32(f, mathcoef.LnQF32), corr)
	y := fma32(float32(int32(eb)), float32(math.Ln2*0x1p-23), r)
	inf := float32(math.Inf(1))
	switch {
	case x == 0:
		return x
	case x > -1 && x < inf:
		return y
	case x == -1:
		return -inf
	}
	return fma32(x, inf, inf)
}

func cos2piModel(u float64) float64 {
	q := math.RoundToEven(float64(u * 4))
	t := math.FMA(q, -0.25, u)
	th := float64(t * twoPi)
	th2 := float64(th * th)
	s := math.FMA(float64(th*th2), horner64(th2, sinF64Coef), th)
	c := math.FMA(th2, horner64(th2, cosF64Coef), 1)
	switch int32(q) & 3 {
	case 1:
		return -s
	case 2:
		return -c
	case 3:
		return s
	}
	return c
}

func philoxModel(seed, counter, stream uint64) [4]uint32 {
	c := [4]uint32{uint32(counter), uint32(counter >> 32), uint32(stream), uint32(stream >> 32)}
	k0, k1 := uint32(seed), uint32(seed>>32)
	for r := 0; r < philoxRounds; r++ {
		if r > 0 {
			k0 += philoxW0
			k1 += philoxW1
		}
		p0 := uint64(philoxM0) * uint64(c[0])
		p1 := uint64(philoxM1) * uint64(c[2])
		c = [4]uint32{uint32(p1>>32) ^ c[1] ^ k0, uint32(p1), uint32(p0>>32) ^ c[3] ^ k1, uint32(p0)}
	}
	return c
}

func join64(hi, lo uint32) uint64 { return uint64(hi)<<32 | uint64(lo) }

func uniformF32Model(seed, counter, stream uint64) float32 {
	x := philoxModel(seed, counter, stream)
	return float32(x[0]>>8) * twoM24
}

func uniformF64Model(seed, counter, stream uint64) float64 {
	x := philoxModel(seed, counter, stream)
	return float64(join64(x[0], x[1])>>11) * twoM53
}

func boxMullerModel(u1, u2 float64) float64 {
	rad := math.Sqrt(float64(-2 * logF64Model(u1)))
	return rad * cos2piModel(u2)
}

func normalF32Model(seed, counter, stream uint64) float32 {
	x := philoxModel(seed, counter, stream)
	u1 := float64(x[0]>>8+1) * twoM24
	u2 := float64(x[1]>>8) * twoM24
	return float32(boxMullerModel(u1, u2))
}

func normalF64Model(seed, counter, stream uint64) float64 {
	x := philoxModel(seed, counter, stream)
	u1 := float64(join64(x[0], x[1])>>11+1) * twoM53
	u2 := float64(join64(x[2], x[3])>>11) * twoM53
	return boxMullerModel(u1, u2)
}

func atanF32Model(x float32) float32 {
	c := mathcoef.Consts()
	a := float32(math.Abs(float64(x)))
	u := ptxMin32(a, float32(1/float64(a)))
	z := float32(u * u)
	r := fma32(float32(u*z), horner32(z, mathcoef.AtanWideF32), u)
	y := r
	if a > 1 {
		y = c.Pio2Hi32 + float32(c.Pio2Lo32-r)
	}
	return float32(math.Copysign(float64(y), float64(x)))
}
