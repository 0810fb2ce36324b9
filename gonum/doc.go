// Package gonum bridges gpuarr and gonum (gonum.org/v1/gonum): it moves
// matrices between mat.Dense (or blas64/blas32 General) and gpuarr
// arrays, lends unified arrays to gonum code as matrices that share their
// memory, and implements gonum's blas.Float64 so that gonum's own
// operations on those matrices run on the GPU.
//
//	blas64.Use(gonum.Implementation{}) // once, at start
//	a, _ := unified.FromSlice(data, gpuarr.Shape{n, n})
//	c, _ := unified.Empty[float64](gpuarr.Shape{n, n})
//	err := gonum.BorrowAll([]*gpuarr.Array[float64]{a, c}, func(m []*mat.Dense) error {
//		m[1].Mul(m[0], m[0]) // one cuBLAS DGEMM on the arrays' memory
//		return nil
//	})
//
// Example runs that product.
//
// # Conversions
//
// FromDense, FromGeneral and FromGeneral32 copy a gonum matrix into a new
// [rows cols] array; ToDense, ToGeneral and ToGeneral32 copy a 2-D array
// into new gonum matrices (row-major both ways, so no transposition). They
// take any array and wait for the copy.
//
// # Borrowing unified arrays
//
// Borrow and BorrowAll lend 2-D contiguous unified arrays (package
// unified) to f as *mat.Dense values over the arrays' own memory, and
// BorrowGeneral and BorrowGeneral32 as blas64/blas32 General values.
// Lending synchronizes as unified.Host does: it waits for a GPU write of
// the array that may be pending (the dirty bit) and for nothing else.
// Inside f, CPU reads and writes are plain memory accesses; a product
// that Implementation sends to the GPU waits for its own result before
// it returns, so gonum code sees it; after other GPU work on a lent
// array, call unified.Host on it before reading it again. The arrays are
// kept alive for the whole call and must not be released during it; the
// matrices, and slices or views made from them, must not be used after
// f returns (the memory may then be freed or moved under them).
//
// # The BLAS
//
// Implementation is gonum's own BLAS (blas/gonum) except for Dgemm, the
// product mat.Dense.Mul makes for two general matrices: when A, B and C
// all lie in unified arrays lent by Borrow or BorrowAll on one device,
// and the product has at least MinDeviceGemm multiply-adds, it runs as
// one cuBLAS DGEMM (gonum on the host device), ordered with the arrays'
// other GPU work, and Dgemm returns once C holds the result. Anything
// else (memory gonum allocated, small products, matrices of several
// devices) runs on the CPU, unchanged. Other operations (Dgemv, Dsymm,
// Dtrmm, ...) run on the CPU. DeviceGemms counts the products sent to
// the device. A device failure during a product sent there panics, as
// gonum's BLAS does for bad arguments: C may hold a partial result.
//
// This package owns the conversions, the lending and its registry of lent
// memory, and the BLAS; it issues device work only through arrayhook.Track
// and device.Stream.Gemm, and reaches memory the CPU addresses only
// through package unified.
package gonum
