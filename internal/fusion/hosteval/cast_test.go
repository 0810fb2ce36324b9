package hosteval

import (
	"math"
	"math/big"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/gpuarr/gpuarr/device/dtype"
	"github.com/gpuarr/gpuarr/internal/fusion/expr"
)

var numericTypes = []dtype.DType{dtype.Int8, dtype.Int16, dtype.Int32, dtype.Int64,
	dtype.Uint8, dtype.Uint16, dtype.Uint32, dtype.Uint64, dtype.Float32, dtype.Float64}

// castSources are the edge values each source type is loaded with (each
// wrapped or rounded into the type first).
func castSources(t dtype.DType) []val {
	if t.IsFloat() {
		var vs []val
		for _, f := range []float64{math.NaN(), math.Inf(1), math.Inf(-1), 0, math.Copysign(0, -1),
			0.5, -0.5, 0.99, -0.99, 1.5, -1.5, 127.5, 128, -128.5, -129, 255.9, 256, -32768.5, 65535.5,
			1<<31 - 0.5, 1 << 31, -1 << 31, -1<<31 - 1, 1 << 32, 1<<53 + 1, 1 << 63, -1 << 63, -1<<63 - 4096,
			1 << 64, 1e30, -1e30, math.MaxFloat32, 1e300, -1e300, 5e-324, 1e-40} {
			vs = append(vs, fv(f))
		}
		return vs
	}
	vs := []val{iv(0), iv(1), iv(-1), iv(127), iv(128), iv(-128), iv(-129), iv(255), iv(256), iv(32767),
		iv(-32768), iv(65535), iv(1<<31 - 1), iv(-1 << 31), iv(1<<32 - 1), iv(1<<24 + 1), iv(1<<24 + 3),
		iv(1<<53 + 1), iv(math.MaxInt64), iv(math.MinInt64), uv(math.MaxUint64), uv(1<<63 + 1025)}
	for k := range vs {
		vs[k] = val{i: wrap(vs[k].i, t)}
	}
	return vs
}

// castRef is expr.Castable's conversion, computed with math/big.
func castRef(v val, to dtype.DType) val {
	switch {
	case to.IsFloat() && v.isInt():
		f := new(big.Float).SetInt(v.i)
		if to == dtype.Float32 {
			x, _ := f.Float32()
			return fv(float64(x))
		}
		x, _ := f.Float64()
		return fv(x)
	case to.IsFloat():
		if to == dtype.Float32 && !math.IsNaN(v.f) {
			x, _ := big.NewFloat(v.f).Float32() // round to nearest even
			return fv(float64(x))
		}
		return v
	case v.isInt():
		return val{i: wrap(v.i, to)}
	case math.IsNaN(v.f):
		return iv(0)
	}
	bits := uint(8 * to.Size())
	lo, hi := big.NewInt(0), new(big.Int).Sub(pow2(bits), big.NewInt(1))
	if to.IsSigned() {
		lo = new(big.Int).Neg(pow2(bits - 1))
		hi = new(big.Int).Sub(pow2(bits-1), big.NewInt(1))
	}
	switch {
	case math.IsInf(v.f, 1):
		return val{i: hi}
	case math.IsInf(v.f, -1):
		return val{i: lo}
	}
	x, _ := big.NewFloat(v.f).Int(nil) // truncates toward zero
	if x.Cmp(lo) < 0 {
		x = lo
	}
	if x.Cmp(hi) > 0 {
		x = hi
	}
	return val{i: x}
}

func isZero(v val) bool {
	if v.isInt() {
		return v.i.Sign() == 0
	}
	return v.f == 0
}

func TestCasts(t *testing.T) {
	dev := hostDevice(t)
	for _, from := range numericTypes {
		src := castSources(from)
		// Number to number.
		for _, to := range numericTypes {
			t.Run(from.String()+"→"+to.String(), func(t *testing.T) {
				p := elementwise([]expr.Instr{input(0, from), un(expr.OpCast, to, 0)}, contiguous(from, 1))
				got := evalVals(t, dev, p, src)
				loaded := decode(from, encode(from, src))
				for k, v := range loaded {
					want := castRef(v, to)
					assert.Truef(t, same(to, want, got[k]), "cast %s %v to %s: got %v, want %v", from, v, to, got[k], want)
				}
			})
		}
		// Through Bool: number → Bool is x != 0 (NaN too); Bool → number 0 or 1.
		for _, to := range []dtype.DType{dtype.Uint8, dtype.Int64, dtype.Float32} {
			t.Run(from.String()+"→bool→"+to.String(), func(t *testing.T) {
				p := elementwise([]expr.Instr{input(0, from), un(expr.OpCast, dtype.Bool, 0), un(expr.OpCast, to, 1)}, contiguous(from, 1))
				got := evalVals(t, dev, p, src)
				for k, v := range decode(from, encode(from, src)) {
					want := iv(1)
					if isZero(v) {
						want = iv(0)
					}
					if to.IsFloat() {
						want = fv(want.float())
					}
					assert.Truef(t, same(to, want, got[k]), "bool(%v) as %s: got %v", v, to, got[k])
				}
			})
		}
	}
}
