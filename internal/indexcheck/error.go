package indexcheck

import (
	"errors"
	"fmt"
)

// ErrIndex is what every *Error matches with errors.Is: an index out of
// the range of the axis it indexes.
var ErrIndex = errors.New("index out of range")

// Site says what a check guards, for its error.
type Site struct {
	Call string // the operation: "Take"
	// Axis is the axis the indices index; -1 for the flattened array.
	Axis int
	// Extent is the axis's extent: indices in [-Extent, Extent) are valid
	// (negative ones count from the end) unless NoNegative.
	Extent int
	// NoNegative: only [0, Extent) is valid.
	NoNegative bool
	// Unsigned: the indices are of an unsigned type (their bits are
	// printed as one).
	Unsigned bool
	// What names the indices in the message ("indices", "index array"),
	// "indices" when empty.
	What string
}

// Error is an out-of-range index found on the device.
type Error struct {
	Site
	Pos   int64 // position of the first bad index in the indices (row-major)
	Index int64 // its value (its bits, for unsigned indices)
}

func (e *Error) Error() string {
	what := e.What
	if what == "" {
		what = "indices"
	}
	idx := fmt.Sprint(e.Index)
	if e.Unsigned {
		idx = fmt.Sprint(uint64(e.Index))
	}
	axis := fmt.Sprintf("axis %d with size %d", e.Axis, e.Extent)
	if e.Axis < 0 {
		axis = fmt.Sprintf("the flattened array of size %d", e.Extent)
	}
	lo := -e.Extent
	if e.NoNegative {
		lo = 0
	}
	return fmt.Sprintf("gpuarr.%s: index %s is out of bounds for %s (valid: %d to %d), at position %d of the %s "+
		"(found on the device when the operation ran; reported by the first host wait after it): %v",
		e.Call, idx, axis, lo, e.Extent-1, e.Pos, what, ErrIndex)
}

func (e *Error) Unwrap() error { return ErrIndex }
