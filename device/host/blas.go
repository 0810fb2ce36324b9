package host

import (
	"fmt"
	"runtime/debug"
	"unsafe"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/gonum"

	"github.com/gpuarr/gpuarr/device/driver"
	"github.com/gpuarr/gpuarr/device/dtype"
)

// Matrix products run gonum's BLAS on the stream's goroutine, in stream
// order like a kernel, under the rules a kernel follows: live memory of
// this device or of a peer with access enabled. HideSymbol("libcublas")
// makes them fail as on a machine without cuBLAS.

const blasCall = "cublasGemm"

// blasLibHidden reports a hidden BLAS library the way the CUDA backend
// reports a missing one.
func (d *device) blasLibHidden() error {
	if err := d.symbol("libcublas"); err != nil {
		return &driver.Error{Plain: true, Call: "dlopen " + driver.BLASLibrary, Code: driver.NotSupported,
			Detail: "hidden on " + d.String() + " by HideSymbol(\"libcublas\")"}
	}
	return nil
}

// Gemm queues the product; see driver.Gemm.
func (s *stream) Gemm(g driver.Gemm) error {
	if err := s.dev.blasLibHidden(); err != nil {
		return err
	}
	if !driver.GemmType(g.Type) {
		return errorf(blasCall, driver.InvalidValue, "element type %v", g.Type)
	}
	aRows, aCols, bRows, bCols := g.Extents()
	count := g.Count()
	spans := [3]uint64{
		driver.BatchSpan(driver.Span(aRows, aCols, g.LDA, g.Type), count, g.StrideA, g.Type),
		driver.BatchSpan(driver.Span(bRows, bCols, g.LDB, g.Type), count, g.StrideB, g.Type),
		driver.BatchSpan(driver.Span(g.M, g.N, g.LDC, g.Type), count, g.StrideC, g.Type),
	}
	ptrs := [3]driver.Ptr{g.A, g.B, g.C}
	for i, n := range spans {
		if n == 0 {
			continue
		}
		if uint64(ptrs[i])%uint64(g.Type.Size()) != 0 {
			return errorf(blasCall, driver.MisalignedAddress, "%s matrix at %v is not %d-byte aligned", "ABC"[i:i+1], ptrs[i], g.Type.Size())
		}
		if err := span(blasCall, ptrs[i], n); err != nil {
			return err
		}
	}
	if g.WorkBytes > 0 {
		if err := span(blasCall, g.Work, g.WorkBytes); err != nil {
			return err
		}
	}
	dev := s.dev
	return s.enqueue(blasCall, func() error { return dev.gemm(g, ptrs, spans) })
}

// hostBLASWorkspace is the workspace the host asks of a Gemm: gonum needs
// none, but asking for some lets tests see that callers pass a live one.
const hostBLASWorkspace = 4096

// BLASWorkspace is the workspace a Gemm should be given; see
// driver.BLASWorkspace.
func (s *stream) BLASWorkspace() uint64 { return hostBLASWorkspace }

// gemm runs the products of g (Batch of them, or one); a gonum panic (it
// checks its arguments) becomes the stream's error rather than the
// process's.
func (d *device) gemm(g driver.Gemm, ptrs [3]driver.Ptr, spans [3]uint64) (err error) {
	if g.WorkBytes > 0 {
		a, _, why := index.pin(g.Work, g.WorkBytes)
		if a == nil {
			return illegal(blasCall, fmt.Sprintf("on %s: workspace %s", d, why))
		}
		a.unpin()
	}
	var mem [3][]byte
	for i, n := range spans {
		if n == 0 {
			continue
		}
		a, b, why := index.pin(ptrs[i], n)
		if a == nil {
			return illegal(blasCall, fmt.Sprintf("on %s: %s", d, why))
		}
		defer a.unpin()
		if !d.peerOK(a.dev) {
			return illegal(blasCall, fmt.Sprintf("on %s: %v is memory of %s, without peer access", d, ptrs[i], a.dev))
		}
		mem[i] = b
	}
	defer func() {
		if r := recover(); r != nil {
			err = errorf(blasCall, driver.InvalidValue, "gonum refused the product on %s: %v\n%s", d, r, debug.Stack())
		}
	}()
	for i := range g.Count() {
		at := func(m []byte, stride int64) []byte {
			if len(m) == 0 {
				return nil
			}
			return m[uint64(i)*uint64(stride)*uint64(g.Type.Size()):]
		}
		gemmOne(g, at(mem[0], g.StrideA), at(mem[1], g.StrideB), at(mem[2], g.StrideC))
	}
	return nil
}

// gemmOne runs one product of g on the matrices at a, b and c.
func gemmOne(g driver.Gemm, a, b, c []byte) {
	if g.K == 0 {
		// An empty sum: C = Beta·C, as BLAS defines it (gonum would
		// insist on operands that hold nothing).
		scaleColumns(g, c)
		return
	}
	// gonum is row-major: column-major C = op(A)·op(B) is the row-major
	// Cᵀ = op(B)ᵀ·op(A)ᵀ over the same memory, with the same flags.
	tA, tB := trans(g.TransA), trans(g.TransB)
	switch g.Type {
	case dtype.Float32:
		gonumBLAS.Sgemm(tB, tA, g.N, g.M, g.K, float32(g.Alpha),
			floats[float32](b), g.LDB, floats[float32](a), g.LDA,
			float32(g.Beta), floats[float32](c), g.LDC)
	case dtype.Float64:
		gonumBLAS.Dgemm(tB, tA, g.N, g.M, g.K, g.Alpha,
			floats[float64](b), g.LDB, floats[float64](a), g.LDA,
			g.Beta, floats[float64](c), g.LDC)
	}
}

// gonumBLAS is gonum's own BLAS: not blas64's and blas32's current ones,
// which a program may replace (gpuarr/gonum's Implementation sends
// products of unified memory back to a device).
var gonumBLAS gonum.Implementation

// scaleColumns sets C = Beta·C (zeros when Beta is 0, whatever C held).
func scaleColumns(g driver.Gemm, c []byte) {
	for j := range g.N {
		switch g.Type {
		case dtype.Float32:
			col := floats[float32](c)[j*g.LDC : j*g.LDC+g.M]
			for i := range col {
				col[i] = float32(g.Beta) * col[i]
				if g.Beta == 0 {
					col[i] = 0
				}
			}
		case dtype.Float64:
			col := floats[float64](c)[j*g.LDC : j*g.LDC+g.M]
			for i := range col {
				col[i] = g.Beta * col[i]
				if g.Beta == 0 {
					col[i] = 0
				}
			}
		}
	}
}

func trans(t bool) blas.Transpose {
	if t {
		return blas.Trans
	}
	return blas.NoTrans
}

// floats views device bytes as elements (allocations are page-aligned and
// spans start at element boundaries).
func floats[T float32 | float64](b []byte) []T {
	if len(b) == 0 {
		return nil
	}
	var zero T
	return unsafe.Slice((*T)(unsafe.Pointer(unsafe.SliceData(b))), len(b)/int(unsafe.Sizeof(zero)))
}
