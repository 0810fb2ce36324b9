package hosteval

import (
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gpuarr/gpuarr/device/dtype"
	"github.com/gpuarr/gpuarr/internal/fusion/expr"
)

// wideRef is the exact mean of vals (as big integers): the quotient
// truncated toward zero, and the mean rounded to float64 once.
func wideRef(vals []*big.Int) (trunc *big.Int, mean float64) {
	s := new(big.Int)
	for _, v := range vals {
		s.Add(s, v)
	}
	c := big.NewInt(int64(len(vals)))
	trunc = new(big.Int).Quo(s, c)
	mean, _ = new(big.Rat).SetFrac(s, c).Float64()
	return trunc, mean
}

// TestWideMean: integer means are exact where a 64-bit sum would wrap
// (4 × MaxInt64/2 once gave -1), in one stage and over partials, into the
// value type (truncated) and into float64 (within an ulp of the exact
// mean).
func TestWideMean(t *testing.T) {
	dev := hostDevice(t)
	const half = math.MaxInt64 / 2
	cases := []struct {
		name string
		dt   dtype.DType
		vals []uint64 // two's-complement bits
	}{
		{"int64 near max", dtype.Int64, []uint64{half, half, half, half}},
		{"int64 near min", dtype.Int64, []uint64{1 << 63, 1 << 63, 1 << 63, 1<<63 + 7, 1 << 63}},
		{"int64 mixed", dtype.Int64, []uint64{math.MaxInt64, math.MaxInt64, 1 << 63, uint64(1<<64 - 5)}},
		{"uint64 near max", dtype.Uint64, []uint64{math.MaxUint64, math.MaxUint64, math.MaxUint64 - 1, math.MaxUint64}},
		{"int32 negative", dtype.Int32, []uint64{0xFFFFFFFF, 0xFFFFFFFD, 0x80000000, 0x80000000}},
	}
	rng := rand.New(rand.NewPCG(3, 4))
	long := make([]uint64, 50_000)
	for i := range long {
		long[i] = math.MaxInt64 - uint64(rng.IntN(1000))
	}
	cases = append(cases, struct {
		name string
		dt   dtype.DType
		vals []uint64
	}{"int64 50000 near max", dtype.Int64, long})

	for _, c := range cases {
		vals := make([]*big.Int, len(c.vals))
		for i, u := range c.vals {
			switch {
			case c.dt == dtype.Int64:
				vals[i] = big.NewInt(int64(u))
			case c.dt == dtype.Int32:
				vals[i] = big.NewInt(int64(int32(uint32(u))))
			default:
				vals[i] = new(big.Int).SetUint64(u)
			}
		}
		trunc, mean := wideRef(vals)
		in := upload(t, dev, encode(c.dt, bigVals(vals)))
		n := uint64(len(vals))
		for _, rt := range []dtype.DType{c.dt, dtype.Float64, dtype.Float32} {
			check := func(t *testing.T, got val) {
				switch {
				case rt == dtype.Float64:
					assert.InDelta(t, mean, got.f, math.Abs(mean)*0x1p-52, "mean %v", mean)
				case rt == dtype.Float32:
					assert.Equal(t, float64(float32(mean)), got.f, "mean %v", mean)
				default:
					assert.Equal(t, trunc.String(), got.i.String())
				}
			}
			t.Run(fmt.Sprintf("%s into %s", c.name, rt), func(t *testing.T) {
				p := &expr.Program{Code: []expr.Instr{input(0, c.dt)}, Inputs: contiguous(c.dt, 1), Reduce: expr.Mean, ArgIndex: -1, Result: rt}
				out := alloc[uint64](t, dev, 1)
				require.NoError(t, run(t, dev, p, call{out: out, groups: 1, glen: n, count: n, ins: []inArg{{ptr: in}}}))
				check(t, decode(rt, download[byte](t, dev, out, rt.Size()))[0])

				// Over partials: low words, high words, then a Final stage.
				const bpg = 3
				pp := &expr.Program{Code: []expr.Instr{input(0, c.dt)}, Inputs: contiguous(c.dt, 1), Reduce: expr.Mean, Stage: expr.Partial, ArgIndex: -1}
				pc := call{out: alloc[uint64](t, dev, bpg), out2: alloc[int64](t, dev, bpg), groups: 1, glen: n, bpg: bpg, count: n, ins: []inArg{{ptr: in}}}
				require.NoError(t, run(t, dev, pp, pc))
				f := &expr.Program{Code: []expr.Instr{input(0, dtype.Uint64)}, Inputs: []expr.Input{{T: dtype.Uint64}, {T: dtype.Int64}},
					Reduce: expr.Mean, ArgIndex: 1, Result: rt}
				fc := call{out: alloc[uint64](t, dev, 1), groups: 1, glen: bpg, count: n, ins: []inArg{{ptr: pc.out}, {ptr: pc.out2}}}
				require.NoError(t, run(t, dev, f, fc))
				check(t, decode(rt, download[byte](t, dev, fc.out, rt.Size()))[0])
			})
		}
	}
}

func bigVals(vs []*big.Int) []val {
	out := make([]val, len(vs))
	for i, v := range vs {
		out[i] = val{i: v}
	}
	return out
}

// TestWideQuotient checks the division of 128-bit sums against big.Int,
// including counts whose quotient needs all 64 bits and a zero count.
func TestWideQuotient(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	two64 := new(big.Int).Lsh(big.NewInt(1), 64)
	for i := range 20_000 {
		c := rng.Uint64() >> rng.IntN(64)
		if i%7 == 0 {
			c = uint64(1 + rng.IntN(5))
		}
		if c == 0 {
			c = 1
		}
		// |S| < c·2⁶³ for a signed sum, so that the quotient fits.
		mag := new(big.Int).Mul(new(big.Int).SetUint64(c), new(big.Int).SetUint64(rng.Uint64()>>1))
		mag.Add(mag, new(big.Int).SetUint64(rng.Uint64()%c))
		s := new(big.Int).Set(mag)
		if rng.IntN(2) == 0 {
			s.Neg(s)
		}
		bits := new(big.Int).Mod(s, new(big.Int).Lsh(two64, 64)) // two's complement in 128 bits
		lo := new(big.Int).Mod(bits, two64).Uint64()
		hi := new(big.Int).Rsh(bits, 64).Uint64()
		q, r, neg := wideQuotient(lo, hi, c)
		wq, wr := new(big.Int).QuoRem(mag, new(big.Int).SetUint64(c), new(big.Int))
		require.Equal(t, s.Sign() < 0, neg, "S %v", s)
		require.Equal(t, wq.Uint64(), q, "S %v c %d", s, c)
		require.Equal(t, wr.Uint64(), r, "S %v c %d", s, c)
	}
	q, r, neg := wideQuotient(5, 0, 0)
	assert.Equal(t, [3]any{uint64(0), uint64(0), false}, [3]any{q, r, neg}, "count 0")
}
