package gpuarr

import (
	"strconv"
	"strings"
)

// Shape is an array's extent along each axis, leading axis first. Shape{}
// is a scalar (one element); a zero extent makes an empty array.
//
// Functions take a Shape value rather than ...int so that options can
// follow it: gpuarr.Zeros[float32](gpuarr.Shape{3, 4}, gpuarr.On(s)).
type Shape []int

// Len is the number of elements (1 for a scalar). It does not check for
// negative extents or overflow; constructors do.
func (sh Shape) Len() int {
	n := 1
	for _, d := range sh {
		n *= d
	}
	return n
}

// String is "[3 4]".
func (sh Shape) String() string {
	var b strings.Builder
	b.WriteByte('[')
	for i, d := range sh {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(strconv.Itoa(d))
	}
	b.WriteByte(']')
	return b.String()
}

// Equal reports whether two shapes have the same extents.
func (sh Shape) Equal(o Shape) bool {
	if len(sh) != len(o) {
		return false
	}
	for i := range sh {
		if sh[i] != o[i] {
			return false
		}
	}
	return true
}
