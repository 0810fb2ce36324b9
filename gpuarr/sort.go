package gpuarr

import (
	"fmt"
	"slices"

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
// memory). Longer rows take a least-significant-digit radix sort, 8 bits
// per pass (4 passes for 32-bit keys, 8 for 64-bit). One row of fewer
// than 2³⁰ elements is counted once for every pass, then each pass reads
// and scatters the keys once (a single-pass scan with decoupled
// look-back); several rows, or 2³⁰ elements and more, take a
// count-scan-scatter sort of the whole array, plus a pass per byte of the
// row number when there are several rows. Their temporaries (two copies
// of the keys and of 32-bit positions, and the passes' counts) come from
// the pool on the call's stream. Along an axis other than the last, the array is transposed into
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

// sortLimit refuses, before any copy or allocation, n elements past what
// one sort handles (kernels.MaxSortElements), with an error matching
// ErrShape.
func sortLimit(call string, n int) error {
	if n > kernels.MaxSortElements {
		return fmt.Errorf("gpuarr.%s: %d elements: sorting is limited to 2³²-1 elements at once: %w", call, n, ErrShape)
	}
	return nil
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
	if err := sortLimit(call, x.c.Len()); err != nil {
		return nil, nil, err
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
		c, done, err := contiguous(x, s)
		if err != nil {
			return nil, nil, err
		}
		defer done()
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

// TopK returns the k largest elements along Axis(k) (the last axis
// without one), largest first, and their indices: values and int64
// positions of x's shape with that axis of extent k, as PyTorch's
// topk(sorted=True). Smallest() picks the k smallest, smallest first.
// The order is Sort's (Descending for the largest): equal elements in
// index order, NaNs after every number, so a NaN is picked only when
// fewer than k numbers remain (PyTorch counts NaN as the largest).
//
// A single line longer than 2048 elements (every other extent 1) with k
// up to 1024 is selected without sorting it (a radix selection): a pass
// over the line per byte of the element type to find the k-th element's
// value, a pass per byte of the position when elements equal to it are
// left out (each such launch returns at once otherwise), a pass
// collecting the k elements, and one block ranking them. Its scratch (a
// kilobyte and 16 bytes per k) comes from the pool on the call's stream.
// Otherwise TopK costs a sort of each line.
func TopK[T Numeric](x *Array[T], k int, opts ...Option) (*Array[T], *Array[int64], error) {
	const call = "TopK"
	if err := x.check(call); err != nil {
		return nil, nil, err
	}
	axis, seen, smallest := -1, false, false
	for _, o := range opts {
		switch o := o.(type) {
		case axisOption:
			if seen {
				return nil, nil, fmt.Errorf("gpuarr.%s takes one Axis: %w", call, ErrArgument)
			}
			axis, seen = int(o), true
		case smallestOption:
			smallest = true
		}
	}
	s, err := streamTaking(call, opts, x.c.Device(), optAxis|optSmallest)
	if err != nil {
		return nil, nil, err
	}
	if t := dtype.Of[T](); t.IsComplex() {
		return nil, nil, fmt.Errorf("gpuarr.%s: %s elements have no order: %w", call, t, ErrArgument)
	}
	sh := Shape(x.c.Shape())
	if len(sh) == 0 {
		return nil, nil, arg.Shapef(call, "%s is a scalar; TopK needs an axis", x.c.Describe())
	}
	ax, err := normAxis(call, axis, sh)
	if err != nil {
		return nil, nil, err
	}
	if k < 0 || k > sh[ax] {
		return nil, nil, fmt.Errorf("gpuarr.%s: k = %d is outside [0, %d], the extent of axis %d of %s: %w",
			call, k, sh[ax], ax, x.c.Describe(), ErrArgument)
	}
	if n := sh[ax]; k >= 1 && k <= kernels.TopKSelectMax && n > topkSelectMin && n == x.c.Len() {
		return topkSelect(call, x, sh, ax, k, !smallest, s)
	}
	keys, idx, err := sortLines(call, x, ax, !smallest, true, true, s)
	if err != nil {
		return nil, nil, err
	}
	defer keys.Release()
	defer idx.Release()
	kv, err := keys.Step(ax, 0, k, 1)
	if err != nil {
		return nil, nil, err
	}
	iv, err := idx.Step(ax, 0, k, 1)
	if err != nil {
		return nil, nil, err
	}
	vals, err := Eval[T](kv, On(s))
	if err != nil {
		return nil, nil, err
	}
	inds, err := Eval[int64](iv, On(s))
	if err != nil {
		_ = vals.Release()
		return nil, nil, err
	}
	return vals, inds, nil
}

// topkSelectMin is the shortest line TopK selects from without sorting
// it (kernels.TopK); shorter lines sort in one block-sort kernel.
const topkSelectMin = 2048

// topkSelect is TopK of x, one line along axis ax (every other extent
// 1), by radix selection: a few passes over x, none sorting it.
func topkSelect[T Numeric](call string, x *Array[T], sh Shape, ax, k int, desc bool, s *device.Stream) (*Array[T], *Array[int64], error) {
	if err := sortLimit(call, sh[ax]); err != nil {
		return nil, nil, err
	}
	src, done, err := contiguous(x, s)
	if err != nil {
		return nil, nil, err
	}
	defer done()
	osh := slices.Clone(sh)
	osh[ax] = k
	vals, err := newArray[T](call, osh, s)
	if err != nil {
		return nil, nil, err
	}
	inds, err := newArray[int64](call, osh, s)
	if err != nil {
		_ = vals.Release()
		return nil, nil, err
	}
	sel := kernels.TopK{X: &src.c, Vals: &vals.c, Idx: &inds.c, T: dtype.Of[T](), N: sh[ax], K: k, Desc: desc}
	if err := sel.Run(call, s); err != nil {
		_ = vals.Release()
		_ = inds.Release()
		return nil, nil, err
	}
	return vals, inds, nil
}

// SearchSorted returns, for each element of v, the position in the sorted
// 1-D array a where it would be inserted to keep a sorted, as NumPy's
// searchsorted(a, v): before the elements equal to it, or, with Right(),
// after them. The order is Sort's (NaN last). The result has v's shape
// and type int64. a must be sorted ascending (it is not checked: an
// unsorted a gives unspecified positions, as in NumPy).
func SearchSorted[T Numeric](a *Array[T], v *Array[T], opts ...Option) (*Array[int64], error) {
	const call = "SearchSorted"
	if err := a.check(call + ": a"); err != nil {
		return nil, err
	}
	if err := v.check(call + ": v"); err != nil {
		return nil, err
	}
	right := false
	for _, o := range opts {
		if _, ok := o.(rightOption); ok {
			right = true
		}
	}
	s, err := streamTaking(call, opts, a.c.Device(), optRight)
	if err != nil {
		return nil, err
	}
	if len(a.c.Shape()) != 1 {
		return nil, arg.Shapef(call, "a %s must be 1-D", a.c.Describe())
	}
	out, err := newArray[int64](call, Shape(v.c.Shape()), s)
	if err != nil {
		return nil, err
	}
	ac, doneA, err := contiguous(a, s)
	if err != nil {
		_ = out.Release()
		return nil, err
	}
	defer doneA()
	vc, doneV, err := contiguous(v, s)
	if err != nil {
		_ = out.Release()
		return nil, err
	}
	defer doneV()
	srch := kernels.Search{A: &ac.c, V: &vc.c, Out: &out.c, T: dtype.Of[T](), N: ac.c.Len(), M: vc.c.Len(), Right: right}
	if err := srch.Run(call, s); err != nil {
		_ = out.Release()
		return nil, err
	}
	return out, nil
}

// UniqueAllResult is what UniqueAll returns: NumPy's unique_all.
type UniqueAllResult[T Numeric] struct {
	// Values are x's distinct elements, sorted (NaNs, all equal here,
	// last; -0 as +0).
	Values *Array[T]
	// Indices are the flat positions in x of each value's first
	// occurrence.
	Indices *Array[int64]
	// InverseIndices has x's shape: the position in Values of each of x's
	// elements (Take(Values, InverseIndices) is x, up to -0 and NaN
	// payloads).
	InverseIndices *Array[int64]
	// Counts are how often each value occurs.
	Counts *Array[int64]
}

// Release releases the result's arrays.
func (r UniqueAllResult[T]) Release() {
	_ = r.Values.Release()
	_ = r.Indices.Release()
	_ = r.InverseIndices.Release()
	_ = r.Counts.Release()
}

// Unique returns x's distinct elements, sorted, as a 1-D array: NumPy's
// unique(x) (x flattened; NaNs are equal to each other, as with NumPy's
// equal_nan=True). It waits for the device once, to learn how many there
// are; it costs a sort of x.
func Unique[T Numeric](x *Array[T], opts ...Option) (*Array[T], error) {
	r, err := unique("Unique", x, opts, false)
	if err != nil {
		return nil, err
	}
	return r.Values, nil
}

// UniqueAll is Unique with the first occurrences, the inverse and the
// counts, as NumPy's unique_all.
func UniqueAll[T Numeric](x *Array[T], opts ...Option) (UniqueAllResult[T], error) {
	return unique("UniqueAll", x, opts, true)
}

func unique[T Numeric](call string, x *Array[T], opts []Option, all bool) (res UniqueAllResult[T], err error) {
	if err := x.check(call); err != nil {
		return res, err
	}
	s, err := streamFor(call, opts, x.c.Device())
	if err != nil {
		return res, err
	}
	if t := dtype.Of[T](); t.IsComplex() {
		return res, fmt.Errorf("gpuarr.%s: %s elements have no order: %w", call, t, ErrArgument)
	}
	n := x.c.Len()
	if err := sortLimit(call, n); err != nil {
		return res, err
	}
	fail := func(e error) (UniqueAllResult[T], error) {
		res.Release()
		return UniqueAllResult[T]{}, e
	}
	if n == 0 {
		if res.Values, err = newArray[T](call, Shape{0}, s); err != nil {
			return fail(err)
		}
		if all {
			for _, p := range []**Array[int64]{&res.Indices, &res.Counts} {
				if *p, err = newArray[int64](call, Shape{0}, s); err != nil {
					return fail(err)
				}
			}
			if res.InverseIndices, err = newArray[int64](call, Shape(x.c.Shape()), s); err != nil {
				return fail(err)
			}
		}
		return res, nil
	}
	xc, done, err := contiguous(x, s)
	if err != nil {
		return res, err
	}
	defer done()
	flat, err := xc.Reshape(Shape{n})
	if err != nil {
		return res, err
	}
	defer flat.Release()
	keys, perm, err := sortLines(call, flat, 0, false, true, all, s)
	if err != nil {
		return res, err
	}
	defer keys.Release()
	defer perm.Release()
	// A run of equal keys starts where a key differs from the one before
	// (two NaNs are equal).
	a, err := keys.Slice(1, n)
	if err != nil {
		return res, err
	}
	defer a.Release()
	b, err := keys.Slice(0, n-1)
	if err != nil {
		return res, err
	}
	defer b.Release()
	differs := NotEqual(a, b).And(Equal[T](a, a).Or(Equal[T](b, b)))
	later, err := nonzeroFlat(call, differs.n, s)
	if err != nil {
		return res, err
	}
	defer later.Release()
	u := later.c.Len() + 1
	starts, err := Zeros[int64](Shape{u}, On(s))
	if err != nil {
		return res, err
	}
	defer starts.Release()
	if u > 1 {
		tail, err := starts.Slice(1, u)
		if err != nil {
			return res, err
		}
		err = EvalInto(tail, Add[int64](later, Scalar[int64](1)), On(s))
		_ = tail.Release()
		if err != nil {
			return res, err
		}
	}
	if res.Values, err = take(call, keys, starts, []Option{On(s)}); err != nil {
		return fail(err)
	}
	if !all {
		return res, nil
	}
	if res.Indices, err = take(call, perm, starts, []Option{On(s)}); err != nil {
		return fail(err)
	}
	next, err := Full(Shape{u}, int64(n), On(s))
	if err != nil {
		return fail(err)
	}
	defer next.Release()
	if u > 1 {
		head, err := next.Slice(0, u-1)
		if err != nil {
			return fail(err)
		}
		tail, err := starts.Slice(1, u)
		if err != nil {
			_ = head.Release()
			return fail(err)
		}
		err = EvalInto(head, tail, On(s))
		_, _ = head.Release(), tail.Release()
		if err != nil {
			return fail(err)
		}
	}
	if res.Counts, err = Eval(Sub[int64](next, starts), On(s)); err != nil {
		return fail(err)
	}
	// The run of sorted position i is the number of run starts up to i,
	// less one; the inverse puts it at the element's position.
	runs, err := Zeros[int64](Shape{n}, On(s))
	if err != nil {
		return fail(err)
	}
	defer runs.Release()
	if n > 1 {
		c, err := CumsumAs[int64](FromMask[uint8](differs), On(s))
		if err != nil {
			return fail(err)
		}
		tail, err := runs.Slice(1, n)
		if err == nil {
			err = Copy(tail, c, On(s))
			_ = tail.Release()
		}
		_ = c.Release()
		if err != nil {
			return fail(err)
		}
	}
	inv, err := newArray[int64](call, Shape{n}, s)
	if err != nil {
		return fail(err)
	}
	if err := Put(inv, perm, runs, On(s)); err != nil {
		_ = inv.Release()
		return fail(err)
	}
	res.InverseIndices, err = inv.Reshape(Shape(x.c.Shape()))
	_ = inv.Release()
	if err != nil {
		return fail(err)
	}
	return res, nil
}
