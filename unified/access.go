package unified

import (
	"errors"
	"fmt"
	"iter"
	"runtime"
	"unsafe"

	"github.com/gpuarr/gpuarr/device"
	"github.com/gpuarr/gpuarr/gpuarr"
	"github.com/gpuarr/gpuarr/internal/arrayhook"
)

// ErrNotManaged: a CPU view was asked of an array whose memory the CPU
// cannot address (an array in device memory).
var ErrNotManaged = errors.New("not a unified array")

// notManagedError is call's error for the device-memory array described:
// it says how to get one the CPU addresses.
func notManagedError(call, describe string) error {
	return fmt.Errorf("unified.%s: %s: its memory is device memory, which the CPU cannot address; "+
		"allocate it in unified memory (unified.Empty/Zeros/FromSlice, or make unified memory the default for every array: "+
		"%s=unified, or gpuarr.SetDefaultMemory(dev, gpuarr.UnifiedMemory); arrays a graph capture allocates stay device memory), "+
		"or copy it to the host with ToSlice: %w",
		call, describe, gpuarr.EnvDefaultMemory, ErrNotManaged)
}

// View is direct CPU access to a unified array's elements. Making one
// (Host) synchronizes what must be synchronized; its methods are then plain
// memory accesses: no driver call, no lock, no atomic read-modify-write.
// A View reflects the array until the next GPU operation on it is issued:
// make a new one after GPU work (it costs one lock when nothing is
// pending). Writes through it are seen by the next GPU operation without a
// manual sync.
//
// Elements are addressed two ways. At and Set take the row-major position
// (0 to Len()-1, the position All yields), on any view, strided or not;
// on a contiguous view they compile to a slice access, so loops over them
// run at slice speed. AtIndex and SetIndex take one index per axis. Borrow
// lends the elements as a []T for the length of a call.
//
// Lifetime. A View keeps its array reachable for as long as it is used:
// every element access (At, Set, AtIndex, SetIndex, each step of All and
// Values, and the whole of a Borrow call) uses the array, so the GC cannot
// free the memory under it, however the program drops its own references.
// Once the array is released (Release on the handle the View was made
// of), every element access panics with an error matching
// gpuarr.ErrReleased, and Borrow returns one, before touching the memory:
// a View never reads or writes memory its array gave back. The check is
// one plain load per access (the array's arrayhook.HostLease: no lock, no
// atomic operation). A Release on one goroutine racing an access on
// another is a data race in the program, as closing a file that a read is
// still using is (the race detector reports it): the access may have
// passed its check just before. Order the Release after the accesses; the
// host backend's checking mode (GPUARR_HOST_CHECK=1) makes an access that
// lost such a race fault at once.
//
// UnsafeSlice hands out the elements as a raw []T, which neither keeps the
// array alive nor sees its Release: see its documentation. The zero View
// has no elements; its element accesses panic.
type View[T gpuarr.Element] struct {
	// vec is the elements as one slice when the view is contiguous (nil
	// otherwise): At, Set and the iterators' fast path. The View is kept
	// to four words so that the compiler keeps it in registers: a loop
	// calling At copies nothing per element.
	vec []T
	l   *viewLayout
}

// viewLayout is the rest of a View: the array's lease, and what strided
// access, per-axis indices and the panics need.
type viewLayout struct {
	// ls is the array's lease (arrayhook.HostLease): its Run is len(vec)
	// while the array is unreleased (-1 for a strided view), 0 once it is
	// released. Every element access compares its index with it first:
	// the one check sends a released array's access to the panic and,
	// being a load through l and ls into the array, keeps the array
	// reachable for as long as the View is used (a View whose vec alone
	// were live would let the array's cleanup free the memory under a
	// loop: each access's check keeps l live until the next one). At and
	// Set stay small enough to inline with it, which leaves no room for a
	// runtime.KeepAlive after the element: the last access of a View
	// reads its element right after its check, with no call between them
	// (the GC scans a goroutine stopped there conservatively, registers
	// included). The other accesses keep l alive explicitly.
	ls      *arrayhook.HostLease
	a       array // the array the View was made of
	walk    walkLayout
	shape   []int
	strides []int
	n       int
	elem    int // element size in bytes
}

// array is what a View's slow paths ask of its array.
type array interface {
	Released() bool
	String() string
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
// reads) of a that may be pending, and only those (gpuarr's dirty bit), so
// a second pass over an array no GPU work touched costs one lock. On a
// device without concurrent managed access it synchronizes the whole
// device, since the CPU must not touch managed memory while any kernel
// runs there. The first access after a GPU write to an array of 64 KiB or
// more prefetches it to the CPU on the writer's stream, so its pages
// arrive in bulk (CPUPrefetches counts these; a failed prefetch is
// ignored). The package functions Borrow, AtIndex, All and Values make a
// View per call: a loop makes one View and uses it.
func Host[T gpuarr.Element](a *gpuarr.Array[T]) (View[T], error) {
	return host("Host", a)
}

func host[T gpuarr.Element](call string, a *gpuarr.Array[T]) (View[T], error) {
	if err := a.Err(); err != nil {
		return View[T]{}, fmt.Errorf("unified.%s: %w", call, err)
	}
	dev := a.Device()
	how := arrayhook.HostAccess{WholeDevice: !dev.ConcurrentManagedAccess()}
	if !how.WholeDevice {
		how.Migrate = func(s *device.Stream, p device.Ptr, n uint64) (bool, error) {
			return prefetchForCPU(dev, s, p, n), nil
		}
	}
	lay, err := arrayhook.PrepareHostAccess(a, how)
	if err != nil {
		return View[T]{}, fmt.Errorf("unified.%s: %w", call, err)
	}
	if !isManaged(dev, lay) {
		return View[T]{}, notManagedError(call, a.Describe())
	}
	l := &viewLayout{a: a, ls: lay.Lease, shape: lay.Shape, strides: lay.Strides, n: a.Len()}
	v := View[T]{l: l}
	if l.n == 0 {
		return v, nil
	}
	base := dev.HostPointer(lay.Ptr)
	if base == nil {
		return View[T]{}, fmt.Errorf("unified.%s: %v: no host address: %w", call, a.Describe(), ErrNotManaged)
	}
	l.elem = int(unsafe.Sizeof(*new(T)))
	l.walk = newWalkLayout(base, l.shape, l.strides, l.elem)
	if l.ls.Run() == l.n { // one row-major run: the fast path
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

func isManaged(dev *device.Device, lay arrayhook.HostLayout) bool {
	return isManagedResource(dev, lay.Resource)
}

// Len is the number of elements.
func (v View[T]) Len() int {
	if v.l == nil {
		return 0
	}
	return v.l.n
}

// Contiguous reports whether the elements are packed row-major, so that
// Borrow and UnsafeSlice cover them.
func (v View[T]) Contiguous() bool { return v.vec != nil || v.Len() == 0 }

// At is the element at row-major position i (0 ≤ i < Len()), on any view:
// the element All yields with position i. It panics when i is out of
// range, as indexing a slice does, and with an error matching
// gpuarr.ErrReleased when the array was released.
func (v View[T]) At(i int) T {
	if i < v.l.ls.Run() {
		return v.vec[i]
	}
	return *(*T)(v.l.at(i))
}

// Set writes x at row-major position i (see At for the panics).
func (v View[T]) Set(i int, x T) {
	if i < v.l.ls.Run() {
		v.vec[i] = x
	} else {
		*(*T)(v.l.set(i)) = x
	}
}

// at and set are the addresses of the element at row-major position i
// for At and Set off the fast path (a strided view), and their panics:
// the array was released, i is out of range, the View is the zero View.
// The caller holds the View, whose lease keeps the array reachable. They
// stay out of line, without a name argument, so that At and Set inline.
//
//go:noinline
func (l *viewLayout) at(i int) unsafe.Pointer { return l.ptr("At", i) }

//go:noinline
func (l *viewLayout) set(i int) unsafe.Pointer { return l.ptr("Set", i) }

func (l *viewLayout) ptr(call string, i int) unsafe.Pointer {
	l.checkLive(call)
	if l == nil {
		l = zeroLayout
	}
	if uint(i) >= uint(l.n) {
		panic(fmt.Sprintf("unified: position %d out of range [0, %d) for a %v view", i, l.n, l.shape))
	}
	off := 0
	for ax := len(l.walk.dims) - 1; ax >= 0; ax-- {
		d := l.walk.dims[ax]
		off += (i % d) * l.walk.steps[ax]
		i /= d
	}
	return unsafe.Add(l.walk.base, off)
}

// zeroLayout stands in for the zero View's layout in the panics.
var zeroLayout = &viewLayout{}

// checkLive panics with an error matching gpuarr.ErrReleased when the
// View's array was released.
func (l *viewLayout) checkLive(call string) {
	if l != nil && l.a != nil && l.a.Released() {
		panic(releasedError("View."+call, l.a))
	}
}

// releasedError is the error of an access to a released array: a View's
// panic, Borrow's error.
func releasedError(call string, a fmt.Stringer) error {
	return fmt.Errorf("unified.%s: %v: its memory was given back: %w", call, a, gpuarr.ErrReleased)
}

// AtIndex is the element at idx, one index per axis. It panics on a wrong
// number of indices or an index out of range, and with an error matching
// gpuarr.ErrReleased when the array was released.
func (v View[T]) AtIndex(idx ...int) T {
	x := *(*T)(v.l.ptrIndex("AtIndex", idx))
	runtime.KeepAlive(v.l)
	return x
}

// SetIndex writes x at idx, one index per axis (see AtIndex).
func (v View[T]) SetIndex(x T, idx ...int) {
	*(*T)(v.l.ptrIndex("SetIndex", idx)) = x
	runtime.KeepAlive(v.l)
}

func (l *viewLayout) ptrIndex(call string, idx []int) unsafe.Pointer {
	l.checkLive(call)
	if l == nil {
		l = zeroLayout
	}
	if len(idx) != len(l.shape) {
		panic(fmt.Sprintf("unified: %d indices for a rank-%d array", len(idx), len(l.shape)))
	}
	off := 0
	for i, x := range idx {
		if uint(x) >= uint(l.shape[i]) {
			panic(fmt.Sprintf("unified: index %d out of range [0, %d) on axis %d", x, l.shape[i], i))
		}
		off += x * l.strides[i]
	}
	return unsafe.Add(l.walk.base, off*l.elem)
}

// All yields (row-major position, element) pairs in row-major order,
// following the view's strides. Like At, each step panics with an error
// matching gpuarr.ErrReleased once the array is released (by the loop
// body, say), before it reads the element.
//
// The iterator is small enough for the compiler to inline a range loop
// over it, body included: on a contiguous view it runs as a loop over a
// slice.
func (v View[T]) All() iter.Seq2[int, T] {
	return func(yield func(int, T) bool) {
		if v.vec != nil {
			for i := range len(v.vec) {
				if i >= v.l.ls.Run() {
					v.l.checkLive("All")
				}
				if !yield(i, v.vec[i]) {
					break
				}
			}
			runtime.KeepAlive(v.l)
			return
		}
		if v.l == nil {
			return
		}
		i := 0
		for r := v.l.walk.rows(); r.next(); {
			for j := range r.n {
				if v.l.ls.Run() == 0 {
					v.l.checkLive("All")
				}
				if !yield(i, *(*T)(unsafe.Add(r.p, j*r.step))) {
					runtime.KeepAlive(v.l)
					return
				}
				i++
			}
		}
		runtime.KeepAlive(v.l)
	}
}

// Values yields the elements in row-major order, following the view's
// strides; it panics like All. A range loop over it inlines completely.
func (v View[T]) Values() iter.Seq[T] {
	return func(yield func(T) bool) {
		if v.vec != nil {
			for i := range len(v.vec) {
				if i >= v.l.ls.Run() {
					v.l.checkLive("Values")
				}
				if !yield(v.vec[i]) {
					break
				}
			}
			runtime.KeepAlive(v.l)
			return
		}
		if v.l == nil {
			return
		}
		for r := v.l.walk.rows(); r.next(); {
			for j := range r.n {
				if v.l.ls.Run() == 0 {
					v.l.checkLive("Values")
				}
				if !yield(*(*T)(unsafe.Add(r.p, j*r.step))) {
					runtime.KeepAlive(v.l)
					return
				}
			}
		}
		runtime.KeepAlive(v.l)
	}
}

// Borrow calls f with the elements as one []T (row-major) and returns
// f's error: for code that wants a slice (copy, sort, a library function
// taking []T). The slice is lent for the call only: Borrow keeps the array
// reachable until f returns, and f must neither keep the slice (or a part
// of it) past its return nor release the array. An empty view lends an
// empty slice.
//
// Borrow does not call f, and returns an error, when the array was
// released (matching gpuarr.ErrReleased), when the view is strided
// (matching gpuarr.ErrArgument: use At, All or Values, or copy it to a
// contiguous array first) and when f is nil.
func (v View[T]) Borrow(f func(s []T) error) error { return v.borrow("View.Borrow", f) }

func (v View[T]) borrow(call string, f func(s []T) error) error {
	switch {
	case f == nil:
		return fmt.Errorf("unified.%s: nil function: %w", call, gpuarr.ErrArgument)
	case v.l == nil:
		return fmt.Errorf("unified.%s: the zero View: make one with unified.Host: %w", call, gpuarr.ErrArgument)
	case v.l.a.Released():
		return releasedError(call, v.l.a)
	case !v.Contiguous():
		return fmt.Errorf("unified.%s: %v is a strided view, not one []T; use At, All or Values, or copy it to a contiguous array: %w",
			call, v.l.a, gpuarr.ErrArgument)
	}
	s := v.vec
	if s == nil {
		s = []T{}
	}
	err := f(s)
	runtime.KeepAlive(v.l)
	return err
}

// UnsafeSlice is the elements as a raw []T (row-major), or nil when the
// view is strided or empty. Prefer Borrow, At/Set or the iterators: the
// slice is a window on memory outside the Go heap that Go cannot tie to
// the array. It does not keep the array alive, and it does not see a
// Release. The caller must keep the array reachable (a use of it after
// the slice's last use, or runtime.KeepAlive(a)) and unreleased for as
// long as it uses the slice; a use after the array was released or
// collected reads or writes freed memory, possibly another array's by
// then, or crashes. The host backend's checking mode (GPUARR_HOST_CHECK=1)
// makes such a use fault at once. It panics with an error matching
// gpuarr.ErrReleased when the array is already released.
func (v View[T]) UnsafeSlice() []T {
	v.l.checkLive("UnsafeSlice")
	return v.vec
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

// Borrow is Host(a).Borrow(f): it synchronizes like Host, then calls f
// with a's elements as one []T that the CPU reads and writes in place, lent
// for the call only (f must not keep it, nor release a), and returns f's
// error. A strided view is an error matching gpuarr.ErrArgument, a
// released array one matching gpuarr.ErrReleased; f is then not called.
//
//	err := unified.Borrow(a, func(s []float32) error { slices.Sort(s); return nil })
func Borrow[T gpuarr.Element](a *gpuarr.Array[T], f func(s []T) error) error {
	v, err := host("Borrow", a)
	if err != nil {
		return err
	}
	return v.borrow("Borrow", f)
}

// UnsafeSlice is Host(a).UnsafeSlice() for a contiguous array: its
// elements as a raw []T the CPU reads and writes in place. A strided view
// is an error. The slice does not keep a alive: the caller must keep a
// reachable and unreleased while it uses the slice (see
// View.UnsafeSlice). Prefer Borrow, or a View's At, Set and iterators.
func UnsafeSlice[T gpuarr.Element](a *gpuarr.Array[T]) ([]T, error) {
	v, err := host("UnsafeSlice", a)
	if err != nil {
		return nil, err
	}
	if !v.Contiguous() {
		return nil, fmt.Errorf("unified.UnsafeSlice: %v is a strided view, not one []T; use unified.Borrow, unified.All or unified.Host: %w", a.Describe(), gpuarr.ErrArgument)
	}
	if v.l.n == 0 {
		return []T{}, nil
	}
	return v.vec, nil
}

// AtIndex reads one element (one index per axis). It synchronizes like
// Host, which costs one lock when nothing is pending; loops should take a
// View once instead.
func AtIndex[T gpuarr.Element](a *gpuarr.Array[T], idx ...int) (T, error) {
	var zero T
	v, err := host("AtIndex", a)
	if err != nil {
		return zero, err
	}
	if len(idx) != len(v.l.shape) {
		return zero, fmt.Errorf("unified.AtIndex: %d indices for %v: %w", len(idx), a.Describe(), gpuarr.ErrArgument)
	}
	for i, x := range idx {
		if x < 0 || x >= v.l.shape[i] {
			return zero, fmt.Errorf("unified.AtIndex: index %d out of range [0, %d) on axis %d of %v: %w", x, v.l.shape[i], i, a.Describe(), gpuarr.ErrArgument)
		}
	}
	return v.AtIndex(idx...), nil
}

// All is Host(a).All(): it synchronizes once, here; the pairs it yields
// are plain memory reads.
func All[T gpuarr.Element](a *gpuarr.Array[T]) (iter.Seq2[int, T], error) {
	v, err := host("All", a)
	if err != nil {
		return nil, err
	}
	return v.All(), nil
}

// Values is Host(a).Values().
func Values[T gpuarr.Element](a *gpuarr.Array[T]) (iter.Seq[T], error) {
	v, err := host("Values", a)
	if err != nil {
		return nil, err
	}
	return v.Values(), nil
}
