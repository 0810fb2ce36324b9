package hosteval

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gpuarr/gpuarr/device"
	"github.com/gpuarr/gpuarr/device/dtype"
	"github.com/gpuarr/gpuarr/internal/fusion/expr"
	"github.com/gpuarr/gpuarr/internal/philox"
)

// offsetOf is the reference element offset: i decomposed row-major over
// dims, dotted with strides.
func offsetOf(i int, dims []int, strides []int64) int64 {
	var off int64
	for d := len(dims) - 1; d >= 0; d-- {
		off += int64(i%dims[d]) * strides[d]
		i /= dims[d]
	}
	return off
}

func TestStridedAndRandomInputs(t *testing.T) {
	dev := hostDevice(t)
	tests := []struct {
		name string
		dims []int
		// strides of b (a broadcast, over a buffer of bLen) and c
		// (negative strides, based cBase elements into a buffer of cLen)
		bStrides []int64
		bLen     int
		cStrides []int64
		cBase    int
		cLen     int
		rStrides []int64 // the random inputs'
	}{
		{"rank 3 small", []int{3, 4, 5}, []int64{5, 0, 1}, 15, []int64{-20, 5, -1}, 44, 60, []int64{20, 5, 1}},
		{"rank 1", []int{2500}, []int64{0}, 1, []int64{-1}, 2499, 2500, []int64{3}},
		{"rank 2 transpose, many chunks", []int{300, 700}, []int64{1, 300}, 210000, []int64{-700, 1}, 299 * 700, 210000, []int64{0, 1}},
		{"rank 4 with unit dims", []int{1, 37, 1, 53}, []int64{9, 53, 4, 1}, 37 * 53, []int64{0, -53, 0, -1}, 37*53 - 1, 37 * 53, []int64{1, 53, 1, 1}},
	}
	rng := rand.New(rand.NewPCG(5, 6))
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			n := 1
			for _, d := range tc.dims {
				n *= d
			}
			rank := len(tc.dims)
			a, b, c := randFloats(rng, n), randFloats(rng, tc.bLen), randFloats(rng, tc.cLen)
			// out = a + b + c + float64(uniform32) + normal64
			p := &expr.Program{
				Code: []expr.Instr{input(0, dtype.Float64), input(1, dtype.Float64), input(2, dtype.Float64),
					leaf(expr.OpRandom, dtype.Float32, 3), leaf(expr.OpRandom, dtype.Float64, 4),
					bin(expr.OpAdd, dtype.Float64, 0, 1), bin(expr.OpAdd, dtype.Float64, 5, 2),
					un(expr.OpCast, dtype.Float64, 3), bin(expr.OpAdd, dtype.Float64, 6, 7), bin(expr.OpAdd, dtype.Float64, 8, 4)},
				Inputs: []expr.Input{{Kind: expr.Memory, T: dtype.Float64}, {Kind: expr.Memory, T: dtype.Float64, Strided: true},
					{Kind: expr.Memory, T: dtype.Float64, Strided: true}, {Kind: expr.Random, T: dtype.Float32, Strided: true},
					{Kind: expr.Random, T: dtype.Float64, Normal: true, Strided: true}},
				Rank: rank, ArgIndex: -1,
			}
			cPtr := upload(t, dev, c)
			const seed3, seed4, stream3, stream4 = 0xfeedbeef12345678, 99, 7, 1 << 40
			call := call{n: uint64(n), out: alloc[float64](t, dev, n), ins: []inArg{
				{ptr: upload(t, dev, a)},
				{ptr: upload(t, dev, b), strides: tc.bStrides},
				{ptr: cPtr + device.Ptr(8*tc.cBase), strides: tc.cStrides},
				{ptr: seed3, stream: stream3, strides: tc.rStrides},
				{ptr: seed4, stream: stream4, strides: tc.rStrides},
			}}
			for _, d := range tc.dims {
				call.dims = append(call.dims, uint64(d))
			}
			require.NoError(t, run(t, dev, p, call))
			got := download[float64](t, dev, call.out, n)
			for i := range n {
				r := uint64(offsetOf(i, tc.dims, tc.rStrides))
				want := a[i] + b[offsetOf(i, tc.dims, tc.bStrides)]
				want += c[int64(tc.cBase)+offsetOf(i, tc.dims, tc.cStrides)]
				want += float64(philox.Uniform32(seed3, r, stream3))
				want += philox.Normal64(seed4, r, stream4)
				require.Equalf(t, want, got[i], "element %d", i)
			}
		})
	}
}

func TestRandomKinds(t *testing.T) {
	dev := hostDevice(t)
	const n = 4000
	for _, tc := range []struct {
		name   string
		t      dtype.DType
		normal bool
		want   func(seed, c, stream uint64) float64
	}{
		{"uniform32", dtype.Float32, false, func(s, c, st uint64) float64 { return float64(philox.Uniform32(s, c, st)) }},
		{"normal32", dtype.Float32, true, func(s, c, st uint64) float64 { return float64(philox.Normal32(s, c, st)) }},
		{"uniform64", dtype.Float64, false, philox.Uniform64},
		{"normal64", dtype.Float64, true, philox.Normal64},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// Negative strides make counters that wrap as uint64.
			p := &expr.Program{Code: []expr.Instr{leaf(expr.OpRandom, tc.t, 0)}, Rank: 1, ArgIndex: -1,
				Inputs: []expr.Input{{Kind: expr.Random, T: tc.t, Normal: tc.normal, Strided: true}}}
			out := alloc[float64](t, dev, n)
			require.NoError(t, run(t, dev, p, call{n: n, out: out, dims: []uint64{n},
				ins: []inArg{{ptr: 1234, stream: 5, strides: []int64{-3}}}}))
			got := decode(tc.t, download[byte](t, dev, out, n*tc.t.Size()))
			for i := range n {
				require.Equal(t, tc.want(1234, uint64(int64(-3*i)), 5), got[i].f, "element %d", i)
			}
		})
	}
}

func randFloats(rng *rand.Rand, n int) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = rng.NormFloat64()
	}
	return out
}
