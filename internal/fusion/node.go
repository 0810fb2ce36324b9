package fusion

import (
	"fmt"
	"math"
	"unsafe"

	"github.com/gpuarr/gpuarr/device"
	"github.com/gpuarr/gpuarr/device/dtype"
	"github.com/gpuarr/gpuarr/device/dtype/half"
	"github.com/gpuarr/gpuarr/internal/arg"
	"github.com/gpuarr/gpuarr/internal/fusion/expr"
	"github.com/gpuarr/gpuarr/internal/layout"
	"github.com/gpuarr/gpuarr/internal/lifetime"
)

// Node is one operation of an expression tree; leaves are arrays,
// scalars, constants and random streams. A Node is immutable once made;
// trees share subtrees freely. A Node whose Err is not nil stands for an
// expression whose building failed: every Node made from it carries the
// error, which the evaluation returns.
type Node struct {
	op    expr.Op
	t     dtype.DType
	args  [3]*Node
	shape []int
	err   error

	arr    *lifetime.Handle // OpInput
	bits   uint64           // OpScalar: the value's ParamType bits (a half's float32 bits; a complex number's real part's)
	im     uint64           // OpScalar of a complex type: the imaginary part's bits
	value  float64          // OpConst (a complex number's real part)
	ivalue float64          // OpConst of a complex type: the imaginary part
	rnd    *random          // OpRandom
	// OpIota: the shape whose row-major positions the node counts (its
	// own shape; kept apart so that the leaf's layout is explicit).
	iota []int
}

// random is one draw of random numbers: a Philox stream addressed by
// element position.
type random struct {
	seed, stream uint64
	normal       bool
	shape        []int
}

// ErrNilExpr is the error of a missing operand: the zero Expr or Mask.
var ErrNilExpr = fmt.Errorf("zero Expr or Mask (build one from arrays with the expression functions): %w", arg.ErrArgument)

// Err is the error building n met, or nil.
func (n *Node) Err() error { return n.err }

// Shape is the shape n evaluates to; callers must not change it.
func (n *Node) Shape() []int { return n.shape }

// Type is the type of n's values.
func (n *Node) Type() dtype.DType { return n.t }

// Failed is a node standing for an expression whose building failed.
func Failed(err error) *Node { return &Node{err: err} }

// Leaf is the node reading array h as values of type t. There is one per
// handle, made on first use, so using an array as an operand allocates
// nothing; it keeps the array alive until the expression is gone (a
// release before the evaluation is caught when the evaluation claims the
// array).
func Leaf(h *lifetime.Handle, t dtype.DType) *Node {
	if n := (*Node)(h.Leaf()); n != nil {
		return n
	}
	n := &Node{op: expr.OpInput, t: t, arr: h, shape: h.Shape()}
	return (*Node)(h.SetLeaf(unsafe.Pointer(n)))
}

// Scalar is a value of type t (a Number type or Bool), bits as ScalarBits
// gives them: it broadcasts to any shape and travels as a kernel
// parameter, so expressions that differ only in scalar values share one
// kernel. ScalarOf makes scalars of every element type.
func Scalar(t dtype.DType, bits uint64) *Node {
	return &Node{op: expr.OpScalar, t: t, bits: bits, shape: []int{}}
}

// ScalarBits is v's kernel-parameter bits as a value of type t: the float's
// bits for a float, the integer sign- or zero-extended otherwise.
func ScalarBits[T dtype.Number](v T, t dtype.DType) uint64 {
	switch {
	case t == dtype.Float32:
		return uint64(math.Float32bits(float32(v)))
	case t == dtype.Float64:
		return math.Float64bits(float64(v))
	case t.IsSigned():
		return uint64(int64(v))
	}
	return uint64(v)
}

// ScalarOf is v as a scalar operand (see Scalar) of type dtype.Of[T]:
// a half travels as its float32 value, a complex number as its two
// parts.
func ScalarOf[T dtype.Element](v T) *Node {
	t := dtype.Of[T]()
	n := &Node{op: expr.OpScalar, t: t, shape: []int{}}
	p := unsafe.Pointer(&v)
	f32 := func(f float32) uint64 { return uint64(math.Float32bits(f)) }
	switch t {
	case dtype.Bool:
		if *(*bool)(p) {
			n.bits = 1
		}
	case dtype.Int8:
		n.bits = uint64(int64(*(*int8)(p)))
	case dtype.Int16:
		n.bits = uint64(int64(*(*int16)(p)))
	case dtype.Int32:
		n.bits = uint64(int64(*(*int32)(p)))
	case dtype.Uint8:
		n.bits = uint64(*(*uint8)(p))
	case dtype.Uint16:
		n.bits = uint64(*(*uint16)(p))
	case dtype.Uint32, dtype.Float32:
		n.bits = uint64(*(*uint32)(p))
	case dtype.Int64, dtype.Uint64, dtype.Float64:
		n.bits = *(*uint64)(p)
	case dtype.Float16:
		n.bits = f32(half.F16ToF32(*(*uint16)(p)))
	case dtype.BFloat16:
		n.bits = f32(half.BF16ToF32(*(*uint16)(p)))
	case dtype.Complex64:
		c := *(*complex64)(p)
		n.bits, n.im = f32(real(c)), f32(imag(c))
	case dtype.Complex128:
		c := *(*complex128)(p)
		n.bits, n.im = math.Float64bits(real(c)), math.Float64bits(imag(c))
	}
	return n
}

// Const is the constant v of type t, compiled into the kernel (a half
// rounded to t; a complex type's real part, its imaginary part 0).
func Const(t dtype.DType, v float64) *Node {
	return &Node{op: expr.OpConst, t: t, value: v, shape: []int{}}
}

// ConstComplex is the complex constant re + im·i of complex type t.
func ConstComplex(t dtype.DType, re, im float64) *Node {
	return &Node{op: expr.OpConst, t: t, value: re, ivalue: im, shape: []int{}}
}

// Random is a draw of uniform (or normal) numbers of type t and shape sh
// from Philox stream stream of seed (see expr.InputKind); sh is
// kept.
func Random(t dtype.DType, seed, stream uint64, normal bool, sh []int) *Node {
	src := &random{seed: seed, stream: stream, normal: normal, shape: sh}
	return &Node{op: expr.OpRandom, t: t, rnd: src, shape: sh}
}

// Iota is the int64 position of each element within shape sh, row-major
// (0 … len−1), broadcasting like an array of shape sh: Iota([m 1]) over
// an [m n] expression is each element's row, Iota([n]) its column. sh is
// kept.
func Iota(sh []int) *Node {
	return &Node{op: expr.OpIota, t: dtype.Int64, iota: sh, shape: sh}
}

// Unary is op applied to x, with result type t. A nil x is ErrNilExpr;
// x's error carries over.
func Unary(op expr.Op, x *Node, t dtype.DType) *Node {
	if x == nil {
		return Failed(ErrNilExpr)
	}
	if x.err == nil {
		if err := operandTypes("", op, t, x); err != nil {
			return Failed(err)
		}
	}
	return &Node{op: op, t: t, args: [3]*Node{x}, shape: x.shape, err: x.err}
}

// Apply is op applied to xs (one to three operands, broadcast together
// with NumPy's rules), with result type t. Operands that cannot broadcast
// make a node whose error matches arg.ErrShape and names call; operands
// of types op does not take together (Go converts nothing implicitly) one
// matching arg.ErrArgument that names both types and the Cast to write; a
// nil operand is ErrNilExpr; an operand's error carries over.
func Apply(call string, op expr.Op, t dtype.DType, xs ...*Node) *Node {
	n := &Node{op: op, t: t}
	for _, x := range xs {
		if x == nil {
			return Failed(ErrNilExpr)
		}
		if x.err != nil {
			return Failed(x.err)
		}
	}
	if err := operandTypes(call, op, t, xs...); err != nil {
		return Failed(err)
	}
	for i, x := range xs {
		n.args[i] = x
		if i == 0 {
			n.shape = x.shape
			continue
		}
		sh, err := layout.Broadcast(n.shape, x.shape)
		if err != nil {
			return Failed(fmt.Errorf("gpuarr.%s: %w", call, err))
		}
		n.shape = sh
	}
	return n
}

// FirstDevice is the device of the first array in n's tree, or nil.
func FirstDevice(n *Node) *device.Device {
	if n == nil {
		return nil
	}
	if n.op == expr.OpInput && n.arr != nil {
		return n.arr.Device()
	}
	for _, a := range n.args {
		if d := FirstDevice(a); d != nil {
			return d
		}
	}
	return nil
}

// operandTypes checks the types of op's operands xs against each other
// and its result type t, by op's class: Go converts no types implicitly,
// so an expression mixing them is an error naming both types and the
// conversion to write.
func operandTypes(call string, op expr.Op, t dtype.DType, xs ...*Node) error {
	if call == "" {
		call = op.String()
	}
	mixed := func(a, b dtype.DType, want dtype.DType) error {
		return fmt.Errorf("gpuarr.%s: operands of types %s and %s: Go converts no types implicitly; convert with gpuarr.Cast[%s]: %w",
			call, a, b, want, arg.ErrArgument)
	}
	same := func(from int, want dtype.DType) error {
		for _, x := range xs[from:] {
			if x.t != want {
				return mixed(want, x.t, want)
			}
		}
		return nil
	}
	switch op.Info().Class {
	case expr.Numeric, expr.Float, expr.Logical, expr.Integer:
		return same(0, t)
	case expr.Compare:
		return same(1, xs[0].t)
	case expr.Select:
		if xs[0].t != dtype.Bool {
			return fmt.Errorf("gpuarr.%s: the condition has type %s, not bool: %w", call, xs[0].t, arg.ErrArgument)
		}
		return same(1, t)
	case expr.Part:
		if expr.PartType(xs[0].t) != t {
			return fmt.Errorf("gpuarr.%s: the part of a %s value has type %s, not %s: %w", call, xs[0].t, expr.PartType(xs[0].t), t, arg.ErrArgument)
		}
	case expr.Compose:
		if err := same(1, xs[0].t); err != nil {
			return err
		}
		if expr.ComplexOf(xs[0].t) != t {
			return fmt.Errorf("gpuarr.%s: parts of type %s make %s values, not %s: %w", call, xs[0].t, expr.ComplexOf(xs[0].t), t, arg.ErrArgument)
		}
	}
	return nil
}
