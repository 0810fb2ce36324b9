package gpuarr

import (
	"fmt"
	"unsafe"

	"github.com/gpuarr/gpuarr/device"
	"github.com/gpuarr/gpuarr/internal/arg"
	"github.com/gpuarr/gpuarr/internal/kernels"
)

// Joining functions assemble arrays from parts (Concatenate, Stack, Pad)
// and split them into views (Split, SplitAt). They take the Axis option
// (axis 0 without it) and run on the default stream of their first
// array's device unless On or OnDevice says otherwise.

// axisOption0 reads at most one Axis option, 0 without one.
func axisOption0(call string, opts []Option) (int, error) {
	k, seen := 0, false
	for _, o := range opts {
		if a, ok := o.(axisOption); ok {
			if seen {
				return 0, fmt.Errorf("gpuarr.%s takes one Axis: %w", call, ErrArgument)
			}
			k, seen = int(a), true
		}
	}
	return k, nil
}

// startJoin is what joining calls start with: at least one array (verb
// names what there was none to do in the error), each usable, at most one
// Axis (0 without it), and the stream, on the first array's device unless
// an option says otherwise.
func startJoin[T Numeric](call, verb string, xs []*Array[T], opts []Option) (int, *device.Stream, error) {
	if len(xs) == 0 {
		return 0, nil, fmt.Errorf("gpuarr.%s: no arrays to %s: %w", call, verb, ErrArgument)
	}
	for i, x := range xs {
		if err := x.check(fmt.Sprintf("%s: array %d", call, i)); err != nil {
			return 0, nil, err
		}
	}
	k, err := axisOption0(call, opts)
	if err != nil {
		return 0, nil, err
	}
	s, err := streamTaking(call, opts, xs[0].c.Device(), optAxis)
	return k, s, err
}

// Concatenate joins arrays along an existing axis (Axis(k), axis 0
// without it), as NumPy's concatenate: they must have the same rank and
// the same extents on every other axis; the result's axis k is the sum of
// theirs. Along axis 0 of contiguous arrays each is one device-to-device
// copy; along another axis one kernel per array copies its rows into
// place (strided views are made contiguous first).
func Concatenate[T Numeric](xs []*Array[T], opts ...Option) (*Array[T], error) {
	const call = "Concatenate"
	k, s, err := startJoin(call, "join", xs, opts)
	if err != nil {
		return nil, err
	}
	first := Shape(xs[0].c.Shape())
	if len(first) == 0 {
		return nil, arg.Shapef(call, "%s is a scalar: it has no axis to join along (Stack joins scalars)", xs[0].c.Describe())
	}
	if k, err = normAxis(call, k, first); err != nil {
		return nil, err
	}
	outShape := append(Shape{}, first...)
	outShape[k] = 0
	for i, x := range xs {
		sh := x.c.Shape()
		if len(sh) != len(first) {
			return nil, arg.Shapef(call, "array %d is %s, array 0 is %s: the ranks differ", i, x.c.Describe(), xs[0].c.Describe())
		}
		for d := range sh {
			if d != k && sh[d] != first[d] {
				return nil, arg.Shapef(call, "array %d is %s, array 0 is %s: they differ on axis %d (only axis %d may)", i, x.c.Describe(), xs[0].c.Describe(), d, k)
			}
		}
		outShape[k] += sh[k]
	}
	out, err := newArray[T](call, outShape, s)
	if err != nil {
		return nil, err
	}
	outer, total, inner := around(outShape, k)
	off := 0
	for _, x := range xs {
		xc, done, err := contiguous(x, s)
		if err != nil {
			_ = out.Release()
			return nil, err
		}
		n := x.c.Shape()[k]
		err = kernels.CopyRows(call, s, &out.c, off*inner, total*inner, &xc.c, n*inner, outer, n*inner, int(sizeOf[T]()))
		done()
		if err != nil {
			_ = out.Release()
			return nil, err
		}
		off += n
	}
	return out, nil
}

// Stack joins arrays of one shape along a new axis (Axis(k), 0 without
// it; -1 is after the last), as NumPy's stack: the result has their shape
// with an axis of len(xs) inserted at k.
func Stack[T Numeric](xs []*Array[T], opts ...Option) (*Array[T], error) {
	const call = "Stack"
	k, s, err := startJoin(call, "stack", xs, opts)
	if err != nil {
		return nil, err
	}
	first := Shape(xs[0].c.Shape())
	r := len(first) + 1
	if k < 0 {
		k += r
	}
	if k < 0 || k >= r {
		return nil, arg.Shapef(call, "axis %d out of range for stacking arrays of shape %v (%d axes after stacking)", k, first, r)
	}
	parts := make([]*Array[T], len(xs))
	defer func() {
		for _, p := range parts {
			_ = p.Release()
		}
	}()
	for i, x := range xs {
		if !Shape(x.c.Shape()).Equal(first) {
			return nil, arg.Shapef(call, "array %d is %s, array 0 is %s: stacked arrays must have one shape", i, x.c.Describe(), xs[0].c.Describe())
		}
		xc, done, err := contiguous(x, s)
		if err != nil {
			return nil, err
		}
		sh := append(append(append(Shape{}, first[:k]...), 1), first[k:]...)
		parts[i], err = xc.Reshape(sh)
		done()
		if err != nil {
			return nil, err
		}
	}
	return Concatenate(parts, Axis(k), On(s))
}

// Split splits x into sections equal parts along Axis(k) (0 without
// it), as NumPy's split with an integer: views of x (no copy), each with
// axis k of extent x's / sections. An axis that does not divide evenly is
// an error, as in NumPy.
func Split[T Numeric](x *Array[T], sections int, opts ...Option) ([]*Array[T], error) {
	const call = "Split"
	if err := x.check(call); err != nil {
		return nil, err
	}
	k, err := splitAxis(call, x, opts)
	if err != nil {
		return nil, err
	}
	n := x.c.Shape()[k]
	if sections <= 0 || n%sections != 0 {
		return nil, fmt.Errorf("gpuarr.%s: axis %d of %s (extent %d) does not split into %d equal sections: %w",
			call, k, x.c.Describe(), n, sections, ErrArgument)
	}
	at := make([]int, 0, sections-1)
	for i := 1; i < sections; i++ {
		at = append(at, i*n/sections)
	}
	return splitAt(call, x, k, at)
}

// SplitAt splits x before each of the given indices along Axis(k) (0
// without it), as NumPy's split with a list: views of x[:i0], x[i0:i1],
// ..., x[ilast:]. Indices past the axis give empty parts, as in NumPy;
// they must not decrease.
func SplitAt[T Numeric](x *Array[T], indices []int, opts ...Option) ([]*Array[T], error) {
	const call = "SplitAt"
	if err := x.check(call); err != nil {
		return nil, err
	}
	k, err := splitAxis(call, x, opts)
	if err != nil {
		return nil, err
	}
	return splitAt(call, x, k, indices)
}

func splitAxis[T Numeric](call string, x *Array[T], opts []Option) (int, error) {
	k, err := axisOption0(call, opts)
	if err != nil {
		return 0, err
	}
	if _, err := streamTaking(call, opts, x.c.Device(), optAxis); err != nil {
		return 0, err
	}
	if len(x.c.Shape()) == 0 {
		return 0, arg.Shapef(call, "%s is a scalar: it has no axis to split", x.c.Describe())
	}
	return normAxis(call, k, x.c.Shape())
}

func splitAt[T Numeric](call string, x *Array[T], k int, at []int) ([]*Array[T], error) {
	n := x.c.Shape()[k]
	out := make([]*Array[T], 0, len(at)+1)
	lo := 0
	for i := 0; i <= len(at); i++ {
		hi := n
		if i < len(at) {
			hi = min(max(at[i], 0), n)
			if at[i] < 0 || i > 0 && at[i] < at[i-1] {
				for _, v := range out {
					_ = v.Release()
				}
				return nil, fmt.Errorf("gpuarr.%s: split indices %v must be non-negative and not decrease: %w", call, at, ErrArgument)
			}
		}
		v, err := x.Step(k, lo, max(lo, hi), 1)
		if err != nil {
			for _, v := range out {
				_ = v.Release()
			}
			return nil, err
		}
		out = append(out, v)
		lo = max(lo, hi)
	}
	return out, nil
}

// PadMode says how Pad fills the border, as NumPy's pad modes.
type PadMode int

// The pad modes.
const (
	// PadConstant fills with zeros (PadWith: with a value).
	PadConstant PadMode = kernels.PadConstant
	// PadEdge repeats the edge element.
	PadEdge PadMode = kernels.PadEdge
	// PadReflect mirrors without repeating the edge: [a b c] → b | a b c | b.
	PadReflect PadMode = kernels.PadReflect
	// PadSymmetric mirrors with the edge: [a b c] → a | a b c | c.
	PadSymmetric PadMode = kernels.PadSymmetric
	// PadWrap continues from the other end: [a b c] → c | a b c | a.
	PadWrap PadMode = kernels.PadWrap
)

func (m PadMode) String() string {
	switch m {
	case PadConstant:
		return "PadConstant"
	case PadEdge:
		return "PadEdge"
	case PadReflect:
		return "PadReflect"
	case PadSymmetric:
		return "PadSymmetric"
	case PadWrap:
		return "PadWrap"
	}
	return fmt.Sprintf("PadMode(%d)", int(m))
}

// Pad returns x with widths[d] = {before, after} elements added on each
// side of axis d, as NumPy's pad(x, widths, mode): widths has one pair
// per axis, or one pair for every axis. The border is filled by the mode
// (PadConstant with zeros; see PadWith for another value); a border wider
// than the axis repeats the mode's pattern. Modes other than PadConstant
// need every padded axis to have elements. One kernel writes the result.
func Pad[T Numeric](x *Array[T], widths [][2]int, mode PadMode, opts ...Option) (*Array[T], error) {
	return pad("Pad", x, widths, mode, [2]uint64{}, opts)
}

// PadWith is Pad with PadConstant filling with value.
func PadWith[T Numeric](x *Array[T], widths [][2]int, value T, opts ...Option) (*Array[T], error) {
	var bits [2]uint64 // room for any element type's bits
	*(*T)(unsafe.Pointer(&bits[0])) = value
	return pad("PadWith", x, widths, PadConstant, bits, opts)
}

func pad[T Numeric](call string, x *Array[T], widths [][2]int, mode PadMode, value [2]uint64, opts []Option) (*Array[T], error) {
	if err := x.check(call); err != nil {
		return nil, err
	}
	s, err := streamFor(call, opts, x.c.Device())
	if err != nil {
		return nil, err
	}
	if mode < PadConstant || mode > PadWrap {
		return nil, fmt.Errorf("gpuarr.%s: unknown mode %v: %w", call, mode, ErrArgument)
	}
	sh := Shape(x.c.Shape())
	if len(widths) == 1 && len(sh) != 1 {
		w := widths[0]
		widths = make([][2]int, len(sh))
		for d := range widths {
			widths[d] = w
		}
	}
	if len(widths) != len(sh) {
		return nil, arg.Shapef(call, "%d pairs of widths for %s: give one per axis, or one for all", len(widths), x.c.Describe())
	}
	if len(sh) == 0 {
		return Clone(x, On(s))
	}
	outShape := make(Shape, len(sh))
	before := make([]int, len(sh))
	for d, w := range widths {
		if w[0] < 0 || w[1] < 0 {
			return nil, fmt.Errorf("gpuarr.%s: widths %v for axis %d are negative: %w", call, w, d, ErrArgument)
		}
		if mode != PadConstant && sh[d] == 0 && w[0]+w[1] > 0 {
			return nil, arg.Shapef(call, "axis %d of %s is empty: only PadConstant extends it", d, x.c.Describe())
		}
		outShape[d], before[d] = sh[d]+w[0]+w[1], w[0]
	}
	out, err := newArray[T](call, outShape, s)
	if err != nil {
		return nil, err
	}
	xc, done, err := contiguous(x, s)
	if err != nil {
		_ = out.Release()
		return nil, err
	}
	defer done()
	p := kernels.Pad{Out: &out.c, X: &xc.c, Size: int(sizeOf[T]()), Mode: int(mode), ODims: outShape, XDims: sh,
		Before: before, Value: value}
	if err := p.Run(call, s); err != nil {
		_ = out.Release()
		return nil, err
	}
	return out, nil
}
