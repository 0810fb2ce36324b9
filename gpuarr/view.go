package gpuarr

// Reshape returns a view of the same elements with another shape of the
// same element count; one extent may be -1 and is then inferred. The view
// shares the buffer (writes through either are seen by both) and keeps it
// alive after the original is released.
func (a *Array[T]) Reshape(sh Shape) (*Array[T], error) {
	const call = "Reshape"
	if err := a.check(call); err != nil {
		return nil, err
	}
	if !a.c.contiguous() {
		return nil, stridedError(call, &a.c)
	}
	asked := sh
	sh = append(Shape(nil), sh...)
	infer := -1
	for i, d := range sh {
		if d == -1 {
			if infer >= 0 {
				return nil, shapeError(call, "shape %v for %s: only one extent may be -1 (inferred)", asked, a.c.describe())
			}
			infer = i
			sh[i] = 1
		}
	}
	n, err := checkShape(call, sh, uintptr(a.c.typ.Size()))
	if err != nil {
		return nil, err
	}
	if infer >= 0 {
		if n == 0 || a.c.n%n != 0 {
			sh[infer] = -1
			return nil, shapeError(call, "cannot infer the -1 in %v for the %d elements of %s", sh, a.c.n, a.c.describe())
		}
		sh[infer] = a.c.n / n
		n = a.c.n
	}
	if n != a.c.n {
		return nil, shapeError(call, "shape %v has %d elements, %s has %d", sh, n, a.c.describe(), a.c.n)
	}
	return a.view(call, 0, n, sh)
}

// Slice returns a view of rows [i, j) along the leading axis: for a [5 3]
// array, Slice(1, 3) is the [2 3] array of rows 1 and 2. It shares the
// buffer like Reshape.
func (a *Array[T]) Slice(i, j int) (*Array[T], error) {
	const call = "Slice"
	if err := a.check(call); err != nil {
		return nil, err
	}
	if len(a.c.shape) == 0 {
		return nil, shapeError(call, "%s is a scalar: it has no leading axis", a.c.describe())
	}
	rows := a.c.shape[0]
	if i < 0 || j < i || j > rows {
		return nil, shapeError(call, "rows [%d, %d) out of range for %s (leading extent %d)", i, j, a.c.describe(), rows)
	}
	sh := append(Shape{j - i}, a.c.shape[1:]...)
	if !a.c.contiguous() {
		return a.stridedView(call, i*a.c.strides()[0], sh, a.c.strides())
	}
	row := 1
	for _, d := range a.c.shape[1:] {
		row *= d
	}
	return a.view(call, uint64(i*row)*uint64(uintptr(a.c.typ.Size())), (j-i)*row, sh)
}
