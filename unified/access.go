package unified

import (
	"errors"
	"fmt"
	"iter"
	"unsafe"

	"github.com/gpuarr/gpuarr/device"
	"github.com/gpuarr/gpuarr/gpuarr"
)

// ErrNotManaged: a CPU view was asked of an array whose memory the CPU
// cannot address (an ordinary device array).
var ErrNotManaged = errors.New("not a unified array")

// View is direct CPU access to a unified array's elements. Making one
// (Host) synchronizes what must be synchronized; its methods are then plain
// memory accesses: no driver call, no lock, no atomic. A View reflects the
// array until the next GPU operation on it is issued: make a new one after
// GPU work (it costs one lock when nothing is pending). Writes through it
// are seen by the next GPU operation without a manual sync. It is valid
// while its array is neither released nor unreachable.
//
// Elements are addressed two ways. At and Set take the row-major position
// (0 to Len()-1, the position All yields), on any view, strided or not;
// on a contiguous view they compile to a slice access, so loops over them
// run at slice speed. AtIndex and SetIndex take one index per axis.
type View[T gpuarr.Numeric] struct {
	// vec is the elements as one slice when the view is contiguous (nil
	// otherwise): At, Set and the iterators' fast path. The View is kept
	// this small so that a loop calling At copies nothing per element.
	vec []T
	l   *viewLayout[T]
}

// viewLayout is the rest of a View: what strided access and per-axis
// indices need, and the array the View keeps alive.
type viewLayout[T gpuarr.Numeric] struct {
	walk    walkLayout
	shape   []int
	strides []int
	n       int
	keep    *gpuarr.Array[T]
}

// walkLayout describes a strided view for iteration: base is the first
// element, dims and steps (in bytes) the axes with size-1 axes dropped and
// mergeable neighbours merged, so the last axis is as long a run as the
// layout allows.
type walkLayout struct {
	base  unsafe.Pointer
	dims  []int
	steps []int
}

// Host makes a View of a: it waits for GPU writes (and other streams'
// reads) of a that may be pending, and only those; on a device without
// concurrent managed access it synchronizes the whole device, since the CPU
// must not touch managed memory while any kernel runs there.
func Host[T gpuarr.Numeric](a *gpuarr.Array[T]) (View[T], error) {
	return host("Host", a)
}

func host[T gpuarr.Numeric](call string, a *gpuarr.Array[T]) (View[T], error) {
	if err := a.Err(); err != nil {
		return View[T]{}, fmt.Errorf("unified.%s: %w", call, err)
	}
	dev := a.Device()
	how := gpuarr.HostAccess{WholeDevice: !dev.ConcurrentManagedAccess()}
	if !how.WholeDevice {
		how.Migrate = func(s *device.Stream, p device.Ptr, n uint64) (bool, error) {
			return prefetchForCPU(dev, s, p, n), nil
		}
	}
	lay, err := gpuarr.PrepareHostAccess(a, how)
	if err != nil {
		return View[T]{}, fmt.Errorf("unified.%s: %w", call, err)
	}
	if !isManaged(dev, lay) {
		return View[T]{}, fmt.Errorf("unified.%s: %v: its memory is device memory the CPU cannot address; "+
			"allocate it with unified.Empty/Zeros/FromSlice, or copy it to the host with ToSlice: %w", call, a.Describe(), ErrNotManaged)
	}
	l := &viewLayout[T]{shape: lay.Shape, strides: lay.Strides, n: a.Len(), keep: a}
	v := View[T]{l: l}
	if l.n == 0 {
		return v, nil
	}
	base := dev.HostPointer(lay.Ptr)
	if base == nil {
		return View[T]{}, fmt.Errorf("unified.%s: %v: no host address: %w", call, a.Describe(), ErrNotManaged)
	}
	esize := int(unsafe.Sizeof(*new(T)))
	l.walk = newWalkLayout(base, l.shape, l.strides, esize)
	if len(l.walk.dims) == 1 && l.walk.steps[0] == esize {
		v.vec = unsafe.Slice((*T)(base), l.n)
	}
	return v, nil
}

// newWalkLayout drops size-1 axes and merges axis i into i+1 where
// stride[i] = stride[i+1]·shape[i+1]; a contiguous view becomes one axis
// of step esize.
func newWalkLayout(base unsafe.Pointer, shape, strides []int, esize int) walkLayout {
	w := walkLayout{base: base}
	for i, d := range shape {
		if d == 1 {
			continue
		}
		st := strides[i] * esize
		if k := len(w.dims) - 1; k >= 0 && w.steps[k] == st*d {
			w.dims[k] *= d
			w.steps[k] = st
			continue
		}
		w.dims = append(w.dims, d)
		w.steps = append(w.steps, st)
	}
	if len(w.dims) == 0 { // a single element
		w.dims, w.steps = []int{1}, []int{esize}
	}
	return w
}

func isManaged(dev *device.Device, lay gpuarr.HostLayout) bool {
	r, ok := resources.Load(dev)
	return ok && lay.Resource != nil && r == any(lay.Resource)
}

// Len is the number of elements.
func (v View[T]) Len() int {
	if v.l == nil {
		return 0
	}
	return v.l.n
}

// Contiguous reports whether the elements are packed row-major, so that
// Slice covers them.
func (v View[T]) Contiguous() bool { return v.vec != nil || v.Len() == 0 }

// Slice is the elements as a []T (row-major), or nil when the view is
// strided (use At, All or Values) or empty.
func (v View[T]) Slice() []T { return v.vec }

// At is the element at row-major position i (0 ≤ i < Len()), on any view:
// the element All yields with position i. It panics when i is out of
// range, as indexing a slice does.
func (v View[T]) At(i int) T {
	if uint(i) < uint(len(v.vec)) {
		return v.vec[i]
	}
	return *v.l.ptr(i)
}

// Set writes x at row-major position i (see At).
func (v View[T]) Set(i int, x T) {
	if uint(i) < uint(len(v.vec)) {
		v.vec[i] = x
		return
	}
	*v.l.ptr(i) = x
}

// ptr is the address of the element at row-major position i, for strided
// views (and the panic for an out-of-range i).
func (v *viewLayout[T]) ptr(i int) *T {
	if uint(i) >= uint(v.n) {
		panic(fmt.Sprintf("unified: position %d out of range [0, %d) for a %v view", i, v.n, v.shape))
	}
	off := 0
	for ax := len(v.walk.dims) - 1; ax >= 0; ax-- {
		d := v.walk.dims[ax]
		off += (i % d) * v.walk.steps[ax]
		i /= d
	}
	return (*T)(unsafe.Add(v.walk.base, off))
}

// AtIndex is the element at idx, one index per axis. It panics on a wrong
// number of indices or an index out of range.
func (v View[T]) AtIndex(idx ...int) T { return *v.l.ptrIndex(idx) }

// SetIndex writes x at idx, one index per axis (see AtIndex).
func (v View[T]) SetIndex(x T, idx ...int) { *v.l.ptrIndex(idx) = x }

func (v *viewLayout[T]) ptrIndex(idx []int) *T {
	if len(idx) != len(v.shape) {
		panic(fmt.Sprintf("unified: %d indices for a rank-%d array", len(idx), len(v.shape)))
	}
	off := 0
	for i, x := range idx {
		if uint(x) >= uint(v.shape[i]) {
			panic(fmt.Sprintf("unified: index %d out of range [0, %d) on axis %d", x, v.shape[i], i))
		}
		off += x * v.strides[i]
	}
	return (*T)(unsafe.Add(v.walk.base, off*int(unsafe.Sizeof(*new(T)))))
}

// All yields (row-major position, element) pairs in row-major order,
// following the view's strides.
//
// The iterator is small enough for the compiler to inline a range loop
// over it, body included: on a contiguous view it runs as a loop over a
// slice.
func (v View[T]) All() iter.Seq2[int, T] {
	return func(yield func(int, T) bool) {
		if v.vec != nil {
			for i, x := range v.vec {
				if !yield(i, x) {
					return
				}
			}
			return
		}
		i := 0
		for r := v.l.walk.rows(); r.next(); {
			for j := range r.n {
				if !yield(i, *(*T)(unsafe.Add(r.p, j*r.step))) {
					return
				}
				i++
			}
		}
	}
}

// Values yields the elements in row-major order, following the view's
// strides. Like All, a range loop over it inlines completely.
func (v View[T]) Values() iter.Seq[T] {
	return func(yield func(T) bool) {
		if v.vec != nil {
			for _, x := range v.vec {
				if !yield(x) {
					return
				}
			}
			return
		}
		for r := v.l.walk.rows(); r.next(); {
			for j := range r.n {
				if !yield(*(*T)(unsafe.Add(r.p, j*r.step))) {
					return
				}
			}
		}
	}
}

// rowWalker visits a walkLayout's runs along its last axis in row-major
// order: after next returns true, p is the run's first element, n its
// length and step the bytes between its elements.
type rowWalker struct {
	p       unsafe.Pointer
	n, step int
	w       *walkLayout
	idx     []int // indices on the outer axes of the current run
	off     int   // its byte offset from the base
	started bool
}

func (w *walkLayout) rows() rowWalker {
	return rowWalker{w: w}
}

func (r *rowWalker) next() bool {
	w := r.w
	if w.base == nil {
		return false
	}
	last := len(w.dims) - 1
	if !r.started {
		r.started = true
		r.idx = make([]int, last)
		r.p, r.n, r.step = w.base, w.dims[last], w.steps[last]
		return true
	}
	// Carry into the outer axes.
	for ax := last - 1; ax >= 0; ax-- {
		r.idx[ax]++
		r.off += w.steps[ax]
		if r.idx[ax] < w.dims[ax] {
			r.p = unsafe.Add(w.base, r.off)
			return true
		}
		r.off -= r.idx[ax] * w.steps[ax]
		r.idx[ax] = 0
	}
	return false
}

// Slice is Host(a).Slice() for a contiguous array: its elements as a
// []T the CPU reads and writes in place. A strided view is an error.
func Slice[T gpuarr.Numeric](a *gpuarr.Array[T]) ([]T, error) {
	v, err := host("Slice", a)
	if err != nil {
		return nil, err
	}
	if !v.Contiguous() {
		return nil, fmt.Errorf("unified.Slice: %v is a strided view, not one []T; use unified.All or unified.Host: %w", a.Describe(), gpuarr.ErrArgument)
	}
	if v.l.n == 0 {
		return []T{}, nil
	}
	return v.Slice(), nil
}

// AtIndex reads one element (one index per axis). It synchronizes like
// Host, which costs one lock when nothing is pending; loops should take a
// View once instead.
func AtIndex[T gpuarr.Numeric](a *gpuarr.Array[T], idx ...int) (T, error) {
	v, err := host("AtIndex", a)
	if err != nil {
		return 0, err
	}
	if len(idx) != len(v.l.shape) {
		return 0, fmt.Errorf("unified.AtIndex: %d indices for %v: %w", len(idx), a.Describe(), gpuarr.ErrArgument)
	}
	for i, x := range idx {
		if x < 0 || x >= v.l.shape[i] {
			return 0, fmt.Errorf("unified.AtIndex: index %d out of range [0, %d) on axis %d of %v: %w", x, v.l.shape[i], i, a.Describe(), gpuarr.ErrArgument)
		}
	}
	return v.AtIndex(idx...), nil
}

// All is Host(a).All(): it synchronizes once, here; the pairs it yields
// are plain memory reads.
func All[T gpuarr.Numeric](a *gpuarr.Array[T]) (iter.Seq2[int, T], error) {
	v, err := host("All", a)
	if err != nil {
		return nil, err
	}
	return v.All(), nil
}

// Values is Host(a).Values().
func Values[T gpuarr.Numeric](a *gpuarr.Array[T]) (iter.Seq[T], error) {
	v, err := host("Values", a)
	if err != nil {
		return nil, err
	}
	return v.Values(), nil
}
