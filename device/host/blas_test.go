package host

import (
	"testing"

	"github.com/stretchr/testify/require"
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas32"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/blas/gonum"

	"github.com/gpuarr/gpuarr/device/driver"
	"github.com/gpuarr/gpuarr/device/dtype"
)

// refusingBLAS is a BLAS a program might install with blas64.Use or
// blas32.Use (gpuarr/gonum's sends products back to a device).
type refusingBLAS struct{ gonum.Implementation }

func (refusingBLAS) Dgemm(blas.Transpose, blas.Transpose, int, int, int, float64, []float64, int, []float64, int, float64, []float64, int) {
	panic("the host device used the program's float64 BLAS")
}

func (refusingBLAS) Sgemm(blas.Transpose, blas.Transpose, int, int, int, float32, []float32, int, []float32, int, float32, []float32, int) {
	panic("the host device used the program's float32 BLAS")
}

// The host device's products use gonum's own BLAS, whatever BLAS the
// program installed for gonum's mat: one that sends them back to a device
// would wait on the stream running it.
func TestGemmIgnoresInstalledBLAS(t *testing.T) {
	blas64.Use(refusingBLAS{})
	blas32.Use(refusingBLAS{})
	defer blas64.Use(gonum.Implementation{})
	defer blas32.Use(gonum.Implementation{})
	d := testSystem(t).devs[0]
	s := newTestStream(t, d)
	a, c := newTestAlloc(t, d, 32), newTestAlloc(t, d, 32)
	upload(t, s, a, []float64{1, 3, 2, 4})
	require.NoError(t, s.Gemm(driver.Gemm{Type: dtype.Float64, M: 2, N: 2, K: 2, Alpha: 1, A: a, LDA: 2, B: a, LDB: 2, C: c, LDC: 2}))
	require.Equal(t, []float64{7, 15, 10, 22}, download[float64](t, s, c, 4))
	upload(t, s, a, []float32{1, 3, 2, 4})
	require.NoError(t, s.Gemm(driver.Gemm{Type: dtype.Float32, M: 2, N: 2, K: 2, Alpha: 1, A: a, LDA: 2, B: a, LDB: 2, C: c, LDC: 2}))
	require.Equal(t, []float32{7, 15, 10, 22}, download[float32](t, s, c, 4))
}

// The product runs in stream order: after the uploads queued before it,
// before the download queued after it. Column-major [1 2; 3 4]·[5 6; 7 8].
func TestGemmStreamOrder(t *testing.T) {
	d := testSystem(t).devs[0]
	s := newTestStream(t, d)
	a, b, c := newTestAlloc(t, d, 32), newTestAlloc(t, d, 32), newTestAlloc(t, d, 32)
	upload(t, s, a, []float64{1, 3, 2, 4})
	upload(t, s, b, []float64{5, 7, 6, 8})
	require.NoError(t, s.Gemm(driver.Gemm{Type: dtype.Float64, M: 2, N: 2, K: 2, Alpha: 1, A: a, LDA: 2, B: b, LDB: 2, C: c, LDC: 2}))
	require.Equal(t, []float64{19, 43, 22, 50}, download[float64](t, s, c, 4))

	// Transposed operands, float32: Aᵀ·Bᵀ = (B·A)ᵀ.
	upload(t, s, a, []float32{1, 3, 2, 4})
	upload(t, s, b, []float32{5, 7, 6, 8})
	require.NoError(t, s.Gemm(driver.Gemm{Type: dtype.Float32, M: 2, N: 2, K: 2, Alpha: 1, TransA: true, TransB: true,
		A: a, LDA: 2, B: b, LDB: 2, C: c, LDC: 2}))
	require.Equal(t, []float32{23, 34, 31, 46}, download[float32](t, s, c, 4))
}

func TestGemmBadMemory(t *testing.T) {
	d := testSystem(t).devs[0]
	s := newTestStream(t, d)
	p := newTestAlloc(t, d, 64)
	g := driver.Gemm{Type: dtype.Float32, M: 4, N: 4, K: 4, Alpha: 1, A: p, LDA: 4, B: p, LDB: 4, C: p, LDC: 4}

	short := g
	short.LDC = 5 // C now spans 4·5-1 = 19 floats: past the 16 allocated
	require.Equal(t, driver.IllegalAddress, code(t, s.Gemm(short)))

	misaligned := g
	misaligned.A = p + 2
	require.Equal(t, driver.MisalignedAddress, code(t, s.Gemm(misaligned)))

	// A free between issue and execution is found when the product runs.
	q, err := d.Alloc(64)
	require.NoError(t, err)
	freed := g
	freed.C = q
	blocker := make(chan struct{})
	require.NoError(t, s.enqueue("test", func() error { <-blocker; return nil }))
	require.NoError(t, s.Gemm(freed))
	require.NoError(t, d.Free(q))
	close(blocker)
	require.Equal(t, driver.IllegalAddress, code(t, s.Synchronize()))
}

// Memory of another device needs peer access, as a kernel's would.
func TestGemmPeerMemory(t *testing.T) {
	sys := testSystem(t, withDevices(2))
	d0, d1 := sys.devs[0], sys.devs[1]
	s := newTestStream(t, d0)
	p0, p1 := newTestAlloc(t, d0, 64), newTestAlloc(t, d1, 64)
	g := driver.Gemm{Type: dtype.Float32, M: 2, N: 2, K: 2, Alpha: 1, A: p1, LDA: 2, B: p0, LDB: 2, C: p0 + 32, LDC: 2}
	require.NoError(t, s.Gemm(g))
	err := s.Synchronize()
	require.Equal(t, driver.IllegalAddress, code(t, err))
	require.ErrorContains(t, err, "peer access")

	require.NoError(t, d0.EnablePeerAccess(d1))
	require.NoError(t, s.Gemm(g))
	require.NoError(t, s.Synchronize())
}

func TestGemmHiddenLibrary(t *testing.T) {
	d := testSystem(t).devs[0]
	s := newTestStream(t, d)
	p := newTestAlloc(t, d, 64)
	restore := d.HideSymbol("libcublas")
	err := s.Gemm(driver.Gemm{Type: dtype.Float32, M: 1, N: 1, K: 1, A: p, LDA: 1, B: p, LDB: 1, C: p + 4, LDC: 1})
	restore()
	require.ErrorIs(t, err, driver.ErrNotSupported)
	require.ErrorContains(t, err, driver.BLASLibrary)
}

func TestCompileCUDANotSupported(t *testing.T) {
	d := testSystem(t).devs[0]
	ptx, log, err := d.CompileCUDA(`extern "C" __global__ void k() {}`, "k.cu", nil)
	require.ErrorIs(t, err, driver.ErrNotSupported)
	require.ErrorContains(t, err, driver.CompilerLibrary)
	require.Empty(t, ptx)
	require.Empty(t, log)
}

// A strided batch: product i takes A + i·StrideA (0: the same A for all),
// B + i·StrideB and writes C + i·StrideC; a B batch that runs past its
// memory is an illegal address like any short operand.
func TestGemmBatch(t *testing.T) {
	d := testSystem(t).devs[0]
	s := newTestStream(t, d)
	a, b, c := newTestAlloc(t, d, 32), newTestAlloc(t, d, 3*32), newTestAlloc(t, d, 3*40)
	upload(t, s, a, []float64{1, 3, 2, 4})                         // [1 2; 3 4]
	upload(t, s, b, []float64{5, 7, 6, 8, 1, 0, 0, 1, 0, 1, 1, 0}) // [5 6; 7 8], I, the swap
	g := driver.Gemm{Type: dtype.Float64, M: 2, N: 2, K: 2, Alpha: 1, A: a, LDA: 2, B: b, LDB: 2, C: c, LDC: 2,
		Batch: 3, StrideA: 0, StrideB: 4, StrideC: 5}
	require.NoError(t, s.Gemm(g))
	got := download[float64](t, s, c, 15)
	require.Equal(t, []float64{19, 43, 22, 50}, got[0:4])
	require.Equal(t, []float64{1, 3, 2, 4}, got[5:9])
	require.Equal(t, []float64{2, 4, 1, 3}, got[10:14])

	short := g
	short.Batch = 4 // a fourth B past the end of b
	require.Equal(t, driver.IllegalAddress, code(t, s.Gemm(short)))
}
