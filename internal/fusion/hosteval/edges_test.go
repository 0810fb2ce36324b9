package hosteval

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gpuarr/gpuarr/device/dtype"
	"github.com/gpuarr/gpuarr/internal/fusion/expr"
)

// edgeCase is one op on one type with operands and the result the package
// doc prescribes.
type edgeCase struct {
	name string
	op   expr.Op
	t    dtype.DType
	a, b val
	want val
}

func minInt(t dtype.DType) val { return val{i: new(big.Int).Neg(pow2(uint(8*t.Size() - 1)))} }
func maxUint(t dtype.DType) val {
	return val{i: new(big.Int).Sub(pow2(uint(8*t.Size())), big.NewInt(1))}
}

func edgeCases() []edgeCase {
	nan, inf := math.NaN(), math.Inf(1)
	negZero := math.Copysign(0, -1)
	var cs []edgeCase
	for _, t := range []dtype.DType{dtype.Int8, dtype.Int16, dtype.Int32, dtype.Int64} {
		cs = append(cs,
			edgeCase{"MinInt/-1", expr.OpDiv, t, minInt(t), iv(-1), minInt(t)},
			edgeCase{"x/0", expr.OpDiv, t, iv(7), iv(0), iv(0)},
			edgeCase{"-x/0", expr.OpDiv, t, iv(-7), iv(0), iv(0)},
			edgeCase{"0/0", expr.OpDiv, t, iv(0), iv(0), iv(0)},
			edgeCase{"-7/2 truncates", expr.OpDiv, t, iv(-7), iv(2), iv(-3)},
			edgeCase{"7/-2 truncates", expr.OpDiv, t, iv(7), iv(-2), iv(-3)},
			edgeCase{"MinInt*-1 wraps", expr.OpMul, t, minInt(t), iv(-1), minInt(t)},
			edgeCase{"MinInt-1 wraps", expr.OpSub, t, minInt(t), iv(1), val{i: wrap(new(big.Int).Sub(minInt(t).i, big.NewInt(1)), t)}},
			edgeCase{"abs MinInt", expr.OpAbs, t, minInt(t), iv(0), minInt(t)},
			edgeCase{"neg MinInt", expr.OpNeg, t, minInt(t), iv(0), minInt(t)},
		)
	}
	for _, t := range []dtype.DType{dtype.Uint8, dtype.Uint16, dtype.Uint32, dtype.Uint64} {
		cs = append(cs,
			edgeCase{"max/0", expr.OpDiv, t, maxUint(t), iv(0), iv(0)},
			edgeCase{"max/2", expr.OpDiv, t, maxUint(t), iv(2), val{i: new(big.Int).Rsh(maxUint(t).i, 1)}},
			edgeCase{"neg wraps", expr.OpNeg, t, iv(1), iv(0), maxUint(t)},
			edgeCase{"abs is identity", expr.OpAbs, t, maxUint(t), iv(0), maxUint(t)},
			edgeCase{"0-1 wraps", expr.OpSub, t, iv(0), iv(1), maxUint(t)},
			edgeCase{"max+1 wraps", expr.OpAdd, t, maxUint(t), iv(1), iv(0)},
			edgeCase{"unsigned compare", expr.OpLt, t, iv(1), maxUint(t), iv(1)},
		)
	}
	for _, t := range []dtype.DType{dtype.Float32, dtype.Float64} {
		cs = append(cs,
			edgeCase{"min NaN,1", expr.OpMin, t, fv(nan), fv(1), fv(nan)},
			edgeCase{"min 1,NaN", expr.OpMin, t, fv(1), fv(nan), fv(nan)},
			edgeCase{"max NaN,1", expr.OpMax, t, fv(nan), fv(1), fv(nan)},
			edgeCase{"max 1,NaN", expr.OpMax, t, fv(1), fv(nan), fv(nan)},
			edgeCase{"min -Inf", expr.OpMin, t, fv(-inf), fv(1), fv(-inf)},
			edgeCase{"lt NaN", expr.OpLt, t, fv(nan), fv(1), iv(0)},
			edgeCase{"ge NaN", expr.OpGe, t, fv(nan), fv(nan), iv(0)},
			edgeCase{"eq NaN", expr.OpEq, t, fv(nan), fv(nan), iv(0)},
			edgeCase{"ne NaN", expr.OpNe, t, fv(nan), fv(nan), iv(1)},
			edgeCase{"ne NaN,1", expr.OpNe, t, fv(nan), fv(1), iv(1)},
			edgeCase{"eq -0,0", expr.OpEq, t, fv(negZero), fv(0), iv(1)},
			edgeCase{"abs -0", expr.OpAbs, t, fv(negZero), fv(0), fv(0)},
			edgeCase{"abs -Inf", expr.OpAbs, t, fv(-inf), fv(0), fv(inf)},
			edgeCase{"neg 0", expr.OpNeg, t, fv(0), fv(0), fv(negZero)},
			edgeCase{"exp +Inf", expr.OpExp, t, fv(inf), fv(0), fv(inf)},
			edgeCase{"exp -Inf", expr.OpExp, t, fv(-inf), fv(0), fv(0)},
			edgeCase{"exp overflow", expr.OpExp, t, fv(1000), fv(0), fv(inf)},
			edgeCase{"log 0", expr.OpLog, t, fv(0), fv(0), fv(-inf)},
			edgeCase{"log -1", expr.OpLog, t, fv(-1), fv(0), fv(nan)},
			edgeCase{"sqrt -1", expr.OpSqrt, t, fv(-1), fv(0), fv(nan)},
			edgeCase{"sqrt -0", expr.OpSqrt, t, fv(negZero), fv(0), fv(negZero)},
			edgeCase{"tanh +Inf", expr.OpTanh, t, fv(inf), fv(0), fv(1)},
			edgeCase{"tanh -Inf", expr.OpTanh, t, fv(-inf), fv(0), fv(-1)},
			edgeCase{"pow 0,-1", expr.OpPow, t, fv(0), fv(-1), fv(inf)},
			edgeCase{"pow NaN,0", expr.OpPow, t, fv(nan), fv(0), fv(1)},
			edgeCase{"1/0", expr.OpDiv, t, fv(1), fv(0), fv(inf)},
			edgeCase{"-1/0", expr.OpDiv, t, fv(-1), fv(0), fv(-inf)},
			edgeCase{"0/0", expr.OpDiv, t, fv(0), fv(0), fv(nan)},
			edgeCase{"Inf-Inf", expr.OpSub, t, fv(inf), fv(inf), fv(nan)},
		)
	}
	// float32 arithmetic is float32's: 1 + 2⁻²⁴ rounds to 1 (ties to even),
	// 16777216 + 1 too, while float64 keeps them.
	cs = append(cs,
		edgeCase{"f32 add rounds", expr.OpAdd, dtype.Float32, fv(1), fv(1.0 / (1 << 24)), fv(1)},
		edgeCase{"f32 add 2^24+1", expr.OpAdd, dtype.Float32, fv(1 << 24), fv(1), fv(1 << 24)},
		edgeCase{"f64 add 2^24+1", expr.OpAdd, dtype.Float64, fv(1 << 24), fv(1), fv(1<<24 + 1)},
		edgeCase{"f32 mul overflow", expr.OpMul, dtype.Float32, fv(1e20), fv(1e20), fv(math.Inf(1))},
	)
	return cs
}

func TestEdgeCases(t *testing.T) {
	dev := hostDevice(t)
	for _, c := range edgeCases() {
		t.Run(c.t.String()+" "+c.name, func(t *testing.T) {
			var code []expr.Instr
			switch {
			case c.op.IsCompare():
				code = []expr.Instr{input(0, c.t), input(1, c.t), bin(c.op, dtype.Bool, 0, 1), un(expr.OpCast, c.t, 2)}
				if !c.t.IsFloat() {
					break
				}
				c.want = fv(c.want.float())
			case c.op.Arity() == 1:
				code = []expr.Instr{input(0, c.t), input(1, c.t), un(c.op, c.t, 0)}
			default:
				code = []expr.Instr{input(0, c.t), input(1, c.t), bin(c.op, c.t, 0, 1)}
			}
			p := elementwise(code, contiguous(c.t, 2))
			got := evalVals(t, dev, p, []val{c.a, c.a}, []val{c.b, c.b})
			for _, g := range got {
				assert.Truef(t, same(c.t, c.want, g), "%s(%v, %v) = %v, want %v", c.op, c.a, c.b, g, c.want)
			}
		})
	}
}

func TestFMA32Exact(t *testing.T) {
	// (1+2⁻¹²)² = 1 + 2⁻¹¹ + 2⁻²⁴ lies halfway between two float32s; a
	// tiny c decides the rounding, which a float64 FMA alone would lose.
	a := float32(1 + 1.0/(1<<12))
	lo := float32(1 + 1.0/(1<<11))
	hi := math.Nextafter32(lo, 2)
	tiny := float32(math.Ldexp(1, -80))
	tests := []struct {
		name    string
		a, b, c float32
		want    float32
	}{
		{"tie broken up", a, a, tiny, hi},
		{"tie broken down", a, a, -tiny, lo},
		{"exact tie to even", a, a, 0, lo},
		{"negated", -a, a, -tiny, -hi},
		{"overflow midpoint", math.MaxFloat32, 1, float32(math.Ldexp(1, 103)), float32(math.Inf(1))},
		{"below overflow midpoint", math.MaxFloat32, 1, float32(math.Ldexp(1, 103)) - float32(math.Ldexp(1, 80)), math.MaxFloat32},
		// 18631·2⁶⁰ × 1801·2⁴³ = (2²⁵-1)·2¹⁰³ = 2¹²⁸-2¹⁰³ exactly, the
		// midpoint above MaxFloat32: a tiny negative c keeps it finite.
		{"overflow midpoint broken down", float32(math.Ldexp(18631, 60)), float32(math.Ldexp(1801, 43)), -1.0 / 1024, math.MaxFloat32},
		{"overflow midpoint broken up", float32(math.Ldexp(18631, 60)), float32(math.Ldexp(1801, 43)), 1.0 / 1024, float32(math.Inf(1))},
		// 2⁻¹⁵⁰ + 2⁻¹⁴⁹ is 1.5 subnormal ulps: ties to even, 2 ulps.
		{"subnormal tie", float32(math.Ldexp(1, -75)), float32(math.Ldexp(1, -75)), float32(math.Ldexp(1, -149)), float32(math.Ldexp(1, -148))},
		{"inf", float32(math.Inf(1)), 1, 1, float32(math.Inf(1))},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := fma32(tc.a, tc.b, tc.c)
			assert.Equal(t, math.Float32bits(tc.want), math.Float32bits(got), "fma32(%g, %g, %g) = %g, want %g", tc.a, tc.b, tc.c, got, tc.want)
			assert.Equal(t, float32(fmaRef(float64(tc.a), float64(tc.b), float64(tc.c), dtype.Float32)), got)
		})
	}
	// Random operands, many of them near midpoints: c cancels most of a·b.
	rng := rand.New(rand.NewPCG(3, 4))
	for i := 0; i < 200_000; i++ {
		x := float32(rng.NormFloat64())
		y := float32(rng.NormFloat64())
		var z float32
		switch i % 3 {
		case 0:
			z = float32(rng.NormFloat64())
		case 1:
			z = -x*y + float32(rng.NormFloat64())*float32(math.Ldexp(1, -30))
		default:
			z = float32(math.Ldexp(rng.NormFloat64(), -40-rng.IntN(60)))
			// 13-bit significands: a·b has 25 or 26 bits, often a
			// float32 midpoint that only z can break.
			x = math.Float32frombits(math.Float32bits(x) &^ 0x7ff)
			y = math.Float32frombits(math.Float32bits(y) &^ 0x7ff)
		}
		want := float32(fmaRef(float64(x), float64(y), float64(z), dtype.Float32))
		require.Equalf(t, math.Float32bits(want), math.Float32bits(fma32(x, y, z)), "fma32(%g, %g, %g)", x, y, z)
	}
}

func TestScalarsAndConstants(t *testing.T) {
	dev := hostDevice(t)
	const n = 5
	tests := []struct {
		name   string
		t      dtype.DType
		scalar any     // as ParamType
		konst  float64 // converted to t by the cast rules
		in     val
		want   val // in · scalar + konst, or with a bool scalar: scalar ? in : konst
	}{
		{"int8 scalar truncates", dtype.Int8, int32(-3 + 256), 1, iv(5), iv(-14)},
		{"int8 const saturates", dtype.Int8, int32(1), 300.7, iv(-100), iv(27)},
		{"uint16 scalar truncates", dtype.Uint16, uint32(70000), 0, iv(1), iv(70000 - 65536)},
		{"uint8 const -1 saturates to 0", dtype.Uint8, uint32(2), -1, iv(3), iv(6)},
		{"int32 const NaN is 0", dtype.Int32, int32(-2), math.NaN(), iv(21), iv(-42)},
		{"int64", dtype.Int64, int64(1 << 40), -1, iv(3), iv(3<<40 - 1)},
		{"uint64", dtype.Uint64, uint64(1 << 63), 0, iv(1), uv(1 << 63)},
		{"float32", dtype.Float32, float32(0.5), 0.1, fv(3), fv(float64(float32(1.5) + float32(0.1)))},
		{"float64", dtype.Float64, 0.25, 1e-3, fv(8), fv(2.001)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := elementwise([]expr.Instr{input(0, tc.t), leaf(expr.OpScalar, tc.t, 0), bin(expr.OpMul, tc.t, 0, 1),
				konst(tc.t, tc.konst), bin(expr.OpAdd, tc.t, 2, 3)}, contiguous(tc.t, 1))
			p.Scalars = []dtype.DType{tc.t}
			c := call{n: n, out: alloc[uint64](t, dev, n), scalars: []any{tc.scalar}}
			c.ins = []inArg{{ptr: upload(t, dev, encode(tc.t, []val{tc.in, tc.in, tc.in, tc.in, tc.in}))}}
			require.NoError(t, run(t, dev, p, c))
			for _, g := range decode(tc.t, download[byte](t, dev, c.out, n*tc.t.Size())) {
				assert.Truef(t, same(tc.t, tc.want, g), "got %v, want %v", g, tc.want)
			}
		})
	}
	t.Run("bool scalar selects", func(t *testing.T) {
		p := elementwise([]expr.Instr{input(0, dtype.Float32), leaf(expr.OpScalar, dtype.Bool, 0), konst(dtype.Float32, -1),
			tern(expr.OpWhere, dtype.Float32, 1, 0, 2)}, contiguous(dtype.Float32, 1))
		p.Scalars = []dtype.DType{dtype.Bool}
		in := upload(t, dev, []float32{1, 2, 3})
		for _, tc := range []struct {
			s    uint32
			want []float32
		}{{0, []float32{-1, -1, -1}}, {2, []float32{1, 2, 3}}} {
			out := alloc[float32](t, dev, 3)
			require.NoError(t, run(t, dev, p, call{n: 3, out: out, ins: []inArg{{ptr: in}}, scalars: []any{tc.s}}))
			assert.Equal(t, tc.want, download[float32](t, dev, out, 3))
		}
	})
	t.Run("leaf result", func(t *testing.T) {
		// A program whose value is a constant, a scalar or an input copies it out.
		for _, code := range [][]expr.Instr{{konst(dtype.Float64, 2.5)}, {leaf(expr.OpScalar, dtype.Float64, 0)}, {input(0, dtype.Float64)}} {
			p := elementwise(code, contiguous(dtype.Float64, 1))
			p.Scalars = []dtype.DType{dtype.Float64}
			out := alloc[float64](t, dev, 2000)
			in := upload(t, dev, slicesRepeat(2.5, 2000))
			require.NoError(t, run(t, dev, p, call{n: 2000, out: out, ins: []inArg{{ptr: in}}, scalars: []any{2.5}}))
			assert.Equal(t, slicesRepeat(2.5, 2000), download[float64](t, dev, out, 2000))
		}
	})
}

func slicesRepeat[T any](v T, n int) []T {
	s := make([]T, n)
	for i := range s {
		s[i] = v
	}
	return s
}
