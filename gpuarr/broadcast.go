package gpuarr

import "fmt"

// broadcastShapes is NumPy's rule: align the shapes at their last axis;
// along each axis the extents must be equal or one of them 1 (which
// stretches); a missing leading axis counts as 1.
func broadcastShapes(a, b Shape) (Shape, error) {
	if a.Equal(b) {
		return a, nil
	}
	r := max(len(a), len(b))
	out := make(Shape, r)
	for i := 1; i <= r; i++ {
		da, db := 1, 1
		if i <= len(a) {
			da = a[len(a)-i]
		}
		if i <= len(b) {
			db = b[len(b)-i]
		}
		switch {
		case da == db || db == 1:
			out[r-i] = da
		case da == 1:
			out[r-i] = db
		default:
			return nil, fmt.Errorf("shapes %v and %v cannot be broadcast together: axis %d has extents %d and %d: %w",
				a, b, r-i, da, db, ErrShape)
		}
	}
	return out, nil
}

// broadcastStrides returns the element strides that read an array of
// shape sh with strides st as if it had shape to (sh broadcasts to to):
// stretched axes step 0.
func broadcastStrides(sh Shape, st []int, to Shape) []int {
	out := make([]int, len(to))
	off := len(to) - len(sh)
	for i := range sh {
		if sh[i] != 1 || to[off+i] == 1 {
			out[off+i] = st[i]
		}
	}
	return out
}

// rowMajorStrides are the strides of a contiguous array of shape sh.
func rowMajorStrides(sh Shape) []int {
	st := make([]int, len(sh))
	step := 1
	for i := len(sh) - 1; i >= 0; i-- {
		st[i] = step
		step *= sh[i]
	}
	return st
}
