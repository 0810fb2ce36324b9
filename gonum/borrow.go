package gonum

import (
	"fmt"
	"runtime"
	"slices"
	"sync"
	"unsafe"

	"gonum.org/v1/gonum/blas/blas32"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"github.com/gpuarr/gpuarr/device"
	"github.com/gpuarr/gpuarr/gpuarr"
	"github.com/gpuarr/gpuarr/unified"
)

// Borrow calls f with the unified 2-D float64 array a seen as a
// *mat.Dense over a's own memory, after waiting for a GPU write of a that
// may be pending; see the package doc for what f may do. An array that is
// not unified is an error matching unified.ErrNotManaged; one that is not
// 2-D, not contiguous or empty (gonum has no empty matrices) one matching
// gpuarr.ErrShape. f's error is returned as is.
func Borrow(a *gpuarr.Array[float64], f func(m *mat.Dense) error) error {
	return BorrowAll([]*gpuarr.Array[float64]{a}, func(ms []*mat.Dense) error { return f(ms[0]) })
}

// BorrowAll is Borrow for several arrays at once: f gets their matrices
// in order.
func BorrowAll(arrays []*gpuarr.Array[float64], f func(ms []*mat.Dense) error) error {
	defer runtime.KeepAlive(arrays)
	ms := make([]*mat.Dense, len(arrays))
	for i, a := range arrays {
		l, err := lend("BorrowAll", a)
		if err != nil {
			return err
		}
		defer l.done()
		ms[i] = mat.NewDense(l.rows, l.cols, l.data)
	}
	return f(ms)
}

// BorrowGeneral calls f with the unified 2-D float64 array a seen as a
// blas64.General over its memory; as Borrow.
func BorrowGeneral(a *gpuarr.Array[float64], f func(g blas64.General) error) error {
	defer runtime.KeepAlive(a)
	l, err := lend("BorrowGeneral", a)
	if err != nil {
		return err
	}
	defer l.done()
	return f(blas64.General{Rows: l.rows, Cols: l.cols, Stride: l.cols, Data: l.data})
}

// BorrowGeneral32 calls f with the unified 2-D float32 array a seen as a
// blas32.General over its memory; as Borrow (Implementation routes no
// float32 operation).
func BorrowGeneral32(a *gpuarr.Array[float32], f func(g blas32.General) error) error {
	defer runtime.KeepAlive(a)
	l, err := lend("BorrowGeneral32", a)
	if err != nil {
		return err
	}
	defer l.done()
	return f(blas32.General{Rows: l.rows, Cols: l.cols, Stride: l.cols, Data: l.data})
}

// loan is one array lent: its elements as a slice, and, for float64
// arrays, its registration for Implementation.
type loan[T float32 | float64] struct {
	rows, cols int
	data       []T
	entry      *lent
}

func (l *loan[T]) done() {
	if l.entry != nil {
		registry.remove(l.entry)
	}
}

// lend synchronizes a for the CPU and returns its elements.
func lend[T float32 | float64](call string, a *gpuarr.Array[T]) (*loan[T], error) {
	if a == nil {
		return nil, fmt.Errorf("gonum.%s: nil array: %w", call, gpuarr.ErrArgument)
	}
	sh := a.Shape()
	if len(sh) != 2 || sh[0] == 0 || sh[1] == 0 {
		return nil, fmt.Errorf("gonum.%s: %v: want a 2-D array with elements (gonum has no empty matrices): %w", call, a.Describe(), gpuarr.ErrShape)
	}
	v, err := unified.Host(a)
	if err != nil {
		return nil, fmt.Errorf("gonum.%s: %w", call, err)
	}
	if !v.Contiguous() {
		return nil, fmt.Errorf("gonum.%s: %v is a strided view: Clone it into a unified array first: %w", call, a.Describe(), gpuarr.ErrShape)
	}
	l := &loan[T]{rows: sh[0], cols: sh[1], data: rawSlice(v)}
	if d, ok := any(l.data).([]float64); ok {
		l.entry = &lent{lo: uintptr(unsafe.Pointer(unsafe.SliceData(d))), a: any(a).(*gpuarr.Array[float64]), dev: a.Device()}
		l.entry.hi = l.entry.lo + uintptr(len(d))*8
		registry.add(l.entry)
	}
	return l, nil
}

// rawSlice is a contiguous View's elements as a slice: the package's one
// use of unified's raw slice, which does not keep the array alive (lend's
// callers do, for the length of the loan).
func rawSlice[T float32 | float64](v unified.View[T]) []T { return v.UnsafeSlice() }

// lent is a float64 array on loan, as host addresses [lo, hi).
type lent struct {
	lo, hi uintptr
	a      *gpuarr.Array[float64]
	dev    *device.Device
}

// registry holds the arrays on loan, sorted by address, for
// Implementation to find which array a slice gonum passes lies in.
var registry lentSet

type lentSet struct {
	mu   sync.RWMutex
	list []*lent
}

func (r *lentSet) add(l *lent) {
	r.mu.Lock()
	i, _ := slices.BinarySearchFunc(r.list, l.lo, func(e *lent, lo uintptr) int {
		switch {
		case e.lo < lo:
			return -1
		case e.lo > lo:
			return 1
		}
		return 0
	})
	r.list = slices.Insert(r.list, i, l)
	r.mu.Unlock()
}

func (r *lentSet) remove(l *lent) {
	r.mu.Lock()
	if i := slices.Index(r.list, l); i >= 0 {
		r.list = slices.Delete(r.list, i, i+1)
	}
	r.mu.Unlock()
}

// find is the array on loan whose memory holds [p, p+n), or nil.
func (r *lentSet) find(p, n uintptr) *lent {
	r.mu.RLock()
	defer r.mu.RUnlock()
	// The loans starting at or below p, nearest first (views of one
	// buffer, and nested loans of one array, may overlap).
	i, _ := slices.BinarySearchFunc(r.list, p, func(e *lent, p uintptr) int {
		if e.lo <= p {
			return -1
		}
		return 1
	})
	for j := i - 1; j >= 0; j-- {
		if e := r.list[j]; p+n <= e.hi {
			return e
		}
	}
	return nil
}
