package gpuarr

import (
	"fmt"
	"math"
	"math/bits"
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

// maxRank bounds the number of axes (a sanity limit, like NumPy's 64).
const maxRank = 64

// checkShape validates sh (without letting it escape: callers pass
// literals, which then stay on their stack) for elements of esize bytes and returns the
// element count: no negative extent, and neither the count nor the bytes
// overflow (bytes must fit an int, so a host slice can hold them).
func checkShape(call string, sh Shape, esize uintptr) (int, error) {
	if len(sh) > maxRank {
		return 0, shapeError(call, "shape %s has %d axes, at most %d", sh.String(), len(sh), maxRank)
	}
	// Overflow checks by full-width multiplication rather than an integer
	// division per axis: every constructor passes here.
	n := uint64(1)
	for i, d := range sh {
		if d < 0 {
			return 0, shapeError(call, "shape %s has negative extent %d on axis %d", sh.String(), d, i)
		}
		hi, lo := bits.Mul64(n, uint64(d))
		if hi != 0 || lo > math.MaxInt {
			return 0, shapeError(call, "shape %s overflows: more than %d elements", sh.String(), math.MaxInt)
		}
		n = lo
	}
	if hi, lo := bits.Mul64(n, uint64(esize)); hi != 0 || lo > math.MaxInt {
		return 0, shapeError(call, "shape %s overflows: %d elements of %d bytes exceed %d bytes", sh.String(), n, esize, math.MaxInt)
	}
	return int(n), nil
}

func shapeError(call, format string, args ...any) error {
	return fmt.Errorf("gpuarr.%s: %s: %w", call, fmt.Sprintf(format, args...), ErrShape)
}
