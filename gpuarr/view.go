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
