package gpuarr

import (
	"fmt"

	"github.com/gpuarr/gpuarr/device"
	"github.com/gpuarr/gpuarr/device/dtype"
	"github.com/gpuarr/gpuarr/internal/arg"
	"github.com/gpuarr/gpuarr/internal/kernels"
)

// Sorting functions order elements by NumPy's order: numbers ascending,
// every NaN after +Inf; -0 and +0 are equal. Sorts are stable: equal
// elements keep their order. Descending() reverses the order of the
// numbers but keeps NaNs last and equal elements in their order (not the
// reverse of an ascending sort). They work along one axis (Axis, the last
// by default), each line along it sorted on its own.
//
// Rows of up to 2048 elements sort in one kernel, a row per block in
// shared memory (a radix sort of the whole key in registers and shared
// memory). Longer rows take a least-significant-digit radix sort of the
// whole array, 8 bits per pass (4 passes for 32-bit keys, 8 for 64-bit),
// each pass counting, scanning and scattering, plus a pass per byte of the
// row number when there are several rows; its temporaries (two copies of
// the keys and of 32-bit positions) come from the pool on the call's
// stream. Along an axis other than the last, the array is transposed into
// a temporary first and the result transposed back. At most 2³²-1
// elements are sorted at once.
//
// Sort returns values: -0 comes out as +0, and every NaN as the type's
// canonical quiet NaN (their positions, from Argsort, are exact). Complex
// types have no order and are refused.

type (
	descendingOption struct{}
	smallestOption   struct{}
	rightOption      struct{}
)

func (descendingOption) isOption() {}
func (smallestOption) isOption()   {}
func (rightOption) isOption()      {}

func (descendingOption) String() string { return "gpuarr.Descending()" }
func (smallestOption) String() string   { return "gpuarr.Smallest()" }
func (rightOption) String() string      { return "gpuarr.Right()" }

// Descending makes Sort and Argsort order numbers from the largest down;
// NaNs stay last and equal elements keep their order.
func Descending() Option { return descendingOption{} }

// Smallest makes TopK pick the k smallest elements instead of the largest.
func Smallest() Option { return smallestOption{} }

// Right makes SearchSorted return the position after the equal elements
// (NumPy's side='right') instead of before them.
func Right() Option { return rightOption{} }

// Sort returns a sorted copy of x along Axis(k) (the last axis without
// one), as NumPy's sort(x, axis=k, kind='stable'); see the sorting
// functions above. It runs on the default stream of x's device unless an
// option says otherwise.
func Sort[T Numeric](x *Array[T], opts ...Option) (*Array[T], error) {
	v, _, err := sortAlong(x, "Sort", opts, true, false)
	return v, err
}

// Argsort returns the indices that sort x along Axis(k) (the last axis
// without one): int64 positions within each line, stable, as NumPy's
// argsort(x, axis=k, kind='stable'); TakeAlongAxis(x, Argsort(x),
// Axis(k)) is Sort(x). Descending() as in Sort.
func Argsort[T Numeric](x *Array[T], opts ...Option) (*Array[int64], error) {
	_, idx, err := sortAlong(x, "Argsort", opts, false, true)
	return idx, err
}

// sortOptions reads Axis (at most one, default -1) and Descending.
func sortOptions(call string, opts []Option) (axis int, desc bool, err error) {
	axis, seen := -1, false
	for _, o := range opts {
		switch o := o.(type) {
		case axisOption:
			if seen {
				return 0, false, fmt.Errorf("gpuarr.%s takes one Axis: %w", call, ErrArgument)
			}
			axis, seen = int(o), true
		case descendingOption:
			desc = true
		}
	}
	return axis, desc, nil
}

// sortAlong sorts x along the options' axis, returning the sorted values
// and/or the indices.
func sortAlong[T Numeric](x *Array[T], call string, opts []Option, wantKeys, wantIdx bool) (*Array[T], *Array[int64], error) {
	if err := x.check(call); err != nil {
		return nil, nil, err
	}
	axis, desc, err := sortOptions(call, opts)
	if err != nil {
		return nil, nil, err
	}
	s, err := streamTaking(call, opts, x.c.Device(), optAxis|optDescending)
	if err != nil {
		return nil, nil, err
	}
	t := dtype.Of[T]()
	if t.IsComplex() {
		return nil, nil, fmt.Errorf("gpuarr.%s: %s elements have no order: %w", call, t, ErrArgument)
	}
	sh := Shape(x.c.Shape())
	if len(sh) == 0 {
		return nil, nil, arg.Shapef(call, "%s is a scalar; sorting needs an axis", x.c.Describe())
	}
	k, err := normAxis(call, axis, sh)
	if err != nil {
		return nil, nil, err
	}
	return sortLines(call, x, k, desc, wantKeys, wantIdx, s)
}

// sortLines sorts the lines of x along axis k on s.
func sortLines[T Numeric](call string, x *Array[T], k int, desc, wantKeys, wantIdx bool, s *device.Stream) (keys *Array[T], idx *Array[int64], err error) {
	sh := Shape(x.c.Shape())
	outer, L, inner := around(sh, k)
	src, moved := x, inner > 1
	var perm, inv []int
	if moved {
		// Make axis k the last: sort a transposed copy, then transpose the
		// results back.
		perm = make([]int, 0, len(sh))
		for d := range sh {
			if d != k {
				perm = append(perm, d)
			}
		}
		perm = append(perm, k)
		inv = make([]int, len(sh))
		for i, d := range perm {
			inv[d] = i
		}
		v, err := x.Permute(perm...)
		if err != nil {
			return nil, nil, err
		}
		if src, err = Eval[T](v, On(s)); err != nil {
			return nil, nil, err
		}
		defer src.Release()
	} else {
		c, rel, err := contiguous(x, s)
		if err != nil {
			return nil, nil, err
		}
		if rel {
			defer c.Release()
		}
		src = c
	}
	lineShape := Shape(src.c.Shape())
	release := func() {
		_ = keys.Release()
		_ = idx.Release()
	}
	if wantKeys {
		if keys, err = newArray[T](call, lineShape, s); err != nil {
			return nil, nil, err
		}
	}
	if wantIdx {
		if idx, err = newArray[int64](call, lineShape, s); err != nil {
			release()
			return nil, nil, err
		}
	}
	srt := kernels.Sort{Keys: &src.c, T: dtype.Of[T](), Rows: outer * inner, L: L, Desc: desc}
	if keys != nil {
		srt.OutKeys = &keys.c
	}
	if idx != nil {
		srt.OutIdx = &idx.c
	}
	if err := srt.Run(call, s); err != nil {
		release()
		return nil, nil, err
	}
	if !moved {
		return keys, idx, nil
	}
	back := func(a *Array[T], b *Array[int64]) (*Array[T], *Array[int64], error) {
		var ra *Array[T]
		var rb *Array[int64]
		if a != nil {
			v, err := a.Permute(inv...)
			if err == nil {
				ra, err = Eval[T](v, On(s))
			}
			_ = a.Release()
			if err != nil {
				_ = b.Release()
				return nil, nil, err
			}
		}
		if b != nil {
			v, err := b.Permute(inv...)
			if err == nil {
				rb, err = Eval[int64](v, On(s))
			}
			_ = b.Release()
			if err != nil {
				_ = ra.Release()
				return nil, nil, err
			}
		}
		return ra, rb, nil
	}
	return back(keys, idx)
}
