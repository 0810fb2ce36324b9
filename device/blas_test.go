package device_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gpuarr/gpuarr/device"
	"github.com/gpuarr/gpuarr/device/driver"
	"github.com/gpuarr/gpuarr/device/dtype"
)

// colMajor is a column-major rows×cols matrix with leading dimension ld,
// as float64 for the reference.
type colMajor struct {
	rows, cols, ld int
	v              []float64
}

func randColMajor(rng *rand.Rand, rows, cols, ld int) colMajor {
	m := colMajor{rows, cols, ld, make([]float64, max(0, (cols-1)*ld+rows))}
	for i := range m.v {
		m.v[i] = (0.5 + rng.Float64()) * float64(1-2*rng.IntN(2))
	}
	return m
}

func (m colMajor) at(i, j int, trans bool) float64 {
	if trans {
		i, j = j, i
	}
	return m.v[j*m.ld+i]
}

// gemmRef is op(A)·op(B) in float64, laid out like C, and the bound on
// the rounding error of each element (the sum of |products|).
func gemmRef(g device.Gemm, a, b colMajor) (prod, bound []float64) {
	n := max(0, (g.N-1)*g.LDC+g.M)
	prod, bound = make([]float64, n), make([]float64, n)
	for j := range g.N {
		for i := range g.M {
			var s, abs float64
			for l := range g.K {
				p := a.at(i, l, g.TransA) * b.at(l, j, g.TransB)
				s += p
				abs += math.Abs(p)
			}
			prod[j*g.LDC+i], bound[j*g.LDC+i] = s, abs
		}
	}
	return prod, bound
}

func toType[T float32 | float64](v []float64) []T {
	out := make([]T, len(v))
	for i, x := range v {
		out[i] = T(x)
	}
	return out
}

func uploadMatrix[T float32 | float64](t *testing.T, dev *device.Device, s *device.Stream, m colMajor) device.Ptr {
	t.Helper()
	if len(m.v) == 0 {
		return 0
	}
	p := alloc(t, dev, uint64(len(m.v))*8)
	require.NoError(t, device.Upload(s, p, toType[T](m.v)))
	return p
}

func testGemm[T float32 | float64](t *testing.T, typ device.DType, tol float64) {
	dev := testDevice(t)
	s := newStream(t, dev)
	rng := rand.New(rand.NewPCG(1, 2))
	for _, tc := range []struct {
		m, n, k        int
		transA, transB bool
		pad            int // extra rows in every leading dimension
	}{
		{1, 1, 1, false, false, 0},
		{3, 4, 5, false, false, 0},
		{3, 4, 5, true, false, 0},
		{3, 4, 5, false, true, 0},
		{3, 4, 5, true, true, 0},
		{1, 9, 7, false, true, 2},
		{9, 1, 7, true, false, 3},
		{33, 17, 65, false, false, 1},
		{64, 48, 32, true, true, 5},
	} {
		t.Run(fmt.Sprintf("%dx%dx%d_tA=%v_tB=%v_pad=%d", tc.m, tc.n, tc.k, tc.transA, tc.transB, tc.pad), func(t *testing.T) {
			g := device.Gemm{Type: typ, M: tc.m, N: tc.n, K: tc.k, TransA: tc.transA, TransB: tc.transB, Alpha: 1.5, Beta: 0.5}
			aRows, aCols, bRows, bCols := g.Extents()
			g.LDA, g.LDB, g.LDC = aRows+tc.pad, bRows+tc.pad, tc.m+tc.pad
			a := randColMajor(rng, aRows, aCols, g.LDA)
			b := randColMajor(rng, bRows, bCols, g.LDB)
			c := randColMajor(rng, tc.m, tc.n, g.LDC)
			g.A, g.B, g.C = uploadMatrix[T](t, dev, s, a), uploadMatrix[T](t, dev, s, b), uploadMatrix[T](t, dev, s, c)
			require.NoError(t, s.Gemm(g))
			got := make([]T, len(c.v))
			require.NoError(t, device.Download(s, got, g.C))

			want, bound := gemmRef(g, a, b)
			for j := range tc.n {
				for i := range tc.m {
					x := j*g.LDC + i
					w := g.Alpha*want[x] + g.Beta*c.v[x]
					require.InDelta(t, w, float64(got[x]), tol*(g.Alpha*bound[x]+math.Abs(g.Beta*c.v[x]))+1e-30, "C[%d,%d]", i, j)
				}
				// Padding rows below C's M rows stay untouched.
				for i := tc.m; i < g.LDC && j*g.LDC+i < len(c.v); i++ {
					require.Equal(t, T(c.v[j*g.LDC+i]), got[j*g.LDC+i], "padding C[%d,%d]", i, j)
				}
			}
		})
	}
}

func TestGemmFloat32(t *testing.T) { testGemm[float32](t, device.Float32, 1e-5) }
func TestGemmFloat64(t *testing.T) { testGemm[float64](t, device.Float64, 1e-13) }

func TestGemmTF32(t *testing.T) {
	dev := testDevice(t)
	s := newStream(t, dev)
	rng := rand.New(rand.NewPCG(3, 4))
	const m, n, k = 70, 50, 130
	a, b := randColMajor(rng, m, k, m), randColMajor(rng, k, n, k)
	g := device.Gemm{Type: device.Float32, M: m, N: n, K: k, Alpha: 1, LDA: m, LDB: k, LDC: m, TF32: true}
	g.A, g.B = uploadMatrix[float32](t, dev, s, a), uploadMatrix[float32](t, dev, s, b)
	g.C = alloc(t, dev, m*n*4)
	require.NoError(t, s.Gemm(g))
	got := make([]float32, m*n)
	require.NoError(t, device.Download(s, got, g.C))
	want, bound := gemmRef(g, a, b)
	for i := range got {
		require.InDelta(t, want[i], float64(got[i]), 5e-3*bound[i], "element %d", i)
	}
}

// K = 0: the product is empty, so C = Beta·C (zeros for Beta 0), as BLAS
// defines it.
func TestGemmEmptyInner(t *testing.T) {
	dev := testDevice(t)
	s := newStream(t, dev)
	c := alloc(t, dev, 6*4)
	require.NoError(t, device.Upload(s, c, []float32{1, 2, 3, 4, 5, 6}))
	g := device.Gemm{Type: device.Float32, M: 2, N: 3, K: 0, Alpha: 1, Beta: 0.5, LDA: 2, LDB: 1, LDC: 2, C: c}
	require.NoError(t, s.Gemm(g))
	got := make([]float32, 6)
	require.NoError(t, device.Download(s, got, c))
	require.Equal(t, []float32{0.5, 1, 1.5, 2, 2.5, 3}, got)
	g.Beta = 0
	require.NoError(t, s.Gemm(g))
	require.NoError(t, device.Download(s, got, c))
	require.Equal(t, make([]float32, 6), got)
}

func TestGemmInvalid(t *testing.T) {
	dev := testDevice(t)
	s := newStream(t, dev)
	p := alloc(t, dev, 1024)
	ok := device.Gemm{Type: device.Float32, M: 4, N: 4, K: 4, Alpha: 1, A: p, LDA: 4, B: p, LDB: 4, C: p, LDC: 4}
	for name, tc := range map[string]struct {
		edit func(*device.Gemm)
		want string
	}{
		"type":       {func(g *device.Gemm) { g.Type = 0 }, "element type"},
		"int type":   {func(g *device.Gemm) { g.Type = dtype.Int32 }, "element type int32"},
		"negative":   {func(g *device.Gemm) { g.K = -1 }, "out of range"},
		"huge":       {func(g *device.Gemm) { g.M = math.MaxInt32 + 1 }, "out of range"},
		"lda":        {func(g *device.Gemm) { g.LDA = 3 }, "LDA=3"},
		"ldb transB": {func(g *device.Gemm) { g.TransB, g.N, g.LDB = true, 8, 4 }, "LDB=4"},
		"ldc":        {func(g *device.Gemm) { g.LDC = 0 }, "LDC=0"},
		"null":       {func(g *device.Gemm) { g.B = 0 }, "B is a null pointer"},
		"batch":      {func(g *device.Gemm) { g.Batch = -1 }, "batch -1"},
		"strideA":    {func(g *device.Gemm) { g.Batch, g.StrideA, g.StrideC = 2, -16, 16 }, "strides A=-16"},
		"strideC":    {func(g *device.Gemm) { g.Batch, g.StrideC = 2, 15 }, "StrideC=15"},
	} {
		t.Run(name, func(t *testing.T) {
			g := ok
			tc.edit(&g)
			err := s.Gemm(g)
			require.ErrorIs(t, err, device.ErrInvalidValue)
			require.ErrorContains(t, err, tc.want)
		})
	}
	require.NoError(t, s.Gemm(ok))
	require.NoError(t, s.Synchronize())
}

// A device without cuBLAS fails matrix products with ErrNotSupported
// naming the library, and nothing else; HideSymbol("libcublas") plays
// that machine on either backend.
func TestGemmLibraryMissing(t *testing.T) {
	dev := testDevice(t)
	s := newStream(t, dev)
	p := alloc(t, dev, 64)
	g := device.Gemm{Type: device.Float32, M: 2, N: 2, K: 2, Alpha: 1, A: p, LDA: 2, B: p, LDB: 2, C: p.Add(16), LDC: 2}
	restore := dev.HideSymbol("libcublas")
	err := s.Gemm(g)
	restore()
	require.ErrorIs(t, err, device.ErrNotSupported)
	require.ErrorContains(t, err, driver.BLASLibrary)
	require.NoError(t, s.Gemm(g), "the library is back after restore")
	require.NoError(t, s.Synchronize())
}

func TestGemmBatchFloat32(t *testing.T) { testGemmBatch[float32](t, device.Float32, 1e-5) }
func TestGemmBatchFloat64(t *testing.T) { testGemmBatch[float64](t, device.Float64, 1e-13) }

// A strided batch (cuBLAS's gemmStridedBatched on a GPU): each product
// against the float64 reference, with a broadcast A (stride 0), padded
// leading dimensions, gaps between the matrices and transposes.
func testGemmBatch[T float32 | float64](t *testing.T, typ device.DType, tol float64) {
	dev := testDevice(t)
	s := newStream(t, dev)
	rng := rand.New(rand.NewPCG(3, 4))
	for _, tc := range []struct {
		m, n, k, batch int
		transA, transB bool
		shareA         bool
	}{
		{3, 4, 5, 7, false, false, false},
		{3, 4, 5, 7, true, true, true},
		{16, 1, 9, 5, false, true, false},
		{8, 8, 8, 64, false, false, true},
	} {
		t.Run(fmt.Sprintf("%dx%dx%d_batch%d_tA=%v_tB=%v_shareA=%v", tc.m, tc.n, tc.k, tc.batch, tc.transA, tc.transB, tc.shareA), func(t *testing.T) {
			g := device.Gemm{Type: typ, M: tc.m, N: tc.n, K: tc.k, TransA: tc.transA, TransB: tc.transB, Alpha: 1, Batch: tc.batch}
			aRows, aCols, bRows, bCols := g.Extents()
			g.LDA, g.LDB, g.LDC = aRows+1, bRows, tc.m+2
			spanA, spanB, spanC := (aCols-1)*g.LDA+aRows, (bCols-1)*g.LDB+bRows, (tc.n-1)*g.LDC+tc.m
			g.StrideA, g.StrideB, g.StrideC = int64(spanA+3), int64(spanB), int64(spanC+1)
			if tc.shareA {
				g.StrideA = 0
			}
			count := func(stride int64, span int) int { return int(stride)*(tc.batch-1) + span }
			a := randColMajor(rng, count(g.StrideA, spanA), 1, count(g.StrideA, spanA))
			b := randColMajor(rng, count(g.StrideB, spanB), 1, count(g.StrideB, spanB))
			c := randColMajor(rng, count(g.StrideC, spanC), 1, count(g.StrideC, spanC))
			g.A, g.B, g.C = uploadMatrix[T](t, dev, s, a), uploadMatrix[T](t, dev, s, b), uploadMatrix[T](t, dev, s, c)
			require.NoError(t, s.Gemm(g))
			got := make([]T, len(c.v))
			require.NoError(t, device.Download(s, got, g.C))
			for i := range tc.batch {
				ai := colMajor{aRows, aCols, g.LDA, a.v[i*int(g.StrideA):]}
				bi := colMajor{bRows, bCols, g.LDB, b.v[i*int(g.StrideB):]}
				one := g
				one.LDC = g.LDC
				want, bound := gemmRef(one, ai, bi)
				base := i * int(g.StrideC)
				for j := range tc.n {
					for r := range tc.m {
						x := j*g.LDC + r
						require.InDelta(t, want[x], float64(got[base+x]), tol*bound[x]+1e-30, "product %d C[%d,%d]", i, r, j)
					}
				}
				// The gap after each C matrix stays untouched.
				if i < tc.batch-1 {
					require.Equal(t, T(c.v[base+spanC]), got[base+spanC], "the gap after product %d", i)
				}
			}
		})
	}
}
