package hosteval

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gpuarr/gpuarr/device"
	"github.com/gpuarr/gpuarr/device/dtype"
	"github.com/gpuarr/gpuarr/internal/fusion/expr"
)

// opCase is one op checked against a float64 computation on small
// non-zero operands, where float64 is exact for integers and the float32
// result is the float64 one rounded (innocuous for + - * / and the
// definition for the math functions).
type opCase struct {
	name     string
	op       expr.Op
	floats   bool // floats only
	positive bool // operands > 0
	ref      func(a, b, c float64) float64
}

var opCases = []opCase{
	{name: "neg", op: expr.OpNeg, ref: func(a, _, _ float64) float64 { return -a }},
	{name: "abs", op: expr.OpAbs, ref: func(a, _, _ float64) float64 { return math.Abs(a) }},
	{name: "exp", op: expr.OpExp, floats: true, ref: func(a, _, _ float64) float64 { return expF64(a) }},
	{name: "log", op: expr.OpLog, floats: true, positive: true, ref: func(a, _, _ float64) float64 { return math.Log(a) }},
	{name: "sqrt", op: expr.OpSqrt, floats: true, positive: true, ref: func(a, _, _ float64) float64 { return math.Sqrt(a) }},
	{name: "tanh", op: expr.OpTanh, floats: true, ref: func(a, _, _ float64) float64 { return math.Tanh(a) }},
	{name: "add", op: expr.OpAdd, ref: func(a, b, _ float64) float64 { return a + b }},
	{name: "sub", op: expr.OpSub, ref: func(a, b, _ float64) float64 { return a - b }},
	{name: "mul", op: expr.OpMul, ref: func(a, b, _ float64) float64 { return a * b }},
	{name: "div", op: expr.OpDiv, ref: func(a, b, _ float64) float64 { return a / b }},
	{name: "min", op: expr.OpMin, ref: func(a, b, _ float64) float64 { return math.Min(a, b) }},
	{name: "max", op: expr.OpMax, ref: func(a, b, _ float64) float64 { return math.Max(a, b) }},
	{name: "pow", op: expr.OpPow, floats: true, positive: true, ref: func(a, b, _ float64) float64 { return powF64(a, b) }},
	{name: "lt", op: expr.OpLt, ref: func(a, b, _ float64) float64 { return b2f(a < b) }},
	{name: "le", op: expr.OpLe, ref: func(a, b, _ float64) float64 { return b2f(a <= b) }},
	{name: "gt", op: expr.OpGt, ref: func(a, b, _ float64) float64 { return b2f(a > b) }},
	{name: "ge", op: expr.OpGe, ref: func(a, b, _ float64) float64 { return b2f(a >= b) }},
	{name: "eq", op: expr.OpEq, ref: func(a, b, _ float64) float64 { return b2f(a == b) }},
	{name: "ne", op: expr.OpNe, ref: func(a, b, _ float64) float64 { return b2f(a != b) }},
	{name: "fma", op: expr.OpFMA, ref: nil}, // exact reference: fmaRef
	{name: "where", op: expr.OpWhere, ref: func(a, b, _ float64) float64 {
		if a < b {
			return a
		}
		return b
	}},
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// fmaRef is a·b + c rounded once to t, through exact big.Float arithmetic.
func fmaRef(a, b, c float64, t dtype.DType) float64 {
	x := new(big.Float).SetPrec(2000).SetFloat64(a)
	x.Mul(x, new(big.Float).SetFloat64(b))
	x.Add(x, new(big.Float).SetFloat64(c))
	if t == dtype.Float32 {
		f, _ := x.Float32()
		return float64(f)
	}
	f, _ := x.Float64()
	return f
}

// opProgram computes the case over inputs of type t; comparisons are cast
// to t so that arrays can hold the result.
func opProgram(c opCase, t dtype.DType) (*expr.Program, int) {
	in := []expr.Instr{input(0, t), input(1, t), input(2, t)}
	switch {
	case c.op == expr.OpWhere:
		return elementwise([]expr.Instr{in[0], in[1], bin(expr.OpLt, dtype.Bool, 0, 1), tern(expr.OpWhere, t, 2, 0, 1)}, contiguous(t, 2)), 2
	case c.op.IsCompare():
		return elementwise([]expr.Instr{in[0], in[1], bin(c.op, dtype.Bool, 0, 1), un(expr.OpCast, t, 2)}, contiguous(t, 2)), 2
	case c.op.Arity() == 1:
		return elementwise([]expr.Instr{in[0], un(c.op, t, 0)}, contiguous(t, 1)), 1
	case c.op.Arity() == 2:
		return elementwise([]expr.Instr{in[0], in[1], bin(c.op, t, 0, 1)}, contiguous(t, 2)), 2
	}
	return elementwise([]expr.Instr{in[0], in[1], in[2], tern(c.op, t, 0, 1, 2)}, contiguous(t, 3)), 3
}

// operands draws small non-zero values: |x| ≤ 11 for signed types (so
// that products fit int8), 1..15 for unsigned ones, ±[0.25, 4) for floats.
func operands(rng *rand.Rand, t dtype.DType, n int, positive bool) []float64 {
	out := make([]float64, n)
	for i := range out {
		switch {
		case t.IsFloat():
			out[i] = 0.25 + rng.Float64()*3.75
			if !positive && rng.IntN(2) == 0 {
				out[i] = -out[i]
			}
		case t.IsSigned():
			out[i] = float64(1 + rng.IntN(11))
			if rng.IntN(2) == 0 {
				out[i] = -out[i]
			}
		default:
			out[i] = float64(1 + rng.IntN(15))
		}
	}
	return out
}

func TestOps(t *testing.T) {
	dev := hostDevice(t)
	for _, dt := range []dtype.DType{dtype.Int8, dtype.Int16, dtype.Int32, dtype.Int64,
		dtype.Uint8, dtype.Uint16, dtype.Uint32, dtype.Uint64, dtype.Float32, dtype.Float64} {
		t.Run(dt.String(), func(t *testing.T) {
			switch dt {
			case dtype.Int8:
				testOps[int8](t, dev, dt)
			case dtype.Int16:
				testOps[int16](t, dev, dt)
			case dtype.Int32:
				testOps[int32](t, dev, dt)
			case dtype.Int64:
				testOps[int64](t, dev, dt)
			case dtype.Uint8:
				testOps[uint8](t, dev, dt)
			case dtype.Uint16:
				testOps[uint16](t, dev, dt)
			case dtype.Uint32:
				testOps[uint32](t, dev, dt)
			case dtype.Uint64:
				testOps[uint64](t, dev, dt)
			case dtype.Float32:
				testOps[float32](t, dev, dt)
			case dtype.Float64:
				testOps[float64](t, dev, dt)
			}
		})
	}
}

// toT converts an exact float64 result to T: floats round, integers wrap.
func toT[T number](r float64, float bool) T {
	if float {
		return T(r)
	}
	return T(int64(r))
}

func testOps[T number](t *testing.T, dev *device.Device, dt dtype.DType) {
	const n = 3000 // two full chunks and a tail
	rng := rand.New(rand.NewPCG(uint64(dt), 1))
	for _, c := range opCases {
		if c.floats && !dt.IsFloat() {
			continue
		}
		t.Run(c.name, func(t *testing.T) {
			p, arity := opProgram(c, dt)
			vals := make([][]float64, 3)
			call := call{n: n, out: alloc[T](t, dev, n)}
			for k := range arity {
				vals[k] = operands(rng, dt, n, c.positive)
				typed := make([]T, n)
				for i, v := range vals[k] {
					typed[i] = toT[T](v, dt.IsFloat())
				}
				call.ins = append(call.ins, inArg{ptr: upload(t, dev, typed)})
			}
			require.NoError(t, run(t, dev, p, call))
			got := download[T](t, dev, call.out, n)
			for i := range got {
				a, b, cc := at(vals[0], i), at(vals[1], i), at(vals[2], i)
				if dt.IsFloat() {
					// The operands were rounded to T when uploaded.
					a, b, cc = float64(T(a)), float64(T(b)), float64(T(cc))
				}
				var want T
				switch {
				case c.op == expr.OpFMA && dt.IsFloat():
					want = T(fmaRef(a, b, cc, dt))
				case c.op == expr.OpFMA:
					want = toT[T](a*b+cc, false)
				case c.op == expr.OpDiv && !dt.IsFloat():
					want = toT[T](math.Trunc(a/b), false)
				default:
					want = toT[T](c.ref(a, b, cc), dt.IsFloat())
				}
				require.Equalf(t, want, got[i], "%s(%v, %v, %v) at %d", c.name, a, b, cc, i)
			}
		})
	}
}

func at(v []float64, i int) float64 {
	if v == nil {
		return 0
	}
	return v[i]
}
