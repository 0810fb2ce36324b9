package gpuarr

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
	axes := make([]int, len(a.c.shape))
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
	if len(axes) != len(a.c.shape) {
		return nil, shapeError(call, "%d axes %v for %s: give a permutation of all %d axes", len(axes), axes, a.c.describe(), len(a.c.shape))
	}
	seen := make([]bool, len(axes))
	st := a.c.stridesOrRowMajor()
	sh := make(Shape, len(axes))
	nst := make([]int, len(axes))
	for i, ax := range axes {
		if ax < 0 || ax >= len(axes) || seen[ax] {
			return nil, shapeError(call, "axes %v are not a permutation of 0..%d", axes, len(axes)-1)
		}
		seen[ax] = true
		sh[i], nst[i] = a.c.shape[ax], st[ax]
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
	if axis < 0 || axis >= len(a.c.shape) {
		return nil, shapeError(call, "axis %d out of range for %s", axis, a.c.describe())
	}
	ext := a.c.shape[axis]
	var count int
	switch {
	case step == 0:
		return nil, shapeError(call, "step 0 for axis %d of %s: the step must be positive (forwards) or negative (backwards)",
			axis, a.c.describe())
	case step > 0 && 0 <= start && start <= stop && stop <= ext:
		count = (stop - start + step - 1) / step
	case step < 0 && -1 <= stop && stop <= start && start < ext:
		count = (start - stop + (-step) - 1) / (-step)
	case step > 0:
		return nil, shapeError(call, "start %d, stop %d out of range for axis %d of %s: a positive step needs 0 ≤ start ≤ stop ≤ %d",
			start, stop, axis, a.c.describe(), ext)
	default:
		return nil, shapeError(call, "start %d, stop %d out of range for axis %d of %s: a negative step needs -1 ≤ stop ≤ start < %d",
			start, stop, axis, a.c.describe(), ext)
	}
	st := a.c.stridesOrRowMajor()
	sh := append(Shape(nil), a.c.shape...)
	nst := append([]int(nil), st...)
	sh[axis], nst[axis] = count, st[axis]*step
	off := 0
	if count > 0 {
		off = start * st[axis]
	}
	return a.stridedView(call, off, sh, nst)
}

func (c *core) stridesOrRowMajor() []int {
	if c.strides() != nil {
		return c.strides()
	}
	return rowMajorStrides(c.shape)
}

// stridedView makes a view whose first element is elemOff elements after
// a's, with shape sh and strides st (nil strides when they turn out
// row-major, so the view counts as contiguous). An empty view is
// contiguous, as in NumPy, and starts where a does (it has no element to
// point at).
func (a *Array[T]) stridedView(call string, elemOff int, sh Shape, st []int) (*Array[T], error) {
	if sh.Len() == 0 {
		elemOff = 0
	}
	if !a.c.acquire() {
		return nil, a.c.releasedError(call)
	}
	v := &Array[T]{}
	v.c.bind(a.c.buf, uint64(int64(a.c.off)+int64(elemOff)*int64(uintptr(a.c.typ.Size()))))
	v.c.typ = a.c.typ
	v.c.n = sh.Len()
	v.c.setShape(sh)
	if !isRowMajor(sh, st) {
		v.c.layout = &st
	}
	track(v)
	return v, nil
}

// isRowMajor reports whether strides st walk shape sh contiguously
// (extent-1 axes may have any stride; an empty shape has no element out
// of place, whatever its strides).
func isRowMajor(sh Shape, st []int) bool {
	if sh.Len() == 0 {
		return true
	}
	step := 1
	for i := len(sh) - 1; i >= 0; i-- {
		if sh[i] != 1 && st[i] != step {
			return false
		}
		step *= sh[i]
	}
	return true
}

// compact returns a contiguous copy of a strided view (via a fused copy
// kernel), or a itself when it is contiguous; release says whether the
// caller must release the result.
func (a *Array[T]) compact(opts ...Option) (c *Array[T], release bool, err error) {
	if a.c.contiguous() {
		return a, false, nil
	}
	c, err = Eval[T](a, opts...)
	return c, err == nil, err
}
