package gpuarr

import (
	"github.com/gpuarr/gpuarr/internal/arg"
	"github.com/gpuarr/gpuarr/internal/layout"
)

// Reshape returns a view of the same elements with another shape of the
// same element count; one extent may be -1 and is then inferred. The view
// shares the buffer (writes through either are seen by both) and keeps it
// alive after the original is released.
func (a *Array[T]) Reshape(sh Shape) (*Array[T], error) {
	const call = "Reshape"
	if err := a.check(call); err != nil {
		return nil, err
	}
	if !a.c.Contiguous() {
		return nil, stridedError(call, &a.c)
	}
	asked := sh
	sh = append(Shape(nil), sh...)
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
	return a.view(call, 0, sh)
}

// Slice returns a view of rows [i, j) along the leading axis: for a [5 3]
// array, Slice(1, 3) is the [2 3] array of rows 1 and 2. It shares the
// buffer like Reshape.
func (a *Array[T]) Slice(i, j int) (*Array[T], error) {
	const call = "Slice"
	if err := a.check(call); err != nil {
		return nil, err
	}
	if len(a.c.Shape()) == 0 {
		return nil, arg.Shapef(call, "%s is a scalar: it has no leading axis", a.c.Describe())
	}
	rows := a.c.Shape()[0]
	if i < 0 || j < i || j > rows {
		return nil, arg.Shapef(call, "rows [%d, %d) out of range for %s (leading extent %d)", i, j, a.c.Describe(), rows)
	}
	sh := append(Shape{j - i}, a.c.Shape()[1:]...)
	if !a.c.Contiguous() {
		return a.stridedView(call, i*a.c.Strides()[0], sh, a.c.Strides())
	}
	row := 1
	for _, d := range a.c.Shape()[1:] {
		row *= d
	}
	return a.view(call, uint64(i*row)*uint64(a.c.Elem().Size()), sh)
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
// their own strides: Transpose, Permute and Step. They work as
// expression and reduction operands (the kernel indexes them directly)
// and as sources of Copy, Clone and host reads (which compact them
// first); operations that need contiguous memory (Launch, Reshape,
// EvalInto's destination, CopyFromHost) refuse them with an error that
// says to Clone.

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

// Permute is the view whose axis i is a's axis axes[i].
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
// -1 then means "through index 0".
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
