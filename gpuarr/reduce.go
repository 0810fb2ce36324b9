package gpuarr

import (
	"fmt"

	"github.com/gpuarr/gpuarr/device"
	"github.com/gpuarr/gpuarr/device/dtype"
	"github.com/gpuarr/gpuarr/internal/arg"
	"github.com/gpuarr/gpuarr/internal/fusion"
	"github.com/gpuarr/gpuarr/internal/fusion/expr"
)

// Reductions take any operand — an array or a whole expression, which is
// then computed inside the reduction kernel (fused map-reduce: Sum(Mul(x,
// x)) reads x once and writes nothing else) — and reduce all its
// elements, or the axes named by Axis options. They return a device
// array (shape Shape{} for a full reduction, read it with Item; KeepDims
// keeps the reduced axes with extent 1), so a reduction does not wait for
// the GPU. A reduction is one kernel, or two when the result has few
// elements (partial results, then a pass over them).
//
// Float sums, products and means accumulate in float64: each thread adds
// a run of at most 2²³ elements in order (for any array a GPU holds;
// 1,024 on the host), and runs combine in a tree. A float32 sum S of
// elements x is therefore within 2⁻²⁴·|S| + 2⁻³⁰·Σ|x| of the exact sum
// (the float64 error, at most (run + 64)·2⁻⁵³·Σ|x|, and one rounding to
// float32), where NumPy's pairwise float32 sum is only bounded by about
// (⌈log₂ n⌉ + 8)·2⁻²⁴·Σ|x|: float32 results are as accurate as a float64
// reference rounded to float32. A float64 sum is within
// (run + 64)·2⁻⁵³·Σ|x|. Integer sums and products accumulate in 64 bits,
// and means exactly (in 128 bits); Sum and Prod refuse integer types
// narrower than 64 bits, whose results could overflow them: SumAs and
// ProdAs name the result type, as NumPy's dtype= does. Min and Max are
// NaN when any element is NaN (NanMin and NanMax ignore NaNs). Sum of no
// elements is 0 and Prod 1; Min, Max, Mean, ArgMin, ArgMax, Var, Std and
// the other reductions with no identity are errors of no elements.

type (
	axisOption     int
	keepDimsOption struct{}
	ddofOption     int
)

func (axisOption) isOption()     {}
func (keepDimsOption) isOption() {}
func (ddofOption) isOption()     {}

func (o axisOption) String() string   { return fmt.Sprintf("gpuarr.Axis(%d)", int(o)) }
func (keepDimsOption) String() string { return "gpuarr.KeepDims()" }
func (o ddofOption) String() string   { return fmt.Sprintf("gpuarr.Ddof(%d)", int(o)) }

// Axis makes a reduction work along axis k (negative k counts from the
// last axis, as in NumPy). Several Axis options reduce along each axis
// they name (NumPy's axis=(0, 2)); without any, a reduction reduces every
// axis. The result has the operand's shape without the reduced axes (see
// KeepDims). An axis out of range fails with ErrShape, an axis named
// twice with ErrArgument; ArgMin and ArgMax take at most one Axis.
func Axis(k int) Option { return axisOption(k) }

// KeepDims makes a reduction keep each reduced axis in its result, with
// extent 1, so that the result broadcasts against the operand (NumPy's
// keepdims=True): Sub(x, Mean(x, Axis(1), KeepDims())) centres the rows
// of a matrix.
func KeepDims() Option { return keepDimsOption{} }

// Sum adds the elements: all of them, or along the axes Axis options
// name (KeepDims keeps those axes with extent 1). Every reduction takes
// these options, On and OnDevice, and no other.
//
// Floats accumulate in float64 and round once to T. int64 and uint64
// accumulate in 64 bits and wrap modulo 2⁶⁴ on overflow, as Go's + and
// NumPy's sum do. A sum of a narrower integer type (int8 … int32, uint8 …
// uint32) could overflow T: Sum refuses it with an error matching
// ErrArgument that names the alternatives, SumAs[int64] or SumAs[uint64]
// (NumPy's default result type), or SumAs[T] to wrap in T on purpose.
// The sum of no elements is 0.
func Sum[T Numeric](x Operand[T], opts ...Option) (*Array[T], error) {
	return reduceTo[T]("Sum", expr.Sum, operandNode(x), opts, true)
}

// SumAs adds the elements converted to R (as Cast converts them), like
// NumPy's sum(x, dtype=R), accumulating as Sum[R] does: SumAs[int64] of
// int8, int16 or int32 elements is exact (up to 2⁶³ in magnitude),
// SumAs[float64] of float32 elements returns the float64 sum without
// rounding it to float32,
// and SumAs[R] of a narrow integer type R wraps modulo R's range, since
// the call asks for R. Only R needs naming: gpuarr.SumAs[int64](x).
func SumAs[R, T Numeric](x Operand[T], opts ...Option) (*Array[R], error) {
	return reduceTo[R]("SumAs", expr.Sum, Cast[R](x).n, opts, false)
}

// Prod multiplies the elements, with Sum's rules: floats in float64,
// int64 and uint64 wrapping modulo 2⁶⁴ (as Go's * and NumPy's prod do),
// narrower integer types refused with an error matching ErrArgument (use
// ProdAs). The product of no elements is 1.
func Prod[T Numeric](x Operand[T], opts ...Option) (*Array[T], error) {
	return reduceTo[T]("Prod", expr.Prod, operandNode(x), opts, true)
}

// ProdAs multiplies the elements converted to R, like NumPy's prod(x,
// dtype=R): see SumAs.
func ProdAs[R, T Numeric](x Operand[T], opts ...Option) (*Array[R], error) {
	return reduceTo[R]("ProdAs", expr.Prod, Cast[R](x).n, opts, false)
}

// Min is the least element (NaN if any is NaN).
func Min[T Numeric](x Operand[T], opts ...Option) (*Array[T], error) {
	return reduceTo[T]("Min", expr.Min, operandNode(x), opts, false)
}

// Max is the greatest element (NaN if any is NaN).
func Max[T Numeric](x Operand[T], opts ...Option) (*Array[T], error) {
	return reduceTo[T]("Max", expr.Max, operandNode(x), opts, false)
}

// Mean is the average, in T. Floats: the float64 sum divided by the count
// in float64, rounded to T. Integers: the exact mean (the sum is kept in
// 128 bits, so it never overflows), truncated toward zero as Go's integer
// division truncates; the result is always within T's range. NumPy
// returns a float64 mean for integers: MeanAs[float64] does. The mean of
// no elements is an error.
func Mean[T Numeric](x Operand[T], opts ...Option) (*Array[T], error) {
	return reduceTo[T]("Mean", expr.Mean, operandNode(x), opts, false)
}

// MeanAs is the average as a float R, like NumPy's mean(x, dtype=R):
// MeanAs[float64] of integers is the exact mean rounded to float64
// (within an ulp; the sum is kept exactly in 128 bits), and of floats the
// float64 sum divided by the count, rounded to R. Only R needs naming:
// gpuarr.MeanAs[float64](x).
func MeanAs[R Float, T Numeric](x Operand[T], opts ...Option) (*Array[R], error) {
	return reduceTo[R]("MeanAs", expr.Mean, operandNode(x), opts, false)
}

// ArgMin is the position of the first least element: its flat position
// (row-major) over all elements, or its index along the one Axis given;
// a NaN counts as the least.
func ArgMin[T Numeric](x Operand[T], opts ...Option) (*Array[int64], error) {
	return reduceTo[int64]("ArgMin", expr.ArgMin, operandNode(x), opts, false)
}

// ArgMax is the position of the first greatest element (see ArgMin); a
// NaN counts as the greatest.
func ArgMax[T Numeric](x Operand[T], opts ...Option) (*Array[int64], error) {
	return reduceTo[int64]("ArgMax", expr.ArgMax, operandNode(x), opts, false)
}

// Item copies a one-element array's value to the host (waiting for the
// kernel that computes it, like any host read).
func (a *Array[T]) Item() (T, error) {
	var v [1]T
	if err := a.check("Item"); err != nil {
		return v[0], err
	}
	if a.c.Len() != 1 {
		return v[0], arg.Shapef("Item", "%s does not have exactly one element", a.c.Describe())
	}
	err := a.download("Item", v[:])
	return v[0], err
}

// reduceTo reduces n with r into a new array of R on the stream the
// options name. refuseNarrow refuses integer values narrower than 64 bits
// (Sum and Prod, whose result type is theirs).
func reduceTo[R Numeric](call string, r expr.ReduceOp, n *fusion.Node, opts []Option, refuseNarrow bool) (*Array[R], error) {
	also := optionKind(0)
	if r == expr.Var || r == expr.Std {
		also = optDdof
	}
	rd, err := readReduction(call, n, opts, also)
	if err != nil {
		return nil, err
	}
	if t := n.Type(); refuseNarrow && t.IsInt() && t.Size() < 8 {
		return nil, narrowError(call, t)
	}
	if r.IsArg() && rd.named > 1 {
		return nil, fmt.Errorf("gpuarr.%s takes at most one Axis (the position is an index along it), not %d: %w",
			call, rd.named, ErrArgument)
	}
	return runReduction[R](rd, r, n)
}

// reduction is what a reduction call's operand and options say: where it
// runs, what it reduces and the shape of its result.
type reduction struct {
	call     string
	s        *device.Stream
	space    Shape  // the operand's shape
	axes     uint64 // the reduced axes, a bit set
	named    int    // Axis options given
	order    [2]int // the first two axes named, in order (-1: none)
	keep     bool   // KeepDims
	ddof     int    // Ddof (Var, Std)
	outShape Shape
	glen     int // elements per group
}

// readReduction checks n and reads the options of a reduction call that
// takes Axis, KeepDims, the stream options and those of the kinds in
// also.
func readReduction(call string, n *fusion.Node, opts []Option, also optionKind) (*reduction, error) {
	if n == nil {
		return nil, fmt.Errorf("gpuarr.%s: %w", call, fusion.ErrNilExpr)
	}
	if n.Err() != nil {
		return nil, fmt.Errorf("gpuarr.%s: %w", call, n.Err())
	}
	s, err := streamTaking(call, opts, fusion.FirstDevice(n), optAxis|optKeepDims|also)
	if err != nil {
		return nil, err
	}
	rd := &reduction{call: call, s: s, space: n.Shape(), order: [2]int{-1, -1}}
	if rd.axes, rd.named, rd.keep, err = reduceAxes(call, opts, rd.space); err != nil {
		return nil, err
	}
	named := 0
	for _, o := range opts {
		switch o := o.(type) {
		case ddofOption:
			if o < 0 {
				return nil, fmt.Errorf("gpuarr.%s: %s: the degrees of freedom cannot be negative: %w", call, o, ErrArgument)
			}
			rd.ddof = int(o)
		case axisOption:
			if named < len(rd.order) {
				rd.order[named] = (int(o) + len(rd.space)) % max(len(rd.space), 1)
			}
			named++
		}
	}
	rd.shapes()
	return rd, nil
}

// shapes sets outShape and glen from space, axes and keep.
func (rd *reduction) shapes() {
	rd.outShape, rd.glen = make(Shape, 0, len(rd.space)), 1
	for d, e := range rd.space {
		switch {
		case rd.axes&(1<<d) == 0:
			rd.outShape = append(rd.outShape, e)
		case rd.keep:
			rd.outShape = append(rd.outShape, 1)
			rd.glen *= e
		default:
			rd.glen *= e
		}
	}
}

// keeping is rd with KeepDims on (for the steps of a composite
// reduction, whose intermediate results broadcast against the operand).
func (rd *reduction) keeping() *reduction {
	k := *rd
	k.keep = true
	k.shapes()
	return &k
}

// empty reports whether the groups have no elements while there are
// groups to fill.
func (rd *reduction) empty() bool { return rd.glen == 0 && rd.outShape.Len() > 0 }

// emptyError refuses reduction r of no elements.
func (rd *reduction) emptyError(what string) error {
	return arg.Shapef(rd.call, "%s of no elements (shape %v, %s) is undefined", what, rd.space, axesNote(rd.axes, rd.space))
}

// runReduction reduces n with r as rd says into a new array of R.
func runReduction[R Numeric](rd *reduction, r expr.ReduceOp, n *fusion.Node) (*Array[R], error) {
	if rd.empty() && r != expr.Sum && r != expr.Prod {
		return nil, rd.emptyError(r.String())
	}
	out, err := newArray[R](rd.call, rd.outShape, rd.s)
	if err != nil {
		return nil, err
	}
	count := rd.glen
	if r == expr.Var || r == expr.Std {
		count = max(rd.glen-rd.ddof, 0)
	}
	if err := fusion.Reduce(rd.call, r, dtype.Of[R](), &out.c, n, rd.space, rd.axes, rd.glen, count, rd.s); err != nil {
		_ = out.Release()
		return nil, err
	}
	return out, nil
}

// dropKept reshapes a result computed with KeepDims (extent 1 at the
// reduced axes) to rd's result shape, releasing it; it returns a itself
// when rd keeps the axes.
func dropKept[T Numeric](rd *reduction, a *Array[T]) (*Array[T], error) {
	if rd.keep {
		return a, nil
	}
	v, err := a.Reshape(rd.outShape)
	_ = a.Release()
	return v, err
}

// reduceAxes reads the Axis and KeepDims options of a reduction over
// space: the reduced axes as a bit set (every axis when no Axis is
// given) and how many Axis options named them.
func reduceAxes(call string, opts []Option, space Shape) (axes uint64, named int, keep bool, err error) {
	rank := len(space)
	for _, o := range opts {
		switch o := o.(type) {
		case axisOption:
			k := int(o)
			if k < 0 {
				k += rank
			}
			if k < 0 || k >= rank {
				return 0, 0, false, arg.Shapef(call, "axis %d out of range for shape %v (%d axes)", int(o), space, rank)
			}
			if axes&(1<<k) != 0 {
				return 0, 0, false, fmt.Errorf("gpuarr.%s: axis %d named twice (gpuarr.Axis(%d)): %w", call, k, int(o), ErrArgument)
			}
			axes |= 1 << k
			named++
		case keepDimsOption:
			keep = true
		}
	}
	if named == 0 && rank > 0 {
		axes = ^uint64(0) >> (64 - rank)
	}
	return axes, named, keep, nil
}

// axesNote names the reduced axes in messages.
func axesNote(axes uint64, space Shape) string {
	if axes == ^uint64(0)>>(64-max(len(space), 1)) || len(space) == 0 {
		return "all axes"
	}
	var list []int
	for d := range space {
		if axes&(1<<d) != 0 {
			list = append(list, d)
		}
	}
	if len(list) == 1 {
		return fmt.Sprintf("axis %d", list[0])
	}
	return fmt.Sprintf("axes %v", list)
}

// narrowError refuses Sum or Prod of an integer type narrower than 64
// bits, naming the calls that do what the user may mean.
func narrowError(call string, t dtype.DType) error {
	wide := "int64"
	if t.IsUnsigned() {
		wide = "uint64"
	}
	return fmt.Errorf("gpuarr.%s of %s elements could overflow %s, so it is refused: "+
		"use gpuarr.%sAs[%s] for a %s result (NumPy's default), or gpuarr.%sAs[%s] to wrap in %s on purpose: %w",
		call, t, t, call, wide, wide, call, t, t, ErrArgument)
}
