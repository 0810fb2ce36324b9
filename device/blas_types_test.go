package device_test

import (
	"fmt"
	"math"
	"math/cmplx"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gpuarr/gpuarr/device"
	"github.com/gpuarr/gpuarr/device/dtype/half"
)

// gemmCases are the shapes, transpositions and paddings the typed Gemm
// tests multiply.
var gemmCases = []struct {
	m, n, k        int
	transA, transB bool
	pad            int
}{
	{1, 1, 1, false, false, 0},
	{3, 4, 5, true, false, 0},
	{3, 4, 5, false, true, 1},
	{17, 9, 33, true, true, 2},
	{64, 48, 32, false, false, 0},
	{2, 3, 0, false, false, 1}, // C = Beta·C
}

// Products of 16-bit floats accumulate in float32 and round each element
// of C once: against a float64 product of the same (widened) values, the
// error is the final rounding plus float32 accumulation.
func TestGemmHalf(t *testing.T) {
	for _, f := range []struct {
		typ     device.DType
		toF32   func(uint16) float32
		fromF64 func(float64) uint16
		ulp     float64
	}{
		{device.Float16, half.F16ToF32, half.F64ToF16, 0x1p-10},
		{device.BFloat16, half.BF16ToF32, half.F64ToBF16, 0x1p-7},
	} {
		t.Run(f.typ.String(), func(t *testing.T) {
			dev := testDevice(t)
			s := newStream(t, dev)
			rng := rand.New(rand.NewPCG(5, 6))
			for _, tc := range gemmCases {
				t.Run(fmt.Sprintf("%dx%dx%d_tA=%v_tB=%v", tc.m, tc.n, tc.k, tc.transA, tc.transB), func(t *testing.T) {
					g := device.Gemm{Type: f.typ, M: tc.m, N: tc.n, K: tc.k, TransA: tc.transA, TransB: tc.transB, Alpha: 1.5, Beta: 0.5}
					aRows, aCols, bRows, bCols := g.Extents()
					g.LDA, g.LDB, g.LDC = aRows+tc.pad, bRows+tc.pad, tc.m+tc.pad
					a, b, c := randColMajor(rng, aRows, aCols, g.LDA), randColMajor(rng, bRows, bCols, g.LDB), randColMajor(rng, tc.m, tc.n, g.LDC)
					bits := func(m colMajor) []uint16 { // the values rounded to the type, as stored
						out := make([]uint16, len(m.v))
						for i, x := range m.v {
							out[i] = f.fromF64(x)
							m.v[i] = float64(f.toF32(out[i]))
						}
						return out
					}
					up := func(v []uint16) device.Ptr {
						p := alloc(t, dev, uint64(max(1, len(v)))*2)
						require.NoError(t, device.Upload(s, p, v))
						return p
					}
					cb := bits(c)
					g.A, g.B, g.C = up(bits(a)), up(bits(b)), up(cb)
					require.NoError(t, s.Gemm(g))
					got := make([]uint16, len(cb))
					require.NoError(t, device.Download(s, got, g.C))
					want, bound := gemmRef(g, a, b)
					for j := range tc.n {
						for i := range tc.m {
							x := j*g.LDC + i
							w := g.Alpha*want[x] + g.Beta*c.v[x]
							tol := f.ulp*math.Abs(w) + 1e-6*(g.Alpha*bound[x]+math.Abs(g.Beta*c.v[x]))
							require.InDelta(t, w, float64(f.toF32(got[x])), tol, "C[%d,%d]", i, j)
						}
						for i := tc.m; i < g.LDC && j*g.LDC+i < len(cb); i++ {
							require.Equal(t, cb[j*g.LDC+i], got[j*g.LDC+i], "padding C[%d,%d]", i, j)
						}
					}
				})
			}
		})
	}
}

// Complex products: against a complex128 product in Go.
func TestGemmComplex(t *testing.T) {
	for _, typ := range []device.DType{device.Complex64, device.Complex128} {
		t.Run(typ.String(), func(t *testing.T) {
			dev := testDevice(t)
			s := newStream(t, dev)
			rng := rand.New(rand.NewPCG(7, 8))
			tol := 1e-5
			if typ == device.Complex128 {
				tol = 1e-13
			}
			for _, tc := range gemmCases {
				t.Run(fmt.Sprintf("%dx%dx%d_tA=%v_tB=%v", tc.m, tc.n, tc.k, tc.transA, tc.transB), func(t *testing.T) {
					g := device.Gemm{Type: typ, M: tc.m, N: tc.n, K: tc.k, TransA: tc.transA, TransB: tc.transB, Alpha: 1.5, Beta: 0.5}
					aRows, aCols, bRows, bCols := g.Extents()
					g.LDA, g.LDB, g.LDC = aRows+tc.pad, bRows+tc.pad, tc.m+tc.pad
					mat := func(rows, cols, ld int) []complex128 {
						v := make([]complex128, max(0, (cols-1)*ld+rows))
						for i := range v {
							v[i] = complex(rng.NormFloat64(), rng.NormFloat64())
						}
						return v
					}
					a, b, c := mat(aRows, aCols, g.LDA), mat(bRows, bCols, g.LDB), mat(tc.m, tc.n, g.LDC)
					up := func(v []complex128) device.Ptr {
						p := alloc(t, dev, uint64(max(1, len(v)))*16)
						if typ == device.Complex64 {
							v64 := make([]complex64, len(v))
							for i, x := range v {
								v64[i] = complex64(x)
								v[i] = complex128(v64[i])
							}
							require.NoError(t, device.Upload(s, p, v64))
						} else {
							require.NoError(t, device.Upload(s, p, v))
						}
						return p
					}
					g.A, g.B, g.C = up(a), up(b), up(c)
					require.NoError(t, s.Gemm(g))
					got := make([]complex128, len(c))
					if typ == device.Complex64 {
						g64 := make([]complex64, len(c))
						require.NoError(t, device.Download(s, g64, g.C))
						for i, x := range g64 {
							got[i] = complex128(x)
						}
					} else {
						require.NoError(t, device.Download(s, got, g.C))
					}
					at := func(m []complex128, ld, i, j int, tr bool) complex128 {
						if tr {
							i, j = j, i
						}
						return m[j*ld+i]
					}
					for j := range tc.n {
						for i := range tc.m {
							var sum complex128
							var bound float64
							for l := range tc.k {
								p := at(a, g.LDA, i, l, tc.transA) * at(b, g.LDB, l, j, tc.transB)
								sum += p
								bound += cmplx.Abs(p)
							}
							x := j*g.LDC + i
							w := complex(g.Alpha, 0)*sum + complex(g.Beta, 0)*c[x]
							require.InDelta(t, 0, cmplx.Abs(w-got[x]), tol*(g.Alpha*bound+cmplx.Abs(c[x]))+1e-30, "C[%d,%d]", i, j)
						}
						for i := tc.m; i < g.LDC && j*g.LDC+i < len(c); i++ {
							require.Equal(t, c[j*g.LDC+i], got[j*g.LDC+i], "padding C[%d,%d]", i, j)
						}
					}
				})
			}
		})
	}
}
