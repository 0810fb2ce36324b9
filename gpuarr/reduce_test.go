package gpuarr_test

import (
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gpuarr/gpuarr/gpuarr"
)

// refReduce reduces h (shape sh, row-major) along axis (-1: all) in
// float64, returning values and positions.
func refReduce(h []float64, sh gpuarr.Shape, axis int, op string) ([]float64, []int64) {
	outer, glen, inner := 1, sh.Len(), 1
	if axis >= 0 {
		glen = sh[axis]
		for _, d := range sh[:axis] {
			outer *= d
		}
		for _, d := range sh[axis+1:] {
			inner *= d
		}
	}
	vals := make([]float64, outer*inner)
	pos := make([]int64, outer*inner)
	for o := 0; o < outer; o++ {
		for in := 0; in < inner; in++ {
			var acc float64
			best := int64(-1)
			switch op {
			case "prod":
				acc = 1
			case "min", "argmin":
				acc = math.Inf(1)
			case "max", "argmax":
				acc = math.Inf(-1)
			}
			for k := 0; k < glen; k++ {
				v := h[(o*glen+k)*inner+in]
				switch op {
				case "sum", "mean":
					acc += v
				case "prod":
					acc *= v
				case "min", "argmin":
					if math.IsNaN(v) && !math.IsNaN(acc) || v < acc || best < 0 {
						if !math.IsNaN(acc) || best < 0 {
							acc, best = v, int64(k)
						}
					}
				case "max", "argmax":
					if math.IsNaN(v) && !math.IsNaN(acc) || v > acc || best < 0 {
						if !math.IsNaN(acc) || best < 0 {
							acc, best = v, int64(k)
						}
					}
				}
			}
			if op == "mean" {
				acc /= float64(glen)
			}
			vals[o*inner+in], pos[o*inner+in] = acc, best
		}
	}
	return vals, pos
}

func TestReductions(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for _, sh := range []gpuarr.Shape{{1000}, {3, 4, 5}, {7, 3000}, {2000, 3}, {300, 2, 70}, {1, 1}} {
		h32 := randomValues[float32](r, sh.Len(), -1, 1)
		h := make([]float64, len(h32))
		for i := range h {
			h[i] = float64(h32[i])
		}
		x := must(gpuarr.FromSlice(h32, sh))
		axes := []int{-1}
		for a := range sh {
			axes = append(axes, a)
		}
		for _, axis := range axes {
			var opts []gpuarr.Option
			if axis >= 0 {
				opts = append(opts, gpuarr.Axis(axis))
			}
			for _, op := range []string{"sum", "prod", "min", "max", "mean", "argmin", "argmax"} {
				want, wantPos := refReduce(h, sh, axis, op)
				var got []float64
				var gotPos []int64
				switch op {
				case "argmin", "argmax":
					f := gpuarr.ArgMin[float32]
					if op == "argmax" {
						f = gpuarr.ArgMax[float32]
					}
					gotPos = values(t, must(f(x, opts...)))
				default:
					f := map[string]func(gpuarr.Operand[float32], ...gpuarr.Option) (*gpuarr.Array[float32], error){
						"sum": gpuarr.Sum[float32], "prod": gpuarr.Prod[float32], "min": gpuarr.Min[float32],
						"max": gpuarr.Max[float32], "mean": gpuarr.Mean[float32]}[op]
					res := must(f(x, opts...))
					for _, v := range values(t, res) {
						got = append(got, float64(v))
					}
				}
				if gotPos != nil {
					require.Equal(t, wantPos, gotPos, "%s %v axis %d", op, sh, axis)
					continue
				}
				require.Len(t, got, len(want))
				for i := range want {
					tol := 2e-6 * math.Max(1, math.Abs(want[i]))
					if op == "sum" || op == "mean" {
						// float32 result of a float64-accurate sum
						tol = 1e-6*math.Abs(want[i]) + 1e-6
					}
					require.InDelta(t, want[i], got[i], tol, "%s %v axis %d element %d", op, sh, axis, i)
				}
			}
		}
		require.NoError(t, x.Release())
	}
}

func TestSumAccuracyAndFusion(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 9))
	n := 1 << 20
	h := randomValues[float32](r, n, 0, 1)
	x := must(gpuarr.FromSlice(h, gpuarr.Shape{n}))
	defer x.Release()
	var want, want2 float64
	for _, v := range h {
		want += float64(v)
		want2 += float64(v) * float64(v)
	}
	got := must(must(gpuarr.Sum[float32](x)).Item())
	assert.InDelta(t, want, float64(got), want*1e-7, "float32 sum within float32 rounding of the float64 sum")
	// Fused map-reduce: Σx² reads x once.
	got2 := must(must(gpuarr.Sum(gpuarr.Mul(x, x))).Item())
	assert.InDelta(t, want2, float64(got2), want2*1e-6)
	// An integer sum into T, asked for, wraps in T.
	bytes := make([]uint8, 1000)
	var ws uint8
	for i := range bytes {
		bytes[i] = uint8(i)
		ws += uint8(i)
	}
	b := must(gpuarr.FromSlice(bytes, gpuarr.Shape{1000}))
	assert.Equal(t, ws, must(must(gpuarr.SumAs[uint8](b)).Item()))
	assert.Equal(t, uint8(0), must(must(gpuarr.Min[uint8](b)).Item()))
	assert.Equal(t, int64(255), must(must(gpuarr.ArgMax[uint8](b)).Item()), "first maximum")
}

func TestReductionNaN(t *testing.T) {
	nan := float32(math.NaN())
	x := must(gpuarr.FromSlice([]float32{3, 1, nan, 0, nan, -2}, gpuarr.Shape{6}))
	assert.True(t, math.IsNaN(float64(must(must(gpuarr.Min[float32](x)).Item()))))
	assert.True(t, math.IsNaN(float64(must(must(gpuarr.Sum[float32](x)).Item()))))
	assert.Equal(t, int64(2), must(must(gpuarr.ArgMax[float32](x)).Item()), "first NaN")
	assert.Equal(t, int64(2), must(must(gpuarr.ArgMin[float32](x)).Item()), "first NaN")
}

// TestNarrowIntegerSums: a sum or product of int8 … int32, uint8 … uint32
// elements could overflow the element type, so Sum and Prod refuse it
// with an error naming SumAs/ProdAs (Sum of 100×100 int8 100s once gave
// 16 while Mean gave 100); SumAs[int64] is exact, SumAs[T] wraps on
// request, Mean is exact.
func TestNarrowIntegerSums(t *testing.T) {
	h := make([]int8, 100*100)
	for i := range h {
		h[i] = 100
	}
	x := must(gpuarr.FromSlice(h, gpuarr.Shape{100, 100}))
	defer x.Release()
	_, err := gpuarr.Sum(x)
	require.ErrorIs(t, err, gpuarr.ErrArgument)
	assert.Contains(t, err.Error(), "gpuarr.SumAs[int64]")
	assert.Contains(t, err.Error(), "int8")
	_, err = gpuarr.Prod(x, gpuarr.Axis(0))
	require.ErrorIs(t, err, gpuarr.ErrArgument)
	assert.Contains(t, err.Error(), "gpuarr.ProdAs[int64]")

	assert.Equal(t, int64(1_000_000), must(must(gpuarr.SumAs[int64](x)).Item()))
	assert.Equal(t, int8(100), must(must(gpuarr.Mean(x)).Item()))
	assert.Equal(t, 100.0, must(must(gpuarr.MeanAs[float64](x)).Item()))
	assert.Equal(t, int8(64), must(must(gpuarr.SumAs[int8](x)).Item()), "1e6 mod 256, asked for")
	rows := values(t, must(gpuarr.SumAs[int64](x, gpuarr.Axis(1))))
	assert.Equal(t, slices.Repeat([]int64{10_000}, 100), rows)
	assert.Equal(t, float32(1e6), must(must(gpuarr.SumAs[float32](x)).Item()))

	u := must(gpuarr.Full(gpuarr.Shape{300}, uint8(255)))
	defer u.Release()
	_, err = gpuarr.Sum(u)
	require.ErrorIs(t, err, gpuarr.ErrArgument)
	assert.Contains(t, err.Error(), "gpuarr.SumAs[uint64]")
	assert.Equal(t, uint64(300*255), must(must(gpuarr.SumAs[uint64](u)).Item()))
	assert.Equal(t, uint8(255), must(must(gpuarr.Mean(u)).Item()))

	// int32 near its limit, over many elements (partial sums, then a
	// final pass) and along an axis.
	const n = 1 << 16
	i32 := must(gpuarr.Full(gpuarr.Shape{n / 4, 4}, int32(math.MaxInt32)))
	defer i32.Release()
	_, err = gpuarr.Sum(i32)
	require.ErrorIs(t, err, gpuarr.ErrArgument)
	assert.Equal(t, int64(n)*math.MaxInt32, must(must(gpuarr.SumAs[int64](i32)).Item()))
	assert.Equal(t, slices.Repeat([]int64{n / 4 * math.MaxInt32}, 4), values(t, must(gpuarr.SumAs[int64](i32, gpuarr.Axis(0)))))
	assert.Equal(t, int32(math.MaxInt32), must(must(gpuarr.Mean(i32)).Item()))
	assert.Equal(t, float64(math.MaxInt32), must(must(gpuarr.MeanAs[float64](i32)).Item()))
	for _, typ := range []string{"uint16", "uint32", "int16"} {
		var err error
		switch typ {
		case "uint16":
			_, err = gpuarr.Sum(must(gpuarr.Zeros[uint16](gpuarr.Shape{3})))
		case "uint32":
			_, err = gpuarr.Prod(must(gpuarr.Zeros[uint32](gpuarr.Shape{3})))
		default:
			_, err = gpuarr.Sum(gpuarr.Add(must(gpuarr.Zeros[int16](gpuarr.Shape{3})), gpuarr.Scalar[int16](1)))
		}
		require.ErrorIs(t, err, gpuarr.ErrArgument, typ)
		assert.Contains(t, err.Error(), typ)
	}
	assert.Equal(t, int64(3*4*5), must(must(gpuarr.ProdAs[int64](must(gpuarr.FromSlice([]int8{3, 4, 5}, gpuarr.Shape{3})))).Item()))
}

// TestWideIntegerSums: int64 and uint64 sums and products wrap modulo
// 2⁶⁴, as Go's + and * do (and NumPy's sum); SumAs[float64] converts each
// element first, like NumPy's sum(dtype=float64).
func TestWideIntegerSums(t *testing.T) {
	x := must(gpuarr.FromSlice([]int64{math.MaxInt64, 1, 2}, gpuarr.Shape{3}))
	defer x.Release()
	wrapped := int64(math.MaxInt64)
	for _, v := range []int64{1, 2} {
		wrapped += v // Go wraps
	}
	assert.Equal(t, wrapped, must(must(gpuarr.Sum(x)).Item()))
	assert.Equal(t, float64(math.MaxInt64)+3, must(must(gpuarr.SumAs[float64](x)).Item()))
	prod := int64(1)
	for _, v := range []int64{math.MaxInt64, 1, 2} {
		prod *= v // Go wraps
	}
	assert.Equal(t, prod, must(must(gpuarr.Prod(x)).Item()))
}

// TestIntegerMeanExact: integer means never overflow (Mean of 4 ×
// MaxInt64/2 once gave -1): the sum is kept in 128 bits, Mean truncates
// the exact mean toward zero, MeanAs[float64] rounds it, in one kernel or
// over partials, along an axis or all.
func TestIntegerMeanExact(t *testing.T) {
	const half = math.MaxInt64 / 2
	x := must(gpuarr.FromSlice([]int64{half, half, half, half}, gpuarr.Shape{4}))
	defer x.Release()
	assert.Equal(t, int64(half), must(must(gpuarr.Mean(x)).Item()))
	assert.Equal(t, float64(half), must(must(gpuarr.MeanAs[float64](x)).Item()))

	neg := must(gpuarr.FromSlice([]int64{math.MinInt64, math.MinInt64, math.MinInt64 + 3}, gpuarr.Shape{3}))
	defer neg.Release()
	assert.Equal(t, int64(math.MinInt64+1), must(must(gpuarr.Mean(neg)).Item()), "truncated toward zero")

	u := must(gpuarr.FromSlice([]uint64{math.MaxUint64, math.MaxUint64, math.MaxUint64 - 2}, gpuarr.Shape{3}))
	defer u.Release()
	assert.Equal(t, uint64(math.MaxUint64-1), must(must(gpuarr.Mean(u)).Item()))
	assert.Equal(t, float32(math.MaxUint64), must(must(gpuarr.MeanAs[float32](u)).Item()))

	// Many elements near the limit: partial sums (one group) and many groups.
	const rows, cols = 4, 1 << 15
	h := make([]int64, rows*cols)
	want := make([]*big.Int, rows)
	for r := range rows {
		want[r] = new(big.Int)
		for c := range cols {
			v := int64(math.MaxInt64) - int64((r*cols+c)%1009)
			if r == 2 {
				v = math.MinInt64 + int64(c%997)
			}
			h[r*cols+c] = v
			want[r].Add(want[r], big.NewInt(v))
		}
	}
	m := must(gpuarr.FromSlice(h, gpuarr.Shape{rows, cols}))
	defer m.Release()
	total := new(big.Int)
	for r := range rows {
		total.Add(total, want[r])
		q := new(big.Int).Quo(want[r], big.NewInt(cols))
		assert.Equal(t, q.Int64(), values(t, must(gpuarr.Mean(m, gpuarr.Axis(-1))))[r], "row %d", r)
		f, _ := new(big.Rat).SetFrac(want[r], big.NewInt(cols)).Float64()
		assert.InEpsilon(t, f, values(t, must(gpuarr.MeanAs[float64](m, gpuarr.Axis(1))))[r], 0x1p-52, "row %d", r)
	}
	assert.Equal(t, new(big.Int).Quo(total, big.NewInt(rows*cols)).Int64(), must(must(gpuarr.Mean(m)).Item()))
	f, _ := new(big.Rat).SetFrac(total, big.NewInt(rows*cols)).Float64()
	assert.InEpsilon(t, f, must(must(gpuarr.MeanAs[float64](m)).Item()), 0x1p-52)
}

// TestSumAsFloat: SumAs and MeanAs between float types.
func TestSumAsFloat(t *testing.T) {
	h := make([]float32, 1<<12)
	var want float64
	for i := range h {
		h[i] = 1 + float32(i)*0x1p-20 // exact in float64, not summable exactly in float32
		want += float64(h[i])
	}
	x := must(gpuarr.FromSlice(h, gpuarr.Shape{len(h)}))
	defer x.Release()
	assert.Equal(t, want, must(must(gpuarr.SumAs[float64](x)).Item()))
	assert.Equal(t, want/float64(len(h)), must(must(gpuarr.MeanAs[float64](x)).Item()))
	assert.Equal(t, float32(want), must(must(gpuarr.Sum(x)).Item()))
}

// refReduceAxes reduces h (shape sh, row-major) over the axes marked in
// red, in float64: the results in row-major order over the kept axes,
// and for the Arg reductions the position within each group (row-major
// over the reduced axes).
func refReduceAxes(h []float64, sh gpuarr.Shape, red []bool, op string) ([]float64, []int64) {
	outLen := 1
	for d, e := range sh {
		if !red[d] {
			outLen *= e
		}
	}
	vals := make([]float64, outLen)
	pos := make([]int64, outLen)
	count := make([]int, outLen)
	for i := range vals {
		pos[i] = -1
		switch op {
		case "prod":
			vals[i] = 1
		case "min", "argmin":
			vals[i] = math.Inf(1)
		case "max", "argmax":
			vals[i] = math.Inf(-1)
		}
	}
	idx := make([]int, len(sh))
	for i, v := range h {
		rem := i
		for d := len(sh) - 1; d >= 0; d-- {
			idx[d] = rem % sh[d]
			rem /= sh[d]
		}
		o, k := 0, 0
		for d := range sh {
			if red[d] {
				k = k*sh[d] + idx[d]
			} else {
				o = o*sh[d] + idx[d]
			}
		}
		count[o]++
		switch op {
		case "sum", "mean":
			vals[o] += v
		case "prod":
			vals[o] *= v
		case "min", "argmin":
			if v < vals[o] || pos[o] < 0 {
				vals[o], pos[o] = v, int64(k)
			}
		case "max", "argmax":
			if v > vals[o] || pos[o] < 0 {
				vals[o], pos[o] = v, int64(k)
			}
		}
	}
	if op == "mean" {
		for o := range vals {
			vals[o] /= float64(count[o])
		}
	}
	return vals, pos
}

// TestReduceAxes: every subset of axes of a rank-3 operand (an array, a
// transposed view, a broadcast expression), named by positive and
// negative Axis options in any order, with and without KeepDims, for every
// reduction (the Arg ones along one axis or all); several axes reduce all
// of them (Sum(x, Axis(0), Axis(2)) once reduced axis 2 only). The shapes
// give both one-kernel and partial-then-final reductions.
func TestReduceAxes(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 22))
	for _, sh := range []gpuarr.Shape{{3, 4, 5}, {24, 3, 300}, {2, 1, 7}} {
		h32 := randomValues[float32](r, sh.Len(), -1, 1)
		x := must(gpuarr.FromSlice(h32, sh))
		row := must(gpuarr.FromSlice(randomValues[float32](r, sh[2], -1, 1), gpuarr.Shape{sh[2]}))
		tv := must(must(gpuarr.FromSlice(h32, gpuarr.Shape{sh[2], sh[1], sh[0]})).Permute(2, 1, 0))
		operands := map[string]gpuarr.Operand[float32]{"array": x, "transposed view": tv, "broadcast": gpuarr.Add(x, row)}
		host := map[string][]float64{}
		for name, op := range operands {
			v := values(t, must(gpuarr.Eval(op)))
			host[name] = make([]float64, len(v))
			for i := range v {
				host[name][i] = float64(v[i])
			}
		}
		type refResult struct {
			vals []float64
			pos  []int64
		}
		refs := map[string]refResult{}
		for mask := range 8 {
			red := []bool{mask&1 != 0, mask&2 != 0, mask&4 != 0}
			var axes, negAxes []gpuarr.Option
			nRed := 0
			for d := 2; d >= 0; d-- { // reversed order: order does not matter
				if red[d] {
					axes = append(axes, gpuarr.Axis(d))
					negAxes = append(negAxes, gpuarr.Axis(d-3))
					nRed++
				}
			}
			if mask == 0 {
				red = []bool{true, true, true} // no Axis: all
			}
			for _, keep := range []bool{false, true} {
				wantShape := gpuarr.Shape{}
				for d, e := range sh {
					switch {
					case !red[d]:
						wantShape = append(wantShape, e)
					case keep:
						wantShape = append(wantShape, 1)
					}
				}
				for name, op := range operands {
					for vi, spelled := range [][]gpuarr.Option{axes, negAxes} {
						opts := slices.Clone(spelled)
						if keep {
							opts = append(opts, gpuarr.KeepDims())
						}
						msg := fmt.Sprintf("%v %s axes %v (spelling %d) keep %t", sh, name, red, vi, keep)
						for _, rop := range []string{"sum", "prod", "min", "max", "mean", "argmin", "argmax"} {
							key := fmt.Sprint(name, red, rop)
							if _, ok := refs[key]; !ok {
								v, p := refReduceAxes(host[name], sh, red, rop)
								refs[key] = refResult{v, p}
							}
							want, wantPos := refs[key].vals, refs[key].pos
							if rop == "argmin" || rop == "argmax" {
								f := gpuarr.ArgMin[float32]
								if rop == "argmax" {
									f = gpuarr.ArgMax[float32]
								}
								res, err := f(op, opts...)
								if nRed > 1 {
									require.ErrorIs(t, err, gpuarr.ErrArgument, msg)
									continue
								}
								require.NoError(t, err, msg)
								require.Truef(t, wantShape.Equal(res.Shape()), "shape %v, want %v: %s", res.Shape(), wantShape, msg)
								require.Equal(t, wantPos, values(t, res), "%s %s", rop, msg)
								continue
							}
							f := map[string]func(gpuarr.Operand[float32], ...gpuarr.Option) (*gpuarr.Array[float32], error){
								"sum": gpuarr.Sum[float32], "prod": gpuarr.Prod[float32], "min": gpuarr.Min[float32],
								"max": gpuarr.Max[float32], "mean": gpuarr.Mean[float32]}[rop]
							res := must(f(op, opts...))
							require.Truef(t, wantShape.Equal(res.Shape()), "%s shape %v, want %v: %s", rop, res.Shape(), wantShape, msg)
							got := values(t, res)
							require.Len(t, got, len(want))
							for i := range want {
								tol := 1e-6*math.Abs(want[i]) + 1e-6
								require.InDelta(t, want[i], float64(got[i]), tol, "%s %s element %d", rop, msg, i)
							}
						}
					}
				}
			}
		}
	}
}

// TestReduceAxesErrors: an axis out of range (ErrShape), named twice,
// also as its negative (ErrArgument), several axes for ArgMin; KeepDims
// alone keeps every axis.
func TestReduceAxesErrors(t *testing.T) {
	x := must(gpuarr.Zeros[float32](gpuarr.Shape{2, 3, 4}))
	defer x.Release()
	for _, opts := range [][]gpuarr.Option{{gpuarr.Axis(3)}, {gpuarr.Axis(-4)}} {
		_, err := gpuarr.Sum(x, opts...)
		require.ErrorIs(t, err, gpuarr.ErrShape)
	}
	for _, opts := range [][]gpuarr.Option{{gpuarr.Axis(1), gpuarr.Axis(1)}, {gpuarr.Axis(2), gpuarr.Axis(-1)}} {
		_, err := gpuarr.Max(x, opts...)
		require.ErrorIs(t, err, gpuarr.ErrArgument)
		assert.Contains(t, err.Error(), "twice")
	}
	_, err := gpuarr.ArgMin(x, gpuarr.Axis(0), gpuarr.Axis(1))
	require.ErrorIs(t, err, gpuarr.ErrArgument)
	s := must(gpuarr.Sum(x, gpuarr.KeepDims()))
	assert.Equal(t, gpuarr.Shape{1, 1, 1}, s.Shape())
	sc := must(gpuarr.Full(gpuarr.Shape{}, float32(5)))
	assert.Equal(t, float32(5), must(must(gpuarr.Sum(sc)).Item()), "a scalar reduces to itself")
	_, err = gpuarr.Sum(sc, gpuarr.Axis(0))
	require.ErrorIs(t, err, gpuarr.ErrShape)
}
