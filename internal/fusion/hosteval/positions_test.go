package hosteval

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gpuarr/gpuarr/device"
	"github.com/gpuarr/gpuarr/device/dtype"
	"github.com/gpuarr/gpuarr/internal/fusion/expr"
)

// TestStridedOutAndIota writes through negative out strides (the
// reversed transpose of a C×R buffer), reads an input through negative
// strides and adds an Iota input's positions (ptxgen's
// TestGPUStridedOutAndIota runs the same program on a GPU).
func TestStridedOutAndIota(t *testing.T) {
	dev := hostDevice(t)
	const R, C = 7, 1300 // over a chunk
	a := make([]float64, R*C)
	for i := range a {
		a[i] = float64(i) * 0.5
	}
	p := &expr.Program{
		Rank: 2, OutStrided: true, ArgIndex: -1,
		Inputs: []expr.Input{{Kind: expr.Memory, T: dtype.Float64, Strided: true}, {Kind: expr.Iota, T: dtype.Int64, Strided: true}},
		Code:   []expr.Instr{input(0, dtype.Float64), leaf(expr.OpIota, dtype.Int64, 1), un(expr.OpCast, dtype.Float64, 1), bin(expr.OpAdd, dtype.Float64, 0, 2)},
	}
	out := alloc[float64](t, dev, R*C)
	require.NoError(t, run(t, dev, p, call{n: R * C, dims: []uint64{R, C}, out: out + device.Ptr(8*(R*C-1)), outStrides: []int64{-1, -R},
		ins: []inArg{{ptr: upload(t, dev, a) + device.Ptr(8*(R*C-1)), strides: []int64{-C, -1}}, {strides: []int64{1, 0}}}}))
	got := download[float64](t, dev, out, R*C)
	for i := range R {
		for j := range C {
			require.Equal(t, a[R*C-1-(i*C+j)]+float64(i), got[(C-1-j)*R+(R-1-i)], "[%d,%d]", i, j)
		}
	}
}

// TestMomentsPartials runs Var's Partial stage (three words) and a Final
// stage over its partials, against a two-pass float64 reference.
func TestMomentsPartials(t *testing.T) {
	dev := hostDevice(t)
	const G, L, bpg = 3, 5000, 4
	a := make([]float32, G*L)
	for i := range a {
		a[i] = 1e4 + float32((i*7919)%1000)*0.001
	}
	p := &expr.Program{Reduce: expr.Var, Stage: expr.Partial, ArgIndex: -1, Inputs: contiguous(dtype.Float32, 1), Code: []expr.Instr{input(0, dtype.Float32)}}
	s, n, m2 := alloc[float64](t, dev, G*bpg), alloc[float64](t, dev, G*bpg), alloc[float64](t, dev, G*bpg)
	require.NoError(t, run(t, dev, p, call{out: s, out2: n, out3: m2, groups: G, glen: L, bpg: bpg, count: L,
		ins: []inArg{{ptr: upload(t, dev, a)}}}))
	assert.Equal(t, float64(L), sum(download[float64](t, dev, n, G*bpg)[:bpg]), "the counts of group 0's parts")
	f := &expr.Program{Reduce: expr.Std, ArgIndex: 1, Inputs: contiguous(dtype.Float64, 3), Code: []expr.Instr{input(0, dtype.Float64)}}
	out := alloc[float64](t, dev, G)
	require.NoError(t, run(t, dev, f, call{out: out, groups: G, glen: bpg, bpg: 1, count: L - 1,
		ins: []inArg{{ptr: s}, {ptr: n}, {ptr: m2}}}))
	for g, got := range download[float64](t, dev, out, G) {
		var mean, m float64
		for _, v := range a[g*L : (g+1)*L] {
			mean += float64(v)
		}
		mean /= L
		for _, v := range a[g*L : (g+1)*L] {
			m += (float64(v) - mean) * (float64(v) - mean)
		}
		assert.InEpsilon(t, math.Sqrt(m/(L-1)), got, 1e-12, "group %d", g)
	}
}

func sum(xs []float64) float64 {
	s := 0.0
	for _, x := range xs {
		s += x
	}
	return s
}
