package hosteval

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/big"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gpuarr/gpuarr/device"
	"github.com/gpuarr/gpuarr/device/dtype"
	"github.com/gpuarr/gpuarr/internal/fusion/expr"
)

// val is a test value of any element type: an exact integer or a float64
// (float32 values are exact in float64). Tests build memory from vals and
// decode results into vals, so that one table covers every dtype.
type val struct {
	i *big.Int // integers
	f float64  // floats
}

func iv(x int64) val       { return val{i: big.NewInt(x)} }
func uv(x uint64) val      { return val{i: new(big.Int).SetUint64(x)} }
func fv(x float64) val     { return val{f: x} }
func pow2(e uint) *big.Int { return new(big.Int).Lsh(big.NewInt(1), e) }
func (v val) isInt() bool  { return v.i != nil }
func (v val) float() float64 {
	if v.i != nil {
		f, _ := new(big.Float).SetInt(v.i).Float64()
		return f
	}
	return v.f
}

// wrap reduces x into t's range (two's complement).
func wrap(x *big.Int, t dtype.DType) *big.Int {
	bits := uint(8 * t.Size())
	r := new(big.Int).Mod(x, pow2(bits))
	if t.IsSigned() && r.Cmp(pow2(bits-1)) >= 0 {
		r.Sub(r, pow2(bits))
	}
	return r
}

// encode writes vals as elements of type t: integers wrap, floats round.
func encode(t dtype.DType, vals []val) []byte {
	size := t.Size()
	b := make([]byte, len(vals)*size)
	for k, v := range vals {
		e := b[k*size:]
		switch t {
		case dtype.Float32:
			binary.LittleEndian.PutUint32(e, math.Float32bits(float32(v.float())))
		case dtype.Float64:
			binary.LittleEndian.PutUint64(e, math.Float64bits(v.float()))
		default:
			u := new(big.Int).Mod(v.i, pow2(64)).Uint64()
			for j := range size {
				e[j] = byte(u >> (8 * j))
			}
		}
	}
	return b
}

func decode(t dtype.DType, b []byte) []val {
	size := t.Size()
	out := make([]val, len(b)/size)
	for k := range out {
		e := b[k*size:]
		switch t {
		case dtype.Float32:
			out[k] = fv(float64(math.Float32frombits(binary.LittleEndian.Uint32(e))))
		case dtype.Float64:
			out[k] = fv(math.Float64frombits(binary.LittleEndian.Uint64(e)))
		default:
			var u uint64
			for j := range size {
				u |= uint64(e[j]) << (8 * j)
			}
			out[k] = val{i: wrap(new(big.Int).SetUint64(u), t)}
		}
	}
	return out
}

// same compares a result with its expectation: floats bit for bit (any
// NaN matches any NaN), integers exactly.
func same(t dtype.DType, want, got val) bool {
	if !t.IsFloat() {
		return want.i.Cmp(got.i) == 0
	}
	if math.IsNaN(want.f) {
		return math.IsNaN(got.f)
	}
	if t == dtype.Float32 {
		return math.Float32bits(float32(want.f)) == math.Float32bits(float32(got.f))
	}
	return math.Float64bits(want.f) == math.Float64bits(got.f)
}

func (v val) String() string {
	if v.i != nil {
		return v.i.String()
	}
	return fmt.Sprint(v.f)
}

// evalVals runs an elementwise program over inputs given as vals and
// returns the result as vals.
func evalVals(t *testing.T, dev *device.Device, p *expr.Program, ins ...[]val) []val {
	t.Helper()
	n := len(ins[0])
	c := call{n: uint64(n), out: alloc[byte](t, dev, n*p.OutType().Size())}
	for i, vs := range ins {
		c.ins = append(c.ins, inArg{ptr: upload(t, dev, encode(p.Inputs[i].T, vs))})
	}
	require.NoError(t, run(t, dev, p, c))
	return decode(p.OutType(), download[byte](t, dev, c.out, n*p.OutType().Size()))
}
