package gpuarr

import (
	"fmt"

	"github.com/gpuarr/gpuarr/internal/arg"
)

// Index selects along axes in Array.Index, as one item of a NumPy index
// expression does: At(i) picks one position and drops the axis, a Range
// (S, From, To, Every, or Colon for the whole axis) keeps the positions
// of a slice, NewAxis inserts an axis of extent 1, Ellipsis stands for as
// many Colons as the axes left over need.
//
//	x.Index(gpuarr.Colon, gpuarr.S(1, -1), gpuarr.At(-1))  // x[:, 1:-1, -1]
//	x.Index(gpuarr.Every(-1))                              // x[::-1]
//	x.Index(gpuarr.Ellipsis, gpuarr.NewAxis)                // x[..., None]
type Index interface{ isIndex() }

// Range is a slice of one axis, start:stop:step as in Python: positions
// start, start+step, … up to but not including stop. A negative start or
// stop counts from the end (-1 is the last position); bounds past either
// end are clipped to it, so a Range never fails for being out of range
// (it may select nothing). A left-out start or stop (From, To, Every) is
// the end the step walks from or to: with a negative step, the last
// position and one before the first. The step is 1 unless Step says
// otherwise; a step of 0 is an error matching ErrArgument.
type Range struct {
	start, stop, step          int
	hasStart, hasStop, stepSet bool
}

func (Range) isIndex() {}

// S is the Range start:stop (Python's x[start:stop]).
func S(start, stop int) Range { return Range{start: start, stop: stop, hasStart: true, hasStop: true} }

// From is the Range start: (to the end).
func From(start int) Range { return Range{start: start, hasStart: true} }

// To is the Range :stop (from the start).
func To(stop int) Range { return Range{stop: stop, hasStop: true} }

// Every is the Range ::step, the whole axis every step positions;
// Every(-1) reverses it.
func Every(step int) Range { return Range{step: step, stepSet: true} }

// Step is r with step k: S(5, 0).Step(-2) is 5:0:-2, positions 5, 3, 1.
func (r Range) Step(k int) Range {
	r.step, r.stepSet = k, true
	return r
}

// String is the Range in Python's notation, "1:-1:2".
func (r Range) String() string {
	s := ""
	if r.hasStart {
		s = fmt.Sprint(r.start)
	}
	s += ":"
	if r.hasStop {
		s += fmt.Sprint(r.stop)
	}
	if r.stepSet {
		s += fmt.Sprintf(":%d", r.step)
	}
	return s
}

// resolve is the view of an axis of extent n the Range selects: its
// first position, step and count (Python's slice.indices).
func (r Range) resolve(n int) (first, step, count int, err error) {
	step = 1
	if r.stepSet {
		step = r.step
	}
	if step == 0 {
		return 0, 0, 0, fmt.Errorf("the slice %s has step 0: %w", r, ErrArgument)
	}
	lower, upper := 0, n
	if step < 0 {
		lower, upper = -1, n-1
	}
	clip := func(v int, has bool, dflt int) int {
		if !has {
			return dflt
		}
		if v < 0 {
			v += n
		}
		return min(max(v, lower), upper)
	}
	var start, stop int
	if step > 0 {
		start, stop = clip(r.start, r.hasStart, lower), clip(r.stop, r.hasStop, upper)
		if stop > start {
			count = (stop - start + step - 1) / step
		}
	} else {
		start, stop = clip(r.start, r.hasStart, upper), clip(r.stop, r.hasStop, lower)
		if start > stop {
			count = (start - stop - step - 1) / -step
		}
	}
	return start, step, count, nil
}

// at is At's Index.
type at int

func (at) isIndex() {}

// At picks position i of an axis and drops the axis (x[i]); a negative i
// counts from the end. A position out of range is an error matching
// ErrShape (Python's IndexError).
func At(i int) Index { return at(i) }

// marker is the Index constants' type.
type marker uint8

func (marker) isIndex() {}

// The Index constants.
const (
	// Colon is the whole axis (x[:]).
	Colon marker = iota + 1
	// NewAxis inserts an axis of extent 1 (x[None], np.newaxis).
	NewAxis
	// Ellipsis stands for Colon on every axis the other items leave
	// over (x[..., 0]); at most one per index.
	Ellipsis
)

// Index is the view that NumPy's basic indexing x[idx...] gives: it
// shares a's memory (writes through either are seen by both; EvalInto
// writes into it as NumPy's x[idx] = e does) and keeps it alive after a
// is released. Items apply to a's axes in order; axes left over are
// taken whole. A nil Index is an error (write Colon); so are more items
// than axes, two Ellipses, and a step of 0 (ErrArgument), and an At out
// of range (ErrShape). Costs: one handle, no copy, no device work.
func (a *Array[T]) Index(idx ...Index) (*Array[T], error) {
	const call = "Index"
	if err := a.check(call); err != nil {
		return nil, err
	}
	sh, st := a.c.Shape(), a.stridesOrRowMajor()
	consumed, ellipsis := 0, -1
	for k, x := range idx {
		switch x := x.(type) {
		case nil:
			return nil, fmt.Errorf("gpuarr.%s: item %d is a nil Index (the whole axis is gpuarr.Colon): %w", call, k, ErrArgument)
		case marker:
			switch x {
			case Ellipsis:
				if ellipsis >= 0 {
					return nil, fmt.Errorf("gpuarr.%s: items %d and %d are both Ellipsis (one may stand for the axes left over): %w", call, ellipsis, k, ErrArgument)
				}
				ellipsis = k
			case Colon:
				consumed++
			case NewAxis:
			default:
				return nil, fmt.Errorf("gpuarr.%s: item %d is marker %d, not an Index constant: %w", call, k, x, ErrArgument)
			}
		default:
			consumed++
		}
	}
	if consumed > len(sh) {
		return nil, arg.Shapef(call, "%d items select %d axes of %s, which has %d", len(idx), consumed, a.c.Describe(), len(sh))
	}
	var nsh Shape
	var nst []int
	off, ax := 0, 0
	for k, x := range idx {
		switch x := x.(type) {
		case marker:
			switch x {
			case Colon:
				nsh, nst = append(nsh, sh[ax]), append(nst, st[ax])
				ax++
			case NewAxis:
				nsh, nst = append(nsh, 1), append(nst, 0)
			case Ellipsis:
				for range len(sh) - consumed {
					nsh, nst = append(nsh, sh[ax]), append(nst, st[ax])
					ax++
				}
			}
		case at:
			i := int(x)
			if i < 0 {
				i += sh[ax]
			}
			if i < 0 || i >= sh[ax] {
				return nil, arg.Shapef(call, "item %d: At(%d) is out of range for axis %d of %s (extent %d)", k, int(x), ax, a.c.Describe(), sh[ax])
			}
			off += i * st[ax]
			ax++
		case Range:
			first, step, count, err := x.resolve(sh[ax])
			if err != nil {
				return nil, fmt.Errorf("gpuarr.%s: item %d, axis %d of %s: %w", call, k, ax, a.c.Describe(), err)
			}
			if count > 0 {
				off += first * st[ax]
			}
			nsh, nst = append(nsh, count), append(nst, st[ax]*step)
			ax++
		default:
			return nil, fmt.Errorf("gpuarr.%s: item %d is a %T, not one of gpuarr's Index values: %w", call, k, x, ErrArgument)
		}
	}
	for ; ax < len(sh); ax++ {
		nsh, nst = append(nsh, sh[ax]), append(nst, st[ax])
	}
	if nsh == nil {
		nsh = Shape{}
	}
	return a.stridedView(call, off, nsh, nst)
}

// Slice is the view of rows i:j along the leading axis, Python's x[i:j]:
// for a [5 3] array, Slice(1, 3) is the [2 3] array of rows 1 and 2,
// Slice(-2, 5) the last two rows. Negative bounds count from the end and
// bounds past the ends are clipped, as in Python (so Slice(3, 1) is
// empty, not an error). It is Index(S(i, j)); a scalar has no axis to
// slice (ErrShape).
func (a *Array[T]) Slice(i, j int) (*Array[T], error) {
	const call = "Slice"
	if err := a.check(call); err != nil {
		return nil, err
	}
	if len(a.c.Shape()) == 0 {
		return nil, arg.Shapef(call, "%s is a scalar: it has no leading axis", a.c.Describe())
	}
	return a.Index(S(i, j))
}
