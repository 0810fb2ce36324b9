package hosteval

import (
	"fmt"
	"math"
	"math/bits"
)

// stridedOffsets writes the element offsets of elements lo .. lo+len(off)-1
// of a strided operand: element i is decomposed row-major over dims (the
// last dimension fastest) and dotted with strides; origin is added to
// every offset. idx is scratch of len(dims). Walking the last dimension
// with carries costs one addition per element.
func stridedOffsets(off []int64, lo uint64, dims, strides []int64, origin int64, idx []int64) {
	r := len(dims)
	o := origin
	rem := lo
	for d := r - 1; d > 0; d-- {
		dd := uint64(dims[d])
		idx[d] = int64(rem % dd)
		rem /= dd
		o += idx[d] * strides[d]
	}
	idx[0] = int64(rem)
	o += idx[0] * strides[0]

	last := r - 1
	dl, sl := dims[last], strides[last]
	for j := 0; j < len(off); {
		run := min(int64(len(off)-j), dl-idx[last])
		for t := int64(0); t < run; t++ {
			off[j] = o
			o += sl
			j++
		}
		if idx[last] += run; idx[last] < dl {
			continue
		}
		// Carry into the outer dimensions; the outermost never wraps.
		idx[last] = 0
		o -= dl * sl
		for d := last - 1; d >= 0; d-- {
			idx[d]++
			o += strides[d]
			if idx[d] < dims[d] || d == 0 {
				break
			}
			idx[d] = 0
			o -= dims[d] * strides[d]
		}
	}
}

// span is the range of element offsets [lo, hi] a strided operand reaches
// over dims (all dims > 0), with overflow checked.
func span(dims, strides []int64) (lo, hi int64, err error) {
	for d := range dims {
		ext := dims[d] - 1
		s := strides[d]
		if ext == 0 || s == 0 {
			continue
		}
		abs := uint64(s)
		if s < 0 {
			abs = -abs
		}
		h, m := bits.Mul64(uint64(ext), abs)
		if h != 0 || m > math.MaxInt64 {
			return 0, 0, fmt.Errorf("dimension %d: %d × stride %d overflows", d, dims[d], s)
		}
		if s > 0 {
			if hi > math.MaxInt64-int64(m) {
				return 0, 0, fmt.Errorf("the offsets overflow int64")
			}
			hi += int64(m)
		} else {
			if lo < math.MinInt64+int64(m) {
				return 0, 0, fmt.Errorf("the offsets overflow int64")
			}
			lo -= int64(m)
		}
	}
	if uint64(hi)-uint64(lo) >= math.MaxInt64 { // hi ≥ 0 ≥ lo: the difference is exact
		return 0, 0, fmt.Errorf("the offsets span more than 2⁶³ elements")
	}
	return lo, hi, nil
}
