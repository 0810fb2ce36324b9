// Package layout is the arithmetic of array shapes and strides that every
// layer shares: checking a shape, NumPy's broadcasting, row-major strides.
// Shapes are []int, leading axis first; strides count elements. It owns no
// state.
package layout

import (
	"fmt"
	"math"
	"math/bits"
	"slices"
	"strconv"
	"strings"

	"github.com/gpuarr/gpuarr/internal/arg"
)

// MaxRank bounds the number of axes (a sanity limit, like NumPy's 64).
const MaxRank = 64

// Check validates sh for elements of esize bytes and returns its element
// count: at most MaxRank axes, no negative extent, and neither the count
// nor the bytes overflow (bytes must fit an int, so a host slice can hold
// them). Errors match arg.ErrShape and name call. sh does not escape, so
// callers may pass literals that stay on their stack.
func Check(call string, sh []int, esize uintptr) (int, error) {
	if len(sh) > MaxRank {
		return 0, arg.Shapef(call, "shape %s has %d axes, at most %d", String(sh), len(sh), MaxRank)
	}
	// Overflow checks by full-width multiplication rather than an integer
	// division per axis: every constructor passes here.
	n := uint64(1)
	for i, d := range sh {
		if d < 0 {
			return 0, arg.Shapef(call, "shape %s has negative extent %d on axis %d", String(sh), d, i)
		}
		hi, lo := bits.Mul64(n, uint64(d))
		if hi != 0 || lo > math.MaxInt {
			return 0, arg.Shapef(call, "shape %s overflows: more than %d elements", String(sh), math.MaxInt)
		}
		n = lo
	}
	if hi, lo := bits.Mul64(n, uint64(esize)); hi != 0 || lo > math.MaxInt {
		return 0, arg.Shapef(call, "shape %s overflows: %d elements of %d bytes exceed %d bytes", String(sh), n, esize, math.MaxInt)
	}
	return int(n), nil
}

// String is "[3 4]". sh does not escape.
func String(sh []int) string {
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

// Len is the element count of sh (1 for a scalar), without checks.
func Len(sh []int) int {
	n := 1
	for _, d := range sh {
		n *= d
	}
	return n
}

// Broadcast is NumPy's rule: align the shapes at their last axis; along
// each axis the extents must be equal or one of them 1 (which stretches);
// a missing leading axis counts as 1. It returns a itself when the shapes
// are equal; an error matches arg.ErrShape.
func Broadcast(a, b []int) ([]int, error) {
	if slices.Equal(a, b) {
		return a, nil
	}
	r := max(len(a), len(b))
	out := make([]int, r)
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
				a, b, r-i, da, db, arg.ErrShape)
		}
	}
	return out, nil
}

// BroadcastStrides returns the element strides that read an array of
// shape sh with strides st as if it had shape to (sh broadcasts to to):
// stretched axes step 0.
func BroadcastStrides(sh, st, to []int) []int {
	out := make([]int, len(to))
	off := len(to) - len(sh)
	for i := range sh {
		if sh[i] != 1 || to[off+i] == 1 {
			out[off+i] = st[i]
		}
	}
	return out
}

// RowMajorStrides are the strides of a contiguous array of shape sh.
func RowMajorStrides(sh []int) []int {
	st := make([]int, len(sh))
	step := 1
	for i := len(sh) - 1; i >= 0; i-- {
		st[i] = step
		step *= sh[i]
	}
	return st
}

// IsRowMajor reports whether strides st walk shape sh contiguously:
// extent-1 axes may have any stride, and an empty shape has no element out
// of place, whatever its strides.
func IsRowMajor(sh, st []int) bool {
	if Len(sh) == 0 {
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

// ReshapeStrides returns the strides with which shape to steps through
// the elements of an array of shape from and strides st in row-major
// order, when such strides exist (NumPy's attempt to reshape without a
// copy): each run of from's axes that merges into, or splits from, to's
// axes must be contiguous among itself. Extent-1 axes take any stride.
// ok is false when no strides do (the reshape needs a copy); from and to
// have the same element count, which is not 0.
func ReshapeStrides(from, st, to []int) (out []int, ok bool) {
	var od, os []int // from without its extent-1 axes
	for i, d := range from {
		if d != 1 {
			od, os = append(od, d), append(os, st[i])
		}
	}
	out = make([]int, len(to))
	oi, oj, ni, nj := 0, 1, 0, 1
	for ni < len(to) && oi < len(od) {
		np, op := to[ni], od[oi]
		for np != op {
			if np < op {
				np *= to[nj]
				nj++
			} else {
				op *= od[oj]
				oj++
			}
		}
		for k := oi; k < oj-1; k++ {
			if os[k] != od[k+1]*os[k+1] {
				return nil, false
			}
		}
		out[nj-1] = os[oj-1]
		for k := nj - 1; k > ni; k-- {
			out[k-1] = out[k] * to[k]
		}
		ni, nj = nj, nj+1
		oi, oj = oj, oj+1
	}
	last := 1
	if ni > 0 {
		last = out[ni-1]
	}
	for k := ni; k < len(to); k++ {
		out[k] = last
	}
	return out, true
}
