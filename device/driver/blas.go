package driver

import "github.com/gpuarr/gpuarr/device/dtype"

// GemmType reports whether Gemm takes elements of type t: the float types
// (Float16, BFloat16, Float32, Float64) and the complex ones.
func GemmType(t dtype.DType) bool { return t.IsFloat() || t.IsComplex() }

// Gemm is one general matrix product in BLAS's column-major convention:
//
//	C = Alpha·op(A)·op(B) + Beta·C
//
// where C is M×N, op(A) is M×K and op(B) is K×N; op(X) is X, or Xᵀ when
// TransX is set. Each matrix is stored column by column, LD elements apart
// (A: M×K, or K×M when TransA, with LDA ≥ its row count; likewise B; C
// with LDC ≥ M). TF32 lets float32 products use TF32 tensor cores (about
// 10 bits of mantissa in the multiplications); other types ignore it.
// Float16 and BFloat16 products accumulate in float32 (cuBLAS's
// CUBLAS_COMPUTE_32F; on the host, float32 BLAS on the widened values)
// and round each element of C once to the type; Alpha and Beta are then
// float32. Complex products take Alpha and Beta as real numbers.
type Gemm struct {
	Type           dtype.DType // GemmType
	TransA, TransB bool
	M, N, K        int
	Alpha, Beta    float64
	A              Ptr
	LDA            int
	B              Ptr
	LDB            int
	C              Ptr
	LDC            int
	TF32           bool
	// Work is a device workspace of WorkBytes for the library (see
	// BLASWorkspace), which it uses instead of memory it allocates
	// itself; zero lets the library use its own.
	Work      Ptr
	WorkBytes uint64
}

// Extents returns the stored shape (rows, columns) of A and B: op(A)
// before the transposition, and op(B).
func (g *Gemm) Extents() (aRows, aCols, bRows, bCols int) {
	aRows, aCols = g.M, g.K
	if g.TransA {
		aRows, aCols = g.K, g.M
	}
	bRows, bCols = g.K, g.N
	if g.TransB {
		bRows, bCols = g.N, g.K
	}
	return
}

// Span is the bytes a column-major rows×cols matrix with leading dimension
// ld covers from its first element; zero when it has no element.
func Span(rows, cols, ld int, t dtype.DType) uint64 {
	if rows <= 0 || cols <= 0 {
		return 0
	}
	return (uint64(cols-1)*uint64(ld) + uint64(rows)) * uint64(t.Size())
}

// BLAS is an optional capability of a backend's Stream: matrix products
// queued in stream order. A backend whose BLAS library cannot be loaded
// still implements it and fails with NotSupported naming the library.
//
// Backends treat HideSymbol("libcublas") as hiding the whole BLAS library,
// so tests can take the missing-library path on any machine.
type BLAS interface {
	Gemm(g Gemm) error
}

// BLASLibrary names the cuBLAS sonames, as errors for a missing library say.
const BLASLibrary = "libcublas.so.13 or libcublas.so.12"
