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
type View[T gpuarr.Numeric] struct {
	base    unsafe.Pointer
	shape   []int
	strides []int
	n       int
	contig  bool
	vec     []T // the elements when the view is one contiguous axis: At's fast path
	keep    *gpuarr.Array[T]
}

// Host makes a View of a: it waits for GPU writes (and other streams'
// reads) of a that may be pending, and only those; on a device without
// concurrent managed access it synchronizes the whole device, since the CPU
// must not touch managed memory while any kernel runs there.
func Host[T gpuarr.Numeric](a *gpuarr.Array[T]) (View[T], error) {
	return host("Host", a)
}

func host[T gpuarr.Numeric](call string, a *gpuarr.Array[T]) (View[T], error) {
	if a == nil {
		return View[T]{}, fmt.Errorf("unified.%s: nil array: %w", call, gpuarr.ErrArgument)
	}
	dev := a.Device()
	lay, err := gpuarr.PrepareHostAccess(a, !dev.ConcurrentManagedAccess())
	if err != nil {
		return View[T]{}, fmt.Errorf("unified.%s: %w", call, err)
	}
	if !isManaged(dev, lay) {
		return View[T]{}, fmt.Errorf("unified.%s: %v: its memory is device memory the CPU cannot address; "+
			"allocate it with unified.Empty/Zeros/FromSlice, or copy it to the host with ToSlice: %w", call, a, ErrNotManaged)
	}
	v := View[T]{shape: lay.Shape, strides: lay.Strides, n: a.Len(), keep: a}
	if v.n > 0 {
		v.base = dev.HostPointer(lay.Ptr)
		if v.base == nil {
			return View[T]{}, fmt.Errorf("unified.%s: %v: no host address: %w", call, a, ErrNotManaged)
		}
	}
	v.contig = true
	step := 1
	for i := len(v.shape) - 1; i >= 0; i-- {
		if v.shape[i] != 1 && v.strides[i] != step {
			v.contig = false
		}
		step *= v.shape[i]
	}
	if v.contig && len(v.shape) == 1 && v.n > 0 {
		v.vec = unsafe.Slice((*T)(v.base), v.n)
	}
	return v, nil
}

func isManaged(dev *device.Device, lay gpuarr.HostLayout) bool {
	r, ok := resources.Load(dev)
	return ok && lay.Resource != nil && r == any(lay.Resource)
}

// Len is the number of elements.
func (v View[T]) Len() int { return v.n }

// Contiguous reports whether the elements are packed row-major, so that
// Slice covers them.
func (v View[T]) Contiguous() bool { return v.contig }

// Slice is the elements as a []T (row-major), or nil when the view is
// strided (use All or At).
func (v View[T]) Slice() []T {
	if !v.contig || v.n == 0 {
		return nil
	}
	return unsafe.Slice((*T)(v.base), v.n)
}

// offset is the element offset of idx; it panics on a bad index like
// indexing a slice does.
func (v View[T]) offset(idx []int) int {
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
	return off
}

// At is the element at idx (one index per axis).
func (v View[T]) At(idx ...int) T {
	if len(idx) == 1 && v.vec != nil {
		return v.vec[idx[0]] // a plain slice read, bounds check included
	}
	if len(idx) == 1 && len(v.shape) == 1 {
		// The vector case, kept small enough to inline into loops.
		i := idx[0]
		if uint(i) >= uint(v.shape[0]) {
			indexPanic(i, v.shape[0])
		}
		return *(*T)(unsafe.Add(v.base, i*v.strides[0]*int(unsafe.Sizeof(*new(T)))))
	}
	return *(*T)(unsafe.Add(v.base, v.offset(idx)*int(unsafe.Sizeof(*new(T)))))
}

// indexPanic is At's out-of-range panic, out of line so that At's vector
// path stays small enough to inline into the caller's loop.
//
//go:noinline
func indexPanic(i, n int) {
	panic(fmt.Sprintf("unified: index %d out of range [0, %d)", i, n))
}

// Set writes the element at idx.
func (v View[T]) Set(x T, idx ...int) {
	*(*T)(unsafe.Add(v.base, v.offset(idx)*int(unsafe.Sizeof(x)))) = x
}

// All yields (row-major position, element) pairs in row-major order,
// following the view's strides.
func (v View[T]) All() iter.Seq2[int, T] {
	if v.contig {
		s := v.Slice()
		return func(yield func(int, T) bool) {
			for i, x := range s {
				if !yield(i, x) {
					return
				}
			}
		}
	}
	return func(yield func(int, T) bool) {
		v.strided(func(i, off int) bool {
			return yield(i, *(*T)(unsafe.Add(v.base, off*int(unsafe.Sizeof(*new(T))))))
		})
	}
}

// Values yields the elements in row-major order.
func (v View[T]) Values() iter.Seq[T] {
	if v.contig {
		s := v.Slice()
		return func(yield func(T) bool) {
			for _, x := range s {
				if !yield(x) {
					return
				}
			}
		}
	}
	return func(yield func(T) bool) {
		for _, x := range v.All() {
			if !yield(x) {
				return
			}
		}
	}
}

// strided calls f with each element's row-major position and its offset.
func (v View[T]) strided(f func(i, off int) bool) {
	r := len(v.shape)
	if v.n == 0 {
		return
	}
	if r == 1 {
		st := v.strides[0]
		for i := 0; i < v.n; i++ {
			if !f(i, i*st) {
				return
			}
		}
		return
	}
	idx := make([]int, r)
	off := 0
	last, lst := v.shape[r-1], v.strides[r-1]
	for i := 0; i < v.n; i += last {
		o := off
		for j := 0; j < last; j++ {
			if !f(i+j, o) {
				return
			}
			o += lst
		}
		// Carry into the outer axes.
		for ax := r - 2; ax >= 0; ax-- {
			idx[ax]++
			off += v.strides[ax]
			if idx[ax] < v.shape[ax] {
				break
			}
			off -= idx[ax] * v.strides[ax]
			idx[ax] = 0
		}
	}
}

// Slice is Host(a).Slice() for a contiguous array: its elements as a
// []T the CPU reads and writes in place. A strided view is an error.
func Slice[T gpuarr.Numeric](a *gpuarr.Array[T]) ([]T, error) {
	v, err := host("Slice", a)
	if err != nil {
		return nil, err
	}
	if !v.contig {
		return nil, fmt.Errorf("unified.Slice: %v is a strided view, not one []T; use unified.All or unified.Host: %w", a, gpuarr.ErrArgument)
	}
	if v.n == 0 {
		return []T{}, nil
	}
	return v.Slice(), nil
}

// At reads one element (one index per axis). It synchronizes like Host,
// which costs one lock when nothing is pending; loops should take a View
// once instead.
func At[T gpuarr.Numeric](a *gpuarr.Array[T], idx ...int) (T, error) {
	v, err := host("At", a)
	if err != nil {
		return 0, err
	}
	if len(idx) != len(v.shape) {
		return 0, fmt.Errorf("unified.At: %d indices for %v: %w", len(idx), a, gpuarr.ErrArgument)
	}
	for i, x := range idx {
		if x < 0 || x >= v.shape[i] {
			return 0, fmt.Errorf("unified.At: index %d out of range [0, %d) on axis %d of %v: %w", x, v.shape[i], i, a, gpuarr.ErrArgument)
		}
	}
	return v.At(idx...), nil
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
