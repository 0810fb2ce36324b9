package gpuarr

import (
	"fmt"

	"github.com/gpuarr/gpuarr/internal/arg"
	"github.com/gpuarr/gpuarr/internal/layout"
)

// Reshape returns the elements of a with another shape of the same
// element count, in row-major order; one extent may be -1 and is then
// inferred. Like NumPy's reshape it returns a view when the new shape can
// step through a's memory (always for a contiguous array; for a strided
// view when the axes it merges or splits are contiguous among
// themselves): the view shares the buffer (writes through either are seen
// by both) and keeps it alive after a is released. Otherwise it returns a
// contiguous copy, which does not share memory with a: writes to one are
// not seen in the other. Shape mismatches are errors matching ErrShape.
func (a *Array[T]) Reshape(sh Shape) (*Array[T], error) {
	const call = "Reshape"
	if err := a.check(call); err != nil {
		return nil, err
	}
	sh, err := a.inferShape(call, sh)
	if err != nil {
		return nil, err
	}
	if a.c.Contiguous() {
		return a.view(call, 0, sh)
	}
	if st, ok := layout.ReshapeStrides(a.c.Shape(), a.c.Strides(), sh); ok {
		return a.stridedView(call, 0, sh, st)
	}
	c, err := Eval[T](a)
	if err != nil {
		return nil, fmt.Errorf("gpuarr.%s: copying %s: %w", call, a.c.Describe(), err)
	}
	defer c.Release()
	return c.view(call, 0, sh)
}

// inferShape checks sh against a's element count, inferring a -1 extent.
func (a *Array[T]) inferShape(call string, sh Shape) (Shape, error) {
	asked := sh
	sh = append(Shape{}, sh...)
	infer := -1
	for i, d := range sh {
		if d == -1 {
			if infer >= 0 {
				return nil, arg.Shapef(call, "shape %v for %s: only one extent may be -1 (inferred)", asked, a.c.Describe())
			}
			infer = i
			sh[i] = 1
		}
	}
	n, err := layout.Check(call, sh, uintptr(a.c.Elem().Size()))
	if err != nil {
		return nil, err
	}
	if infer >= 0 {
		if n == 0 || a.c.Len()%n != 0 {
			sh[infer] = -1
			return nil, arg.Shapef(call, "cannot infer the -1 in %v for the %d elements of %s", sh, a.c.Len(), a.c.Describe())
		}
		sh[infer] = a.c.Len() / n
		n = a.c.Len()
	}
	if n != a.c.Len() {
		return nil, arg.Shapef(call, "shape %v has %d elements, %s has %d", sh, n, a.c.Describe(), a.c.Len())
	}
	return sh, nil
}

// Ravel is a's elements as a vector, Reshape(Shape{-1}): a view when a's
// memory allows one (a contiguous array), else a contiguous copy that
// does not share memory with a.
func (a *Array[T]) Ravel() (*Array[T], error) {
	if err := a.check("Ravel"); err != nil {
		return nil, err
	}
	return a.Reshape(Shape{-1})
}

// view makes a new handle on a's buffer: off bytes in, of contiguous shape
// sh. It fails when a was released.
func (a *Array[T]) view(call string, off uint64, sh Shape) (*Array[T], error) {
	v := new(Array[T])
	if err := v.c.MakeView(call, &a.c, int64(off), sh, nil); err != nil {
		return nil, err
	}
	return v, nil
}

// Strided views share their parent's buffer but step through it with
// their own strides: Index, Transpose, Permute, Flip, Diagonal,
// BroadcastTo and the like. They work as expression and reduction
// operands (the kernel indexes them directly), as EvalInto's destination
// (except broadcast views, whose elements share memory), and as sources
// of Copy, Clone, Reshape and host reads (which compact them first);
// operations that need contiguous memory (Launch, CopyFromHost, Copy's
// destination) refuse them with an error that says to Clone.

// Transpose is the view with the axes reversed: a [m n] matrix as [n m].
func (a *Array[T]) Transpose() (*Array[T], error) {
	if err := a.check("Transpose"); err != nil {
		return nil, err
	}
	axes := make([]int, len(a.c.Shape()))
	for i := range axes {
		axes[i] = len(axes) - 1 - i
	}
	return a.Permute(axes...)
}

// Permute is the view whose axis i is a's axis axes[i] (a negative axis
// counts from the last, as in NumPy's transpose).
func (a *Array[T]) Permute(axes ...int) (*Array[T], error) {
	const call = "Permute"
	if err := a.check(call); err != nil {
		return nil, err
	}
	if len(axes) != len(a.c.Shape()) {
		return nil, arg.Shapef(call, "%d axes %v for %s: give a permutation of all %d axes", len(axes), axes, a.c.Describe(), len(a.c.Shape()))
	}
	seen := make([]bool, len(axes))
	st := a.stridesOrRowMajor()
	sh := make(Shape, len(axes))
	nst := make([]int, len(axes))
	for i, ax := range axes {
		if ax < 0 {
			ax += len(axes)
		}
		if ax < 0 || ax >= len(axes) || seen[ax] {
			return nil, arg.Shapef(call, "axes %v are not a permutation of 0..%d", axes, len(axes)-1)
		}
		seen[ax] = true
		sh[i], nst[i] = a.c.Shape()[ax], st[ax]
	}
	return a.stridedView(call, 0, sh, nst)
}

// Step is the view of every step-th index along axis, from start up to
// (not including) stop, like Go's a[start:stop] with a step; a negative
// step walks backwards from start down to (not including) stop, and stop
// -1 then means "through index 0". Bounds out of range are errors.
//
// Deprecated: Index with a Range (x.Index(gpuarr.Colon, gpuarr.S(start,
// stop).Step(step))) says the same with Python's rules, where a negative
// bound counts from the end: Step's stop -1 is Index's To-less
// From(start).Step(step).
func (a *Array[T]) Step(axis, start, stop, step int) (*Array[T], error) {
	const call = "Step"
	if err := a.check(call); err != nil {
		return nil, err
	}
	if axis < 0 || axis >= len(a.c.Shape()) {
		return nil, arg.Shapef(call, "axis %d out of range for %s", axis, a.c.Describe())
	}
	ext := a.c.Shape()[axis]
	var count int
	switch {
	case step == 0:
		return nil, arg.Shapef(call, "step 0 for axis %d of %s: the step must be positive (forwards) or negative (backwards)",
			axis, a.c.Describe())
	case step > 0 && 0 <= start && start <= stop && stop <= ext:
		count = (stop - start + step - 1) / step
	case step < 0 && -1 <= stop && stop <= start && start < ext:
		count = (start - stop + (-step) - 1) / (-step)
	case step > 0:
		return nil, arg.Shapef(call, "start %d, stop %d out of range for axis %d of %s: a positive step needs 0 ≤ start ≤ stop ≤ %d",
			start, stop, axis, a.c.Describe(), ext)
	default:
		return nil, arg.Shapef(call, "start %d, stop %d out of range for axis %d of %s: a negative step needs -1 ≤ stop ≤ start < %d",
			start, stop, axis, a.c.Describe(), ext)
	}
	st := a.stridesOrRowMajor()
	sh := append(Shape(nil), a.c.Shape()...)
	nst := append([]int(nil), st...)
	sh[axis], nst[axis] = count, st[axis]*step
	off := 0
	if count > 0 {
		off = start * st[axis]
	}
	return a.stridedView(call, off, sh, nst)
}

// stridesOrRowMajor is a's strides, row-major ones when contiguous.
func (a *Array[T]) stridesOrRowMajor() []int {
	if st := a.c.Strides(); st != nil {
		return st
	}
	return layout.RowMajorStrides(a.c.Shape())
}

// stridedView makes a view whose first element is elemOff elements after
// a's, with shape sh and strides st (kept as nil when they turn out
// row-major, so the view counts as contiguous). An empty view is
// contiguous, as in NumPy, and starts where a does (it has no element to
// point at).
func (a *Array[T]) stridedView(call string, elemOff int, sh Shape, st []int) (*Array[T], error) {
	if sh.Len() == 0 {
		elemOff = 0
	}
	v := new(Array[T])
	if err := v.c.MakeView(call, &a.c, int64(elemOff)*int64(a.c.Elem().Size()), sh, st); err != nil {
		return nil, err
	}
	return v, nil
}

// compact returns a contiguous copy of a strided view (via a fused copy
// kernel), or a itself when it is contiguous; release says whether the
// caller must release the result.
func (a *Array[T]) compact(opts ...Option) (c *Array[T], release bool, err error) {
	if a.c.Contiguous() {
		return a, false, nil
	}
	c, err = Eval[T](a, opts...)
	return c, err == nil, err
}

// normAxes resolves axes of an array of rank r (negative ones count from
// the last) into a bit set, refusing ones out of range or named twice.
func normAxes(call string, axes []int, r int, what string) (uint64, error) {
	var set uint64
	for _, ax := range axes {
		k := ax
		if k < 0 {
			k += r
		}
		if k < 0 || k >= r {
			return 0, arg.Shapef(call, "axis %d out of range for %s (%d axes)", ax, what, r)
		}
		if set&(1<<k) != 0 {
			return 0, fmt.Errorf("gpuarr.%s: axis %d named twice: %w", call, ax, ErrArgument)
		}
		set |= 1 << k
	}
	return set, nil
}

// Squeeze is the view without the axes of extent 1 that axes name, or
// without every axis of extent 1 when none are named (NumPy's squeeze).
// Naming an axis whose extent is not 1 is an error matching ErrShape.
func (a *Array[T]) Squeeze(axes ...int) (*Array[T], error) {
	const call = "Squeeze"
	if err := a.check(call); err != nil {
		return nil, err
	}
	sh, st := a.c.Shape(), a.stridesOrRowMajor()
	drop, err := normAxes(call, axes, len(sh), a.c.Describe())
	if err != nil {
		return nil, err
	}
	nsh, nst := Shape{}, []int{}
	for d, e := range sh {
		switch {
		case len(axes) == 0 && e == 1:
		case drop&(1<<d) != 0 && e != 1:
			return nil, arg.Shapef(call, "axis %d of %s has extent %d: only axes of extent 1 can be squeezed", d, a.c.Describe(), e)
		case drop&(1<<d) != 0:
		default:
			nsh, nst = append(nsh, e), append(nst, st[d])
		}
	}
	return a.stridedView(call, 0, nsh, nst)
}

// ExpandDims is the view with axes of extent 1 inserted so that they
// are the axes axes of the result (NumPy's expand_dims): for a [3 4]
// array, ExpandDims(0) is [1 3 4] and ExpandDims(-1) is [3 4 1]. Axes
// count in the result's rank; negative ones from its last axis.
func (a *Array[T]) ExpandDims(axes ...int) (*Array[T], error) {
	const call = "ExpandDims"
	if err := a.check(call); err != nil {
		return nil, err
	}
	sh, st := a.c.Shape(), a.stridesOrRowMajor()
	r := len(sh) + len(axes)
	ins, err := normAxes(call, axes, r, fmt.Sprintf("the result's %d axes", r))
	if err != nil {
		return nil, err
	}
	nsh, nst := make(Shape, 0, r), make([]int, 0, r)
	k := 0
	for d := range r {
		if ins&(1<<d) != 0 {
			nsh, nst = append(nsh, 1), append(nst, 0)
			continue
		}
		nsh, nst = append(nsh, sh[k]), append(nst, st[k])
		k++
	}
	return a.stridedView(call, 0, nsh, nst)
}

// Flip is the view with the order of elements reversed along the axes
// named, or along every axis when none are (NumPy's flip): a negative
// stride, no copy.
func (a *Array[T]) Flip(axes ...int) (*Array[T], error) {
	const call = "Flip"
	if err := a.check(call); err != nil {
		return nil, err
	}
	sh, st := a.c.Shape(), a.stridesOrRowMajor()
	set, err := normAxes(call, axes, len(sh), a.c.Describe())
	if err != nil {
		return nil, err
	}
	if len(axes) == 0 {
		set = ^uint64(0)
	}
	nst := append([]int(nil), st...)
	off := 0
	for d, e := range sh {
		if set&(1<<d) != 0 && e > 0 {
			off += (e - 1) * st[d]
			nst[d] = -st[d]
		}
	}
	return a.stridedView(call, off, append(Shape{}, sh...), nst)
}

// BroadcastTo is the view of a with shape sh, its axes stretched by
// NumPy's broadcasting rules (stride 0 along a stretched axis): every
// element along such an axis is the same memory, so it is a view to read
// (an operand), not to write: EvalInto refuses it. Shapes that do not
// broadcast to sh are an error matching ErrShape.
func (a *Array[T]) BroadcastTo(sh Shape) (*Array[T], error) {
	const call = "BroadcastTo"
	if err := a.check(call); err != nil {
		return nil, err
	}
	if _, err := layout.Check(call, sh, uintptr(a.c.Elem().Size())); err != nil {
		return nil, err
	}
	if b, err := layout.Broadcast(a.c.Shape(), sh); err != nil || !Shape(b).Equal(sh) {
		return nil, arg.Shapef(call, "%s does not broadcast to %v", a.c.Describe(), sh)
	}
	st := layout.BroadcastStrides(a.c.Shape(), a.stridesOrRowMajor(), sh)
	return a.stridedView(call, 0, append(Shape{}, sh...), st)
}

// Diagonal is the view of the diagonal with the given offset of the
// matrices over axes axis1 and axis2 (NumPy's diagonal): those axes go,
// and a last axis holds the diagonal's elements a[..., i, i+offset] (a
// positive offset is above the main diagonal, a negative one below). A
// view, not a copy; NumPy's is read-only, this one writes through.
// axis1 and axis2 may be negative; equal or out of range they are an
// error matching ErrShape.
func (a *Array[T]) Diagonal(offset, axis1, axis2 int) (*Array[T], error) {
	const call = "Diagonal"
	if err := a.check(call); err != nil {
		return nil, err
	}
	sh, st := a.c.Shape(), a.stridesOrRowMajor()
	if len(sh) < 2 {
		return nil, arg.Shapef(call, "%s has fewer than 2 axes: a diagonal needs two", a.c.Describe())
	}
	set, err := normAxes(call, []int{axis1, axis2}, len(sh), a.c.Describe())
	if err != nil {
		return nil, arg.Shapef(call, "axes %d and %d of %s: %v", axis1, axis2, a.c.Describe(), err)
	}
	a1, a2 := axis1, axis2
	if a1 < 0 {
		a1 += len(sh)
	}
	if a2 < 0 {
		a2 += len(sh)
	}
	n1, n2 := sh[a1], sh[a2]
	var n, off int
	if offset >= 0 {
		n = max(0, min(n1, n2-offset))
		off = offset * st[a2]
	} else {
		n = max(0, min(n1+offset, n2))
		off = -offset * st[a1]
	}
	nsh, nst := Shape{}, []int{}
	for d := range sh {
		if set&(1<<d) == 0 {
			nsh, nst = append(nsh, sh[d]), append(nst, st[d])
		}
	}
	nsh, nst = append(nsh, n), append(nst, st[a1]+st[a2])
	if n == 0 {
		off = 0
	}
	return a.stridedView(call, off, nsh, nst)
}
