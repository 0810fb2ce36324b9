package linalg

import (
	"sync"
	"unsafe"

	"github.com/gpuarr/gpuarr/device"
	"github.com/gpuarr/gpuarr/gpuarr"
)

// The libraries are column-major and gpuarr is row-major: the memory of a
// row-major m×n matrix is the column-major n×m matrix Aᵀ. Each routine
// below works on a contiguous working copy (the libraries overwrite their
// input) laid out so that the library's matrix is A itself or Aᵀ,
// whichever needs fewer transposes; the comments on each say which.

// Float is the element types of this package: float32 and float64 (and
// types defined on them). Complex types will join when gpuarr has them.
type Float = gpuarr.Float

// dtype is T as the device names it.
func dtype[T Float]() device.DType {
	var zero T
	if unsafe.Sizeof(zero) == 4 {
		return device.Float32
	}
	return device.Float64
}

// esize is T's size in bytes.
func esize[T Float]() uint64 {
	var zero T
	return uint64(unsafe.Sizeof(zero))
}

// eps is T's machine epsilon (NumPy's finfo(T).eps).
func eps[T Float]() float64 {
	if dtype[T]() == device.Float32 {
		return 1.1920928955078125e-07
	}
	return 2.220446049250313e-16
}

// on is the option that runs gpuarr operations on s.
func on(s *device.Stream) gpuarr.Option { return gpuarr.On(s) }

// working is a new contiguous array of shape sh holding x (broadcast to
// sh), on s: the copy a routine may overwrite.
func working[T gpuarr.Numeric](x gpuarr.Operand[T], sh gpuarr.Shape, s *device.Stream) (*gpuarr.Array[T], error) {
	w, err := gpuarr.Empty[T](sh, on(s))
	if err != nil {
		return nil, err
	}
	if w.Len() == 0 {
		return w, nil
	}
	if err := gpuarr.EvalInto(w, x, on(s)); err != nil {
		w.Release()
		return nil, err
	}
	return w, nil
}

// swapLast is the view of a with its last two axes swapped (each matrix
// transposed).
func swapLast[T gpuarr.Numeric](a *gpuarr.Array[T]) (*gpuarr.Array[T], error) {
	r := a.Rank()
	axes := make([]int, r)
	for i := range axes {
		axes[i] = i
	}
	axes[r-1], axes[r-2] = r-2, r-1
	return a.Permute(axes...)
}

// transposed is a new contiguous array holding each matrix of x
// transposed, broadcast to the batch of sh (sh names the result's shape:
// batch, then x's columns, then x's rows).
func transposed[T gpuarr.Numeric](x *gpuarr.Array[T], sh gpuarr.Shape, s *device.Stream) (*gpuarr.Array[T], error) {
	v, err := swapLast(x)
	if err != nil {
		return nil, err
	}
	defer v.Release()
	return working[T](v, sh, s)
}

// rows is the view of rows [0, k) of each matrix of a.
func rows[T gpuarr.Numeric](a *gpuarr.Array[T], k int) (*gpuarr.Array[T], error) {
	return a.Step(a.Rank()-2, 0, k, 1)
}

// cols is the view of columns [0, k) of each matrix of a.
func cols[T gpuarr.Numeric](a *gpuarr.Array[T], k int) (*gpuarr.Array[T], error) {
	return a.Step(a.Rank()-1, 0, k, 1)
}

// iotas keeps, per device, a uint64 array 0, 1, 2, … long enough for the
// index expressions below; it grows by doubling and is never freed.
var iotas struct {
	mu sync.Mutex
	m  map[*device.Device]*gpuarr.Array[uint64]
}

// indices is the view [0, n) of the device's index array, n ≥ 1.
func indices(s *device.Stream, n int) (*gpuarr.Array[uint64], error) {
	dev := s.Device()
	iotas.mu.Lock()
	defer iotas.mu.Unlock()
	a := iotas.m[dev]
	if a == nil || a.Len() < n {
		size := 64
		for size < n {
			size *= 2
		}
		vals := make([]uint64, size)
		for i := range vals {
			vals[i] = uint64(i)
		}
		na, err := gpuarr.FromSlice(vals, gpuarr.Shape{size}, on(s))
		if err != nil {
			return nil, err
		}
		if a != nil {
			a.Release() // views of it keep its memory
		}
		if iotas.m == nil {
			iotas.m = map[*device.Device]*gpuarr.Array[uint64]{}
		}
		iotas.m[dev], a = na, na
	}
	return a.Slice(0, n)
}

// grid is the row index (an [r 1] array) and the column index (a [1 c]
// array) of an r×c matrix, for masks. The caller releases both.
func grid(s *device.Stream, r, c int) (ri, ci *gpuarr.Array[uint64], err error) {
	ir, err := indices(s, max(r, c, 1))
	if err != nil {
		return nil, nil, err
	}
	defer ir.Release()
	rv, err := ir.Slice(0, r)
	if err != nil {
		return nil, nil, err
	}
	defer rv.Release()
	cv, err := ir.Slice(0, c)
	if err != nil {
		return nil, nil, err
	}
	defer cv.Release()
	if ri, err = rv.Reshape(gpuarr.Shape{r, 1}); err != nil {
		return nil, nil, err
	}
	if ci, err = cv.Reshape(gpuarr.Shape{1, c}); err != nil {
		ri.Release()
		return nil, nil, err
	}
	return ri, ci, nil
}

// triangle says which part of a matrix a mask keeps.
type triangle int

const (
	lowerTri       triangle = iota // i ≥ j
	upperTri                       // i ≤ j
	strictLowerTri                 // i > j
	diagonal                       // i = j
)

// masked is x (broadcast to sh) with the elements outside the part tri
// of each matrix zeroed, into a new array; unitDiag puts ones on the
// diagonal (L of an LU factorization).
func masked[T Float](x gpuarr.Operand[T], sh gpuarr.Shape, tri triangle, unitDiag bool, s *device.Stream) (*gpuarr.Array[T], error) {
	r, c := sh[len(sh)-2], sh[len(sh)-1]
	if r == 0 || c == 0 {
		return gpuarr.Empty[T](sh, on(s))
	}
	ri, ci, err := grid(s, r, c)
	if err != nil {
		return nil, err
	}
	defer ri.Release()
	defer ci.Release()
	var m gpuarr.Mask
	switch tri {
	case lowerTri:
		m = gpuarr.GreaterEqual[uint64](ri, ci)
	case upperTri:
		m = gpuarr.LessEqual[uint64](ri, ci)
	case strictLowerTri:
		m = gpuarr.Greater[uint64](ri, ci)
	case diagonal:
		m = gpuarr.Equal[uint64](ri, ci)
	}
	e := gpuarr.Where(m, x, gpuarr.Scalar[T](0))
	if unitDiag {
		e = gpuarr.Where(gpuarr.Equal[uint64](ri, ci), gpuarr.Scalar[T](1), e)
	}
	return working[T](e, sh, s)
}

// identity is a stack of identity matrices of shape sh.
func identity[T Float](sh gpuarr.Shape, s *device.Stream) (*gpuarr.Array[T], error) {
	return masked[T](gpuarr.Scalar[T](1), sh, diagonal, false, s)
}

// pointers is the device array of count addresses base, base+stride, …:
// the matrices of a batch, for the batched routines that take arrays of
// pointers. One elementwise kernel; no upload.
func pointers(s *device.Stream, base device.Ptr, stride uint64, count int) (*gpuarr.Array[uint64], error) {
	ix, err := indices(s, count)
	if err != nil {
		return nil, err
	}
	defer ix.Release()
	return gpuarr.Eval(gpuarr.Add(gpuarr.Scalar(uint64(base)), gpuarr.Mul[uint64](ix, gpuarr.Scalar(stride))), on(s))
}

// release releases arrays (nil ones too: Release takes a nil receiver),
// for error paths and temporaries.
func release(arrays ...interface{ Release() error }) {
	for _, a := range arrays {
		_ = a.Release()
	}
}

// diagonalOf is the view of the diagonals of w's contiguous n×n matrices
// ([..., n]).
func diagonalOf[T gpuarr.Numeric](w *gpuarr.Array[T], st stack) (*gpuarr.Array[T], error) {
	n := st.n
	flat, err := w.Reshape(st.with(n * n))
	if err != nil {
		return nil, err
	}
	defer flat.Release()
	return flat.Step(len(st.batch), 0, n*n, n+1)
}
