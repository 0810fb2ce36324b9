package hosteval

import (
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gpuarr/gpuarr/device"
	"github.com/gpuarr/gpuarr/device/dtype"
	"github.com/gpuarr/gpuarr/internal/fusion/expr"
)

var reduceOps = []expr.ReduceOp{expr.Sum, expr.Prod, expr.Min, expr.Max, expr.Mean, expr.ArgMin, expr.ArgMax}

var reduceShapes = []struct{ groups, glen int }{
	{1, 100_000}, // one group cut between goroutines
	{1000, 7},    // many small groups per chunk
	{3, 40_000},
	{4, 0}, // empty groups: identities
	{7, 1},
}

func TestReductions(t *testing.T) {
	dev := hostDevice(t)
	for _, dt := range []dtype.DType{dtype.Float32, dtype.Float64, dtype.Int32, dtype.Uint8, dtype.Int64, dtype.Uint64} {
		t.Run(dt.String(), func(t *testing.T) {
			switch dt {
			case dtype.Float32:
				testReduce[float32](t, dev, dt)
			case dtype.Float64:
				testReduce[float64](t, dev, dt)
			case dtype.Int32:
				testReduce[int32](t, dev, dt)
			case dtype.Uint8:
				testReduce[uint8](t, dev, dt)
			case dtype.Int64:
				testReduce[int64](t, dev, dt)
			case dtype.Uint64:
				testReduce[uint64](t, dev, dt)
			}
		})
	}
}

// reduceValues draws a group's values for op: near 1 for products (so
// that 10⁵ of them stay finite), small integers (many ties) for the
// comparisons, and a few NaNs in every third float group for them.
func reduceValues[T number](rng *rand.Rand, dt dtype.DType, op expr.ReduceOp, groups, glen int) []T {
	v := make([]T, groups*glen)
	for i := range v {
		switch {
		case dt.IsFloat() && op == expr.Prod:
			v[i] = T(1 + rng.NormFloat64()*0.001)
		case dt.IsFloat() && (op == expr.Sum || op == expr.Mean):
			v[i] = T(0.5 + rng.Float64())
		case dt.IsFloat():
			v[i] = T(rng.IntN(50)) - 25
		case op == expr.Prod:
			v[i] = T(1 + rng.IntN(3))
		case dt.IsSigned():
			v[i] = T(rng.IntN(40) - 20)
		default:
			v[i] = T(rng.IntN(200))
		}
	}
	if dt.IsFloat() && op != expr.Sum && op != expr.Mean && op != expr.Prod {
		for g := 1; g < groups; g += 3 {
			if glen > 2 {
				v[g*glen+glen/2] = T(math.NaN())
				v[g*glen+glen-1] = T(math.NaN())
			}
		}
	}
	return v
}

// reduceRef is the group's exact answer as a float64 (floats: the exact
// sum or product, rounded once), the wrapped integer sum or product as
// uint64 bits, the min/max value, or the Arg position.
type refResult struct {
	f   float64
	u   uint64
	v   float64
	pos int64
}

func reduceRef[T number](vals []T, op expr.ReduceOp, dt dtype.DType) refResult {
	r := refResult{pos: -1}
	switch op {
	case expr.Sum, expr.Mean, expr.Prod:
		x := new(big.Float).SetPrec(4000)
		if op == expr.Prod {
			x.SetFloat64(1)
			r.u = 1
		}
		for _, v := range vals {
			if op == expr.Prod {
				x.Mul(x, big.NewFloat(float64(v)))
				r.u *= uint64(int64(v))
			} else {
				x.Add(x, big.NewFloat(float64(v)))
				r.u += uint64(int64(v))
			}
		}
		r.f, _ = x.Float64()
	case expr.Min, expr.ArgMin:
		r.v = math.Inf(1)
		if !dt.IsFloat() {
			r.v = math.MaxFloat64
		}
	default:
		r.v = math.Inf(-1)
		if !dt.IsFloat() {
			r.v = -math.MaxFloat64
		}
	}
	if op == expr.Sum || op == expr.Mean || op == expr.Prod {
		return r
	}
	for k, v := range vals {
		f := float64(v)
		isMin := op == expr.Min || op == expr.ArgMin
		switch {
		case math.IsNaN(r.v):
		case math.IsNaN(f), isMin && f < r.v, !isMin && f > r.v:
			r.v, r.pos = f, int64(k)
		}
	}
	return r
}

// accT is a partial's type.
func accT(op expr.ReduceOp, dt dtype.DType) dtype.DType { return expr.AccType(op, dt) }

func testReduce[T number](t *testing.T, dev *device.Device, dt dtype.DType) {
	rng := rand.New(rand.NewPCG(uint64(dt), 9))
	for _, op := range reduceOps {
		for _, sh := range reduceShapes {
			vals := reduceValues[T](rng, dt, op, sh.groups, sh.glen)
			refs := make([]refResult, sh.groups)
			for g := range refs {
				refs[g] = reduceRef(vals[g*sh.glen:(g+1)*sh.glen], op, dt)
			}
			in := upload(t, dev, append(vals, 0)) // never empty
			name := fmt.Sprintf("%s %dx%d", op, sh.groups, sh.glen)
			t.Run(name+" final", func(t *testing.T) {
				p := &expr.Program{Code: []expr.Instr{input(0, dt)}, Inputs: contiguous(dt, 1), Reduce: op, ArgIndex: -1}
				rt := p.OutType()
				out := alloc[uint64](t, dev, sh.groups)
				require.NoError(t, run(t, dev, p, call{out: out, groups: uint64(sh.groups), glen: uint64(sh.glen), count: uint64(sh.glen), ins: []inArg{{ptr: in}}}))
				got := decode(rt, download[byte](t, dev, out, sh.groups*rt.Size()))
				for g, ref := range refs {
					checkFinal(t, op, dt, rt, ref, float64(sh.glen), got[g], g)
				}
			})
			for _, bpg := range []int{1, 3, 64} {
				t.Run(fmt.Sprintf("%s partial bpg %d", name, bpg), func(t *testing.T) {
					testPartial(t, dev, op, dt, in, sh.groups, sh.glen, bpg, refs)
				})
			}
		}
	}
}

// checkFinal compares a Final result with the reference.
func checkFinal(t *testing.T, op expr.ReduceOp, dt, rt dtype.DType, ref refResult, count float64, got val, g int) {
	t.Helper()
	msg := fmt.Sprintf("group %d", g)
	switch {
	case op.IsArg():
		assert.Equal(t, ref.pos, got.i.Int64(), msg)
	case op == expr.Min || op == expr.Max:
		want := fv(ref.v)
		if !dt.IsFloat() {
			want = val{i: big.NewInt(int64(ref.v))}
			if ref.v == math.MaxFloat64 || ref.v == -math.MaxFloat64 { // identity
				want = identityInt(op, dt)
			}
		}
		assert.Truef(t, same(rt, want, got), "%s: got %v, want %v", msg, got, want)
	case rt.IsFloat():
		want := ref.f
		if op == expr.Mean {
			want /= count
		}
		if count == 0 && op == expr.Mean {
			assert.True(t, math.IsNaN(got.f), msg) // 0/0
			return
		}
		tol := 1e-13
		if rt == dtype.Float32 {
			tol = 1e-7
		}
		assert.InDelta(t, want, got.f, tol*math.Abs(want)+1e-300, msg)
	case op == expr.Mean:
		sum := float64(int64(ref.u))
		if !dt.IsSigned() {
			sum = float64(ref.u)
		}
		want := castValue(sum/count, rt)
		assert.Equal(t, decode(rt, encode(rt, []val{val{i: new(big.Int).SetUint64(want)}}))[0].i.Int64(), got.i.Int64(), msg)
	default: // integer Sum, Prod: wrapped
		assert.Equal(t, wrap(new(big.Int).SetUint64(ref.u), rt).String(), got.i.String(), msg)
	}
}

func identityInt(op expr.ReduceOp, dt dtype.DType) val {
	r := rangeOf(dt)
	if op == expr.Min || op == expr.ArgMin {
		return val{i: new(big.Int).SetUint64(r.max)}
	}
	return val{i: big.NewInt(r.min)}
}

// testPartial runs the Partial stage, checks the empty parts' identities,
// then finishes with a Final stage over the partials (with ArgIndex for
// the Arg reductions) and checks that against the reference.
func testPartial(t *testing.T, dev *device.Device, op expr.ReduceOp, dt dtype.DType, in device.Ptr, groups, glen, bpg int, refs []refResult) {
	p := &expr.Program{Code: []expr.Instr{input(0, dt)}, Inputs: contiguous(dt, 1), Reduce: op, Stage: expr.Partial, ArgIndex: -1}
	pt := p.OutType()
	np := groups * bpg
	c := call{out: alloc[uint64](t, dev, np), groups: uint64(groups), glen: uint64(glen), bpg: uint64(bpg), count: uint64(glen), ins: []inArg{{ptr: in}}}
	if p.HasOut2() {
		c.out2 = alloc[int64](t, dev, np)
	}
	require.NoError(t, run(t, dev, p, c))
	partials := decode(pt, download[byte](t, dev, c.out, np*pt.Size()))
	if glen < bpg {
		// Parts past the group's end are empty: they hold the identity.
		for g := range groups {
			part := partials[g*bpg+bpg-1]
			switch {
			case op == expr.Sum || op == expr.Mean:
				assert.True(t, isZero(part), "empty part %v", part)
			case op == expr.Prod:
				assert.Equal(t, 1.0, part.float())
			case dt.IsFloat() && (op == expr.Min || op == expr.ArgMin):
				assert.Equal(t, math.Inf(1), part.f)
			case dt.IsFloat():
				assert.Equal(t, math.Inf(-1), part.f)
			default:
				assert.True(t, same(dt, identityInt(op, dt), part))
			}
		}
	}
	if op.IsArg() {
		pos := download[int64](t, dev, c.out2, np)
		for k, v := range pos {
			assert.True(t, v >= -1 && v < int64(glen), "position %d of part %d", v, k)
		}
	}
	if p.Wide() {
		// The high words of sums of small values: their signs.
		hi := download[int64](t, dev, c.out2, np)
		lo := download[uint64](t, dev, c.out, np)
		for k := range hi {
			assert.Equal(t, int64(lo[k])>>63, hi[k], "part %d", k)
		}
	}

	// Finish: one group per original group, over its bpg partials, into
	// the type a one-stage reduction writes.
	f := &expr.Program{Code: []expr.Instr{input(0, pt)}, Inputs: contiguous(pt, 1), Reduce: op, ArgIndex: -1,
		Result: expr.ResultType(op, dt)}
	fc := call{out: alloc[uint64](t, dev, groups), groups: uint64(groups), glen: uint64(bpg), count: uint64(glen), ins: []inArg{{ptr: c.out}}}
	if p.HasOut2() {
		f.Inputs = append(f.Inputs, expr.Input{Kind: expr.Memory, T: dtype.Int64})
		f.ArgIndex = 1
		fc.ins = append(fc.ins, inArg{ptr: c.out2})
	}
	require.NoError(t, run(t, dev, f, fc))
	rt := f.OutType()
	got := decode(rt, download[byte](t, dev, fc.out, groups*rt.Size()))
	for g, ref := range refs {
		checkFinal(t, op, dt, rt, ref, float64(glen), got[g], g)
	}
}

// TestStridedReduction reduces the columns of a row-major matrix: the
// iteration space is cols × rows over a transposed view, so groups walk
// the input with stride cols.
func TestStridedReduction(t *testing.T) {
	dev := hostDevice(t)
	const rows, cols = 3001, 5
	m := make([]float64, rows*cols)
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range m {
		m[i] = rng.NormFloat64()
	}
	in := upload(t, dev, m)
	for _, op := range []expr.ReduceOp{expr.Sum, expr.ArgMax} {
		t.Run(op.String(), func(t *testing.T) {
			p := &expr.Program{Code: []expr.Instr{input(0, dtype.Float64)}, Inputs: []expr.Input{{T: dtype.Float64, Strided: true}},
				Rank: 2, Reduce: op, ArgIndex: -1}
			out := alloc[float64](t, dev, cols)
			require.NoError(t, run(t, dev, p, call{out: out, groups: cols, glen: rows, count: rows, dims: []uint64{cols, rows},
				ins: []inArg{{ptr: in, strides: []int64{1, cols}}}}))
			got := decode(p.OutType(), download[byte](t, dev, out, cols*8))
			for c := range cols {
				column := make([]float64, rows)
				for r := range rows {
					column[r] = m[r*cols+c]
				}
				ref := reduceRef(column, op, dtype.Float64)
				if op == expr.Sum {
					assert.InDelta(t, ref.f, got[c].f, 1e-12, "column %d", c)
				} else {
					assert.Equal(t, ref.pos, got[c].i.Int64(), "column %d", c)
				}
			}
		})
	}
}
