package device

import (
	"math"

	"github.com/gpuarr/gpuarr/device/driver"
	"github.com/gpuarr/gpuarr/device/dtype"
)

// DType is the element type of arrays, kernels, matrix products and
// collectives: package dtype's vocabulary, named here so that callers of
// the device layer need no second import.
type DType = dtype.DType

// The element types Gemm takes.
const (
	Float32 = dtype.Float32
	Float64 = dtype.Float64
)

// Gemm is one matrix product in BLAS's column-major convention; see
// driver.Gemm. Row-major callers multiply transposes: row-major C = A·B
// is column-major Cᵀ = Bᵀ·Aᵀ, which reads the same memory.
type Gemm = driver.Gemm

// Gemm queues a matrix product, or a strided batch of them (Batch > 1),
// on s (cuBLAS on CUDA, gonum on the host). It returns once the work is
// queued. Without a BLAS library the error matches ErrNotSupported and
// names it; bad sizes, leading dimensions or batch strides match
// ErrInvalidValue. A product with M or N zero does nothing.
func (s *Stream) Gemm(g Gemm) error {
	const call = "Stream.Gemm"
	if err := s.check(call); err != nil {
		return err
	}
	if err := checkGemm(&g); err != nil {
		return err
	}
	b, ok := s.drv.(driver.BLAS)
	if !ok {
		return driver.PlainErrorf(call, driver.NotSupported, "the %s backend has no BLAS (%s)", s.dev.Backend(), driver.BLASLibrary)
	}
	if g.M == 0 || g.N == 0 {
		return nil
	}
	return b.Gemm(g)
}

// BLASWorkspace is the device workspace, in bytes, that a Gemm on s
// should be given (Gemm.Work) so that the BLAS library allocates nothing
// of its own: cuBLAS's recommended size on CUDA (32 MiB on compute
// capability 9 and later, 4 MiB before), a token size on the host, which
// only checks it. Zero when the backend takes none.
func (s *Stream) BLASWorkspace() uint64 {
	if w, ok := s.drv.(driver.BLASWorkspace); ok {
		return w.BLASWorkspace()
	}
	return 0
}

// checkGemm refuses what BLAS libraries would reject (or misread): sizes
// beyond int32, leading dimensions shorter than a column, missing pointers.
func checkGemm(g *Gemm) error {
	const call = "Stream.Gemm"
	if !driver.GemmType(g.Type) {
		return invalid(call, "element type %v: want Float32 or Float64", g.Type)
	}
	if g.M < 0 || g.N < 0 || g.K < 0 || g.M > math.MaxInt32 || g.N > math.MaxInt32 || g.K > math.MaxInt32 {
		return invalid(call, "sizes M=%d N=%d K=%d out of range [0, 2³¹)", g.M, g.N, g.K)
	}
	aRows, aCols, bRows, bCols := g.Extents()
	for _, m := range []struct {
		name       string
		rows, cols int
		ld         int
		p          Ptr
	}{{"A", aRows, aCols, g.LDA, g.A}, {"B", bRows, bCols, g.LDB, g.B}, {"C", g.M, g.N, g.LDC, g.C}} {
		if m.ld < max(1, m.rows) || m.ld > math.MaxInt32 {
			return invalid(call, "LD%s=%d for a %d×%d column-major %s: want at least %d", m.name, m.ld, m.rows, m.cols, m.name, max(1, m.rows))
		}
		if m.p == 0 && m.rows > 0 && m.cols > 0 && g.M > 0 && g.N > 0 {
			return invalid(call, "%s is a null pointer", m.name)
		}
	}
	if g.WorkBytes > 0 && g.Work == 0 {
		return invalid(call, "a %d-byte workspace at a null pointer", g.WorkBytes)
	}
	if g.Batch < 0 || g.Batch > math.MaxInt32 {
		return invalid(call, "batch %d out of range [0, 2³¹)", g.Batch)
	}
	if g.Batch > 1 {
		if g.StrideA < 0 || g.StrideB < 0 {
			return invalid(call, "strides A=%d B=%d: want ≥ 0", g.StrideA, g.StrideB)
		}
		if c := driver.Span(g.M, g.N, g.LDC, g.Type) / uint64(g.Type.Size()); g.StrideC < 0 || uint64(g.StrideC) < c {
			return invalid(call, "StrideC=%d: the %d C matrices would overlap (each spans %d elements)", g.StrideC, g.Batch, c)
		}
	}
	return nil
}
