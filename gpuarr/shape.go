package gpuarr

import (
	"slices"

	"github.com/gpuarr/gpuarr/internal/layout"
)

// Shape is an array's extent along each axis, leading axis first. Shape{}
// is a scalar (one element); a zero extent makes an empty array.
//
// Functions take a Shape value rather than ...int so that options can
// follow it: gpuarr.Zeros[float32](gpuarr.Shape{3, 4}, gpuarr.On(s)).
type Shape []int

// Len is the number of elements (1 for a scalar). It does not check for
// negative extents or overflow; constructors do.
func (sh Shape) Len() int { return layout.Len(sh) }

// String is "[3 4]".
func (sh Shape) String() string { return layout.String(sh) }

// Equal reports whether two shapes have the same extents.
func (sh Shape) Equal(o Shape) bool { return slices.Equal(sh, o) }
