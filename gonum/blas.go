package gonum

import (
	"fmt"
	"sync/atomic"
	"unsafe"

	"gonum.org/v1/gonum/blas"
	native "gonum.org/v1/gonum/blas/gonum"

	"github.com/gpuarr/gpuarr/device"
	"github.com/gpuarr/gpuarr/gpuarr"
	"github.com/gpuarr/gpuarr/internal/arrayhook"
	"github.com/gpuarr/gpuarr/unified"
)

// MinDeviceGemm is the fewest multiply-adds (m·n·k) of a product that
// Implementation sends to the device: below it the CPU is done before a
// GPU launch and its synchronization would be.
const MinDeviceGemm = 1 << 18

// Implementation is gonum's BLAS (blas/gonum.Implementation) with Dgemm
// sent to the device when its matrices lie in unified arrays on loan
// (Borrow, BorrowAll): blas64.Use(gonum.Implementation{}) makes gonum's
// mat use it. See the package doc.
type Implementation struct{ native.Implementation }

var _ blas.Float64 = Implementation{}

var deviceGemms atomic.Uint64

// DeviceGemms counts the products Implementation sent to a device.
func DeviceGemms() uint64 { return deviceGemms.Load() }

// Dgemm computes C = alpha·op(A)·op(B) + beta·C, as blas.Float64 says (row
// major, op(X) = X or Xᵀ): on the device when it can, else with gonum's.
func (impl Implementation) Dgemm(tA, tB blas.Transpose, m, n, k int, alpha float64, a []float64, lda int, b []float64, ldb int, beta float64, c []float64, ldc int) {
	if !deviceGemm(tA, tB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc) {
		impl.Implementation.Dgemm(tA, tB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
	}
}

// operand is one matrix of a product on loan: its array and its element
// offset in it.
type operand struct {
	l   *lent
	off uintptr // bytes from the array's first element
}

// onLoan finds the loan holding the rows×cols matrix with stride ld at x.
func onLoan(x []float64, rows, cols, ld int) (operand, bool) {
	p := uintptr(unsafe.Pointer(unsafe.SliceData(x)))
	l := registry.find(p, uintptr((rows-1)*ld+cols)*8)
	if l == nil {
		return operand{}, false
	}
	return operand{l, p - l.lo}, true
}

func transposed(t blas.Transpose) (bool, bool) {
	switch t {
	case blas.NoTrans:
		return false, true
	case blas.Trans, blas.ConjTrans:
		return true, true
	}
	return false, false
}

// deviceGemm runs the product on the device and reports true, or reports
// false for gonum to run it: arguments gonum would refuse (it then panics
// with its message), small products, memory not on loan, several devices.
func deviceGemm(tA, tB blas.Transpose, m, n, k int, alpha float64, a []float64, lda int, b []float64, ldb int, beta float64, c []float64, ldc int) bool {
	ta, okA := transposed(tA)
	tb, okB := transposed(tB)
	if !okA || !okB || m <= 0 || n <= 0 || k <= 0 || m*n*k < MinDeviceGemm {
		return false
	}
	ar, ac := m, k
	if ta {
		ar, ac = k, m
	}
	br, bc := k, n
	if tb {
		br, bc = n, k
	}
	if lda < max(1, ac) || ldb < max(1, bc) || ldc < max(1, n) ||
		len(a) < (ar-1)*lda+ac || len(b) < (br-1)*ldb+bc || len(c) < (m-1)*ldc+n {
		return false
	}
	oa, okA := onLoan(a, ar, ac, lda)
	ob, okB := onLoan(b, br, bc, ldb)
	oc, okC := onLoan(c, m, n, ldc)
	if !okA || !okB || !okC || oa.l.dev != oc.l.dev || ob.l.dev != oc.l.dev {
		return false
	}
	s := oc.l.dev.DefaultStream()
	if s.IsCapturing() {
		return false // a library call cannot join a graph (nor can C be waited for)
	}
	// Row-major C = op(A)·op(B) is column-major Cᵀ = op(B)ᵀ·op(A)ᵀ over
	// the same memory, with the same flags.
	g := device.Gemm{Type: device.Float64, M: n, N: m, K: k, Alpha: alpha, Beta: beta,
		TransA: tb, LDA: ldb, TransB: ta, LDB: lda, LDC: ldc}
	queued, err := issueGemm(s, g, oa, ob, oc)
	if err != nil && queued {
		panic(fmt.Sprintf("gonum.Implementation.Dgemm on %s: %v", oc.l.dev, err))
	}
	if err != nil {
		return false // nothing was queued (no BLAS library, no memory): the CPU computes it
	}
	deviceGemms.Add(1)
	return true
}

// issueGemm queues the product as one tracked use of the three arrays
// (C read and written: beta may keep it, and only part of it may be the
// matrix), with the BLAS workspace from the pool, and waits for C. queued
// says whether the product was queued (an error then is the wait's).
func issueGemm(s *device.Stream, g device.Gemm, a, b, c operand) (queued bool, err error) {
	modes := map[*gpuarr.Array[float64]]bool{c.l.a: true} // array → written
	for _, o := range []operand{a, b} {
		if _, ok := modes[o.l.a]; !ok {
			modes[o.l.a] = false
		}
	}
	var uses []arrayhook.Use
	for arr := range modes {
		// A hint (its failure changes nothing): the pages move in bulk
		// instead of faulting in one by one under the product.
		_ = unified.Prefetch(arr, s.Device(), s)
	}
	for arr, written := range modes {
		if written {
			uses = append(uses, arrayhook.ReadsWrites(arr, s))
		} else {
			uses = append(uses, arrayhook.Reads(arr, s))
		}
	}
	var work *gpuarr.Array[uint8]
	if n := s.BLASWorkspace(); n > 0 {
		var err error
		if work, err = gpuarr.Empty[uint8](gpuarr.Shape{int(n)}, gpuarr.On(s)); err != nil {
			return false, fmt.Errorf("the BLAS workspace: %w", err)
		}
		defer work.Release()
		uses = append(uses, arrayhook.Writes(work, s))
	}
	err = arrayhook.Track("gonum.Implementation.Dgemm", uses, func() error {
		g.A = arrayhook.DevicePtr(b.l.a).Add(uint64(b.off))
		g.B = arrayhook.DevicePtr(a.l.a).Add(uint64(a.off))
		g.C = arrayhook.DevicePtr(c.l.a).Add(uint64(c.off))
		if work != nil {
			g.Work, g.WorkBytes = arrayhook.DevicePtr(work), uint64(work.Len())
		}
		return s.Gemm(g)
	})
	if err != nil {
		return false, err
	}
	// gonum reads C when Dgemm returns: wait for the product (the dirty
	// bit says it is pending).
	_, err = unified.Host(c.l.a)
	return true, err
}
