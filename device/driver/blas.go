package driver

import "github.com/gpuarr/gpuarr/device/dtype"

// GemmType reports whether Gemm takes elements of type t: dtype.Float32
// and dtype.Float64.
func GemmType(t dtype.DType) bool { return t == dtype.Float32 || t == dtype.Float64 }

// Gemm is one general matrix product in BLAS's column-major convention:
//
//	C = Alpha·op(A)·op(B) + Beta·C
//
// where C is M×N, op(A) is M×K and op(B) is K×N; op(X) is X, or Xᵀ when
// TransX is set. Each matrix is stored column by column, LD elements apart
// (A: M×K, or K×M when TransA, with LDA ≥ its row count; likewise B; C
// with LDC ≥ M). TF32 lets float32 products use TF32 tensor cores (about
// 10 bits of mantissa in the multiplications).
//
// Batch > 1 makes it Batch products (a strided batch, cuBLAS's
// gemmStridedBatched): product i takes A + i·StrideA, B + i·StrideB and
// C + i·StrideC (in elements). StrideA and StrideB may be 0 (one matrix
// for every product); StrideC keeps the C matrices apart (at least
// Span(M, N, LDC) elements). Batch 0 or 1 is one product.
type Gemm struct {
	Type           dtype.DType // Float32 or Float64 (GemmType)
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

	Batch                     int
	StrideA, StrideB, StrideC int64
}

// Count is the number of products: Batch, or 1 when Batch is 0.
func (g *Gemm) Count() int { return max(g.Batch, 1) }

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

// BatchSpan is the bytes count matrices of span bytes each, stride
// elements apart (stride ≥ 0), cover from the first one's first element;
// zero when a matrix has no element.
func BatchSpan(span uint64, count int, stride int64, t dtype.DType) uint64 {
	if span == 0 {
		return 0
	}
	return span + uint64(max(count-1, 0))*uint64(stride)*uint64(t.Size())
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
