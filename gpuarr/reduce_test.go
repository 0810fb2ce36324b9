package gpuarr_test

import (
	"math"
	"math/rand/v2"
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
	// Integer sum wraps in T.
	bytes := make([]uint8, 1000)
	var ws uint8
	for i := range bytes {
		bytes[i] = uint8(i)
		ws += uint8(i)
	}
	b := must(gpuarr.FromSlice(bytes, gpuarr.Shape{1000}))
	assert.Equal(t, ws, must(must(gpuarr.Sum[uint8](b)).Item()))
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
