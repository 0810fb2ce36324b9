package gpuarr

import (
	"fmt"

	"github.com/gpuarr/gpuarr/device"
	"github.com/gpuarr/gpuarr/device/dtype"
	"github.com/gpuarr/gpuarr/internal/arg"
	"github.com/gpuarr/gpuarr/internal/fusion"
	"github.com/gpuarr/gpuarr/internal/fusion/expr"
	"github.com/gpuarr/gpuarr/internal/indexcheck"
	"github.com/gpuarr/gpuarr/internal/kernels"
	"github.com/gpuarr/gpuarr/internal/layout"
)

// Indexing functions pick elements by integer index arrays (Take,
// TakeAlongAxis), write or add through them (Put, IndexAdd), and select
// by masks (MaskedSelect, Compress, Nonzero). Index arrays hold any
// integer type; a negative index counts from the end of its axis, once,
// as in NumPy: -1 is the last element.
//
// # Bad indices
//
// An index outside [-n, n) for an axis of extent n is an error matching
// ErrIndex that names the operation, the index, its position in the index
// array and the axis: never a silent wrong result, and never a read or
// write outside an array. The indices live on the device, so the kernel
// checks them there: it skips each bad one (an output element it would
// have read is written as zero) and records the first (lowest position)
// in a word the host reads later. The host learns of it at the first host
// wait after the kernel has run: the next host read of any array of the
// device that waits for GPU work (ToSlice, CopyToHost, Item; reading the
// operation's result, or anything computed from it, always waits for it)
// or Synchronize. That call returns the index error (with its own result
// not delivered), once; nothing waits for the device on the operation's
// own path. Clip() and Wrap() make every index valid (NumPy's
// mode='clip' and mode='wrap'); they check nothing, so they may also be
// captured into a graph, where checked operations are refused.

type (
	indexModeOption     int
	deterministicOption struct{}
)

func (indexModeOption) isOption()     {}
func (deterministicOption) isOption() {}

func (o indexModeOption) String() string {
	if o == kernels.ModeClip {
		return "gpuarr.Clip()"
	}
	return "gpuarr.Wrap()"
}
func (deterministicOption) String() string { return "gpuarr.Deterministic()" }

// Clip makes Take, TakeAlongAxis and Put clip indices into range, as
// NumPy's mode='clip': below 0 (negative indices included) to 0, above the
// last to the last. Nothing is checked.
func Clip() Option { return indexModeOption(kernels.ModeClip) }

// Wrap makes Take, TakeAlongAxis and Put wrap indices around the axis, as
// NumPy's mode='wrap': index i is i mod n (a negative remainder plus n).
// Nothing is checked.
func Wrap() Option { return indexModeOption(kernels.ModeWrap) }

// Deterministic makes Put and IndexAdd give the same result on every run:
// where indices repeat, Put keeps the value of the last (NumPy's order)
// and IndexAdd adds the contributions in index order. Without it, Put
// keeps any one of them and IndexAdd adds them with atomics, whose float
// sums depend on timing. It costs a sort of the indices.
func Deterministic() Option { return deterministicOption{} }

// indexOptions reads the Axis (at most one) and index-mode options.
type indexOptions struct {
	axis          int
	hasAxis       bool
	mode          int
	deterministic bool
}

func readIndexOptions(call string, opts []Option) (indexOptions, error) {
	o := indexOptions{mode: kernels.ModeRaise}
	for _, x := range opts {
		switch x := x.(type) {
		case axisOption:
			if o.hasAxis {
				return o, fmt.Errorf("gpuarr.%s takes one Axis: %w", call, ErrArgument)
			}
			o.axis, o.hasAxis = int(x), true
		case indexModeOption:
			o.mode = int(x)
		case deterministicOption:
			o.deterministic = true
		}
	}
	return o, nil
}

// normAxis resolves axis k (negative from the end) of a rank-r shape.
func normAxis(call string, k int, sh Shape) (int, error) {
	r := len(sh)
	if k < 0 {
		k += r
	}
	if k < 0 || k >= r {
		return 0, arg.Shapef(call, "axis %d out of range for shape %v (%d axes)", k, sh, r)
	}
	return k, nil
}

// around splits sh at axis k: the product of the axes before it, its
// extent, the product of those after.
func around(sh Shape, k int) (outer, n, inner int) {
	outer, inner = 1, 1
	for d, e := range sh {
		switch {
		case d < k:
			outer *= e
		case d > k:
			inner *= e
		}
	}
	return outer, sh[k], inner
}

// contiguous returns a, or a contiguous copy of it on s, and done, which
// releases what contiguous made (nothing when it returned a). done is
// never nil.
func contiguous[T Numeric](a *Array[T], s *device.Stream) (c *Array[T], done func(), err error) {
	c, made, err := a.compact(On(s))
	if !made {
		return c, nothing, err
	}
	return c, releaser(c), nil
}

// nothing is the done function of a call that made nothing to release.
func nothing() {}

// releaser returns the done function that releases a.
func releaser[T Element](a *Array[T]) func() { return func() { _ = a.Release() } }

// Take picks elements of x at indices, as NumPy's take: with Axis(k),
// along axis k, so the result has x's shape with axis k replaced by the
// indices' shape (x.shape[:k] + indices.shape + x.shape[k+1:]); without
// Axis, from x flattened, so the result has the indices' shape. It runs on
// the default stream of x's device unless On or OnDevice says otherwise.
//
// Indices are checked on the device (see "Bad indices" above) unless
// Clip() or Wrap() is given; taking from an axis of extent 0 any index at
// all is an ErrIndex error at once. Strided views are read after a
// contiguous copy. Cost: one kernel reading each index once and each
// picked element once (an axis with trailing axes copies whole rows).
func Take[T Numeric, I Integer](x *Array[T], indices *Array[I], opts ...Option) (*Array[T], error) {
	return take("Take", x, indices, opts)
}

func take[T Numeric, I Integer](call string, x *Array[T], indices *Array[I], opts []Option) (*Array[T], error) {
	o, s, err := startIndexing(call, x, indices, opts, optAxis|optIndexMode)
	if err != nil {
		return nil, err
	}
	xs, is := x.c.Shape(), indices.c.Shape()
	outer, n, inner, k := 1, x.c.Len(), 1, -1
	var outShape Shape
	if o.hasAxis {
		if k, err = normAxis(call, o.axis, xs); err != nil {
			return nil, err
		}
		outer, n, inner = around(xs, k)
		outShape = append(append(append(Shape{}, xs[:k]...), is...), xs[k+1:]...)
	} else {
		outShape = append(Shape{}, is...)
	}
	m := indices.c.Len()
	if n == 0 && m > 0 {
		return nil, emptyAxisError(call, x.c.Describe(), k)
	}
	return gather(call, s, x, indices, outShape, kernels.Gather{Mode: o.mode, Outer: outer, N: n, M: m, Inner: inner,
		Site: indexcheck.Site{Call: call, Axis: k, Extent: n}})
}

// startIndexing is what every indexing call starts with: x and the
// indices checked, the index options read, and the stream, which takes
// the options of the kinds in also.
func startIndexing[T Numeric, I Integer](call string, x *Array[T], indices *Array[I], opts []Option, also optionKind) (indexOptions, *device.Stream, error) {
	if err := x.check(call + ": x"); err != nil {
		return indexOptions{}, nil, err
	}
	if err := indices.check(call + ": indices"); err != nil {
		return indexOptions{}, nil, err
	}
	o, err := readIndexOptions(call, opts)
	if err != nil {
		return o, nil, err
	}
	s, err := streamTaking(call, opts, x.c.Device(), also)
	return o, s, err
}

// gather makes an array of shape sh on s and fills it by g, the layout and
// index mode set by the caller, from x and the indices (contiguous copies
// of strided views).
func gather[T Numeric, I Integer](call string, s *device.Stream, x *Array[T], indices *Array[I], sh Shape, g kernels.Gather) (*Array[T], error) {
	out, err := newArray[T](call, sh, s)
	if err != nil {
		return nil, err
	}
	if out.c.Len() == 0 {
		return out, nil
	}
	xc, doneX, err := contiguous(x, s)
	if err != nil {
		_ = out.Release()
		return nil, err
	}
	defer doneX()
	ic, doneI, err := contiguous(indices, s)
	if err != nil {
		_ = out.Release()
		return nil, err
	}
	defer doneI()
	g.Out, g.X, g.Idx, g.IdxType, g.ElemSize = &out.c, &xc.c, &ic.c, dtype.Of[I](), int(sizeOf[T]())
	g.Site.Unsigned = dtype.Of[I]().IsUnsigned()
	if err := g.Run(call, s); err != nil {
		_ = out.Release()
		return nil, err
	}
	return out, nil
}

// scatter writes (or with sc.Add, adds) src into x at the indices by sc,
// the layout set by the caller; src is v as an array of shape sh.
func scatter[T Numeric, I Integer](call string, s *device.Stream, x *Array[T], indices *Array[I], v Operand[T], sh Shape, sc kernels.Scatter) error {
	src, doneS, err := operandArray(call, v, sh, x, s)
	if err != nil {
		return err
	}
	defer doneS()
	ic, doneI, err := contiguous(indices, s)
	if err != nil {
		return err
	}
	defer doneI()
	sc.X, sc.Idx, sc.Src, sc.T, sc.IdxType = &x.c, &ic.c, &src.c, dtype.Of[T](), dtype.Of[I]()
	sc.Site.Unsigned = dtype.Of[I]().IsUnsigned()
	return sc.Run(call, s)
}

// emptyAxisError refuses indexing an axis of extent 0 (k < 0: x
// flattened) with any index.
func emptyAxisError(call, x string, k int) error {
	where := "x flattened is empty"
	if k >= 0 {
		where = fmt.Sprintf("axis %d of %s has extent 0", k, x)
	}
	return fmt.Errorf("gpuarr.%s: %s, so every index is out of bounds: %w", call, where, ErrIndex)
}

// TakeAlongAxis picks, along axis k, the element each index names: the
// result has the indices' shape and result[..., j, ...] = x[...,
// indices[..., j, ...], ...], as NumPy's take_along_axis (Axis is
// required; the indices must have x's rank and x's extents on every other
// axis, broadcasting not taken). The indices Argsort or TopK return fit:
// TakeAlongAxis(x, Argsort(x, Axis(k)), Axis(k)) sorts x along k. Bad
// indices, Clip() and Wrap() are as in Take.
func TakeAlongAxis[T Numeric, I Integer](x *Array[T], indices *Array[I], opts ...Option) (*Array[T], error) {
	const call = "TakeAlongAxis"
	o, s, err := startIndexing(call, x, indices, opts, optAxis|optIndexMode)
	if err != nil {
		return nil, err
	}
	if !o.hasAxis {
		return nil, fmt.Errorf("gpuarr.%s needs the axis to pick along (gpuarr.Axis(k)): %w", call, ErrArgument)
	}
	xs, is := x.c.Shape(), indices.c.Shape()
	k, err := normAxis(call, o.axis, xs)
	if err != nil {
		return nil, err
	}
	if len(is) != len(xs) {
		return nil, arg.Shapef(call, "indices %s should have the rank of x %s", indices.c.Describe(), x.c.Describe())
	}
	for d := range xs {
		if d != k && xs[d] != is[d] {
			return nil, arg.Shapef(call, "indices %s should match x %s on every axis but %d", indices.c.Describe(), x.c.Describe(), k)
		}
	}
	outer, n, inner := around(xs, k)
	m := is[k]
	if n == 0 && m > 0 && outer*inner > 0 {
		return nil, emptyAxisError(call, x.c.Describe(), k)
	}
	return gather(call, s, x, indices, Shape(is), kernels.Gather{Mode: o.mode, Along: true, Outer: outer, N: n, M: m, Inner: inner,
		Site: indexcheck.Site{Call: call, Axis: k, Extent: n}})
}

// MaskedSelect returns the elements of x where m is true, in row-major
// order, as a new 1-D array: NumPy's x[m], with x and m broadcast
// together as torch.masked_select broadcasts them. x may be an array or
// an expression and m any mask (a comparison, And, Or, Not of them):
//
//	pos, err := gpuarr.MaskedSelect(x, gpuarr.Greater(x, gpuarr.Scalar[float32](0)))
//
// The result's length depends on the data, so MaskedSelect waits for the
// device once: a reduction counts the selected elements, the host reads
// the count (as Item does), then one kernel (a single-pass scan of the
// mask with a decoupled look-back) writes them. It runs on the default
// stream of the device of x's first array unless an option says
// otherwise.
func MaskedSelect[T Numeric](x Operand[T], m Mask, opts ...Option) (*Array[T], error) {
	const call = "MaskedSelect"
	xn := operandNode(x)
	switch {
	case xn == nil || m.n == nil:
		return nil, fmt.Errorf("gpuarr.%s: %w", call, fusion.ErrNilExpr)
	case xn.Err() != nil:
		return nil, fmt.Errorf("gpuarr.%s: %w", call, xn.Err())
	case m.n.Err() != nil:
		return nil, fmt.Errorf("gpuarr.%s: %w", call, m.n.Err())
	}
	space, err := layout.Broadcast(xn.Shape(), m.n.Shape())
	if err != nil {
		return nil, arg.Shapef(call, "x %v and the mask %v do not broadcast together", xn.Shape(), m.n.Shape())
	}
	dev := fusion.FirstDevice(xn)
	if dev == nil {
		dev = fusion.FirstDevice(m.n)
	}
	s, err := streamFor(call, opts, dev)
	if err != nil {
		return nil, err
	}
	count, err := countTrue(call, m.n, space, s)
	if err != nil {
		return nil, err
	}
	out, err := newArray[T](call, Shape{count}, s)
	if err != nil {
		return nil, err
	}
	if err := fusion.Compact(call, &out.c, xn, m.n, false, space, count, s); err != nil {
		_ = out.Release()
		return nil, err
	}
	return out, nil
}

// countTrue counts, on s, the elements of space where mask (broadcast to
// space) is true, and reads the count (waiting for the device).
func countTrue(call string, mask *fusion.Node, space []int, s *device.Stream) (int, error) {
	if layout.Len(space) == 0 {
		return 0, nil
	}
	c, err := newArray[int64](call, Shape{}, s)
	if err != nil {
		return 0, err
	}
	defer c.Release()
	all := uint64(0)
	if len(space) > 0 {
		all = ^uint64(0) >> (64 - len(space))
	}
	ones := fusion.Unary(expr.OpCast, mask, dtype.Int64)
	if err := fusion.Reduce(call, expr.Sum, dtype.Int64, &c.c, ones, space, all, layout.Len(space), layout.Len(space), s); err != nil {
		return 0, err
	}
	n, err := c.Item()
	if err != nil {
		return 0, fmt.Errorf("gpuarr.%s: counting the selected elements: %w", call, err)
	}
	return int(n), nil
}

// Compress picks the slices along Axis(k) where the 1-D mask condition
// is true, as NumPy's compress(condition, x, axis): the result has x's
// shape with axis k as long as the count of true elements; without Axis,
// x is flattened first. A condition shorter than the axis counts as false
// past its end; a true element past the axis's end is an index error
// (ErrIndex, reported as Take's). Like MaskedSelect it waits for the
// device once, to count.
func Compress[T Numeric](condition Mask, x *Array[T], opts ...Option) (*Array[T], error) {
	const call = "Compress"
	if err := x.check(call + ": x"); err != nil {
		return nil, err
	}
	if condition.n == nil {
		return nil, fmt.Errorf("gpuarr.%s: %w", call, fusion.ErrNilExpr)
	}
	if condition.n.Err() != nil {
		return nil, fmt.Errorf("gpuarr.%s: %w", call, condition.n.Err())
	}
	if len(condition.n.Shape()) != 1 {
		return nil, arg.Shapef(call, "the condition has shape %v; it must be 1-D", condition.n.Shape())
	}
	if _, err := readIndexOptions(call, opts); err != nil {
		return nil, err
	}
	s, err := streamTaking(call, opts, x.c.Device(), optAxis)
	if err != nil {
		return nil, err
	}
	idx, err := nonzeroFlat(call, condition.n, s)
	if err != nil {
		return nil, err
	}
	defer idx.Release()
	return take(call, x, idx, opts)
}

// operandArray returns v as a contiguous array of shape sh on s: v itself
// when it is one (and shares no memory with avoid), else v evaluated
// (broadcast to sh) into a new array, which done releases. done is never
// nil.
func operandArray[T Numeric](call string, v Operand[T], sh Shape, avoid *Array[T], s *device.Stream) (a *Array[T], done func(), err error) {
	if arr, ok := v.(*Array[T]); ok && arr != nil && !arr.c.IsZero() && arr.c.Contiguous() &&
		Shape(arr.c.Shape()).Equal(sh) && !arr.c.SharesBuffer(&avoid.c) {
		if err := arr.check(call); err != nil {
			return nil, nothing, err
		}
		return arr, nothing, nil
	}
	n := operandNode(v)
	if n == nil {
		return nil, nothing, fmt.Errorf("gpuarr.%s: %w", call, fusion.ErrNilExpr)
	}
	if n.Err() != nil {
		return nil, nothing, fmt.Errorf("gpuarr.%s: %w", call, n.Err())
	}
	if b, err := layout.Broadcast(n.Shape(), sh); err != nil || !Shape(b).Equal(sh) {
		return nil, nothing, arg.Shapef(call, "the values' shape %v does not broadcast to %v", n.Shape(), sh)
	}
	out, err := newArray[T](call, sh, s)
	if err != nil {
		return nil, nothing, err
	}
	if err := fusion.EvalInto(call, &out.c, n, s); err != nil {
		_ = out.Release()
		return nil, nothing, err
	}
	return out, releaser(out), nil
}

// Put writes values into x at flat indices, in place, as NumPy's put(x,
// indices, v): x.flat[indices[j]] = v[j] for every j, row-major. v may be
// an array or an expression broadcasting to the indices' shape (a Scalar
// writes one value everywhere). x must be contiguous; the call runs on the
// default stream of x's device unless an option says otherwise.
//
// Where indices repeat, which value lands is unspecified unless
// Deterministic() is given: then the last one does, as in NumPy's loop.
// Bad indices are as in Take (checked on the device and skipped, or
// Clip(), Wrap()).
func Put[T Numeric, I Integer](x *Array[T], indices *Array[I], v Operand[T], opts ...Option) error {
	const call = "Put"
	o, s, err := startIndexing(call, x, indices, opts, optIndexMode|optDeterministic)
	if err != nil {
		return err
	}
	if !x.c.Contiguous() {
		return stridedError(call, &x.c)
	}
	m, n := indices.c.Len(), x.c.Len()
	if m == 0 {
		return nil
	}
	if n == 0 {
		return emptyAxisError(call, x.c.Describe(), -1)
	}
	return scatter(call, s, x, indices, v, Shape{m}, kernels.Scatter{Mode: o.mode, Outer: 1, N: n, M: m, Inner: 1,
		Site: indexcheck.Site{Call: call, Axis: -1, Extent: n}, Deterministic: o.deterministic})
}

// IndexAdd adds values into x at indices along Axis(k) (axis 0 without it),
// in place: x[..., indices[j], ...] += values[..., j, ...], as PyTorch's
// index_add_ and NumPy's add.at(x, (slice(None),)*k + (indices,), values).
// indices is 1-D; values (an array or an expression) broadcasts to x's shape
// with axis k of len(indices). Repeated indices all add. x must be
// contiguous; the call runs on the default stream of x's device unless an
// option says otherwise.
//
// The adds are atomic, so float sums over repeated indices depend on
// timing; Deterministic() adds them in index order instead (sorting the
// indices first), as NumPy's add.at does. Integers wrap. Bad indices are
// as in Take.
func IndexAdd[T Numeric, I Integer](x *Array[T], indices *Array[I], values Operand[T], opts ...Option) error {
	const call = "IndexAdd"
	o, s, err := startIndexing(call, x, indices, opts, optAxis|optDeterministic)
	if err != nil {
		return err
	}
	if !x.c.Contiguous() {
		return stridedError(call, &x.c)
	}
	if len(indices.c.Shape()) != 1 {
		return arg.Shapef(call, "indices %s must be 1-D", indices.c.Describe())
	}
	xs := x.c.Shape()
	if len(xs) == 0 {
		return arg.Shapef(call, "x is a scalar; IndexAdd needs an axis")
	}
	k, err := normAxis(call, o.axis, xs)
	if err != nil {
		return err
	}
	outer, n, inner := around(xs, k)
	m := indices.c.Len()
	srcShape := append(Shape{}, xs...)
	srcShape[k] = m
	if srcShape.Len() == 0 {
		return nil
	}
	if n == 0 {
		return emptyAxisError(call, x.c.Describe(), k)
	}
	return scatter(call, s, x, indices, values, srcShape, kernels.Scatter{Mode: kernels.ModeRaise, Add: true, Outer: outer, N: n, M: m, Inner: inner,
		Site: indexcheck.Site{Call: call, Axis: k, Extent: n}, Deterministic: o.deterministic})
}
