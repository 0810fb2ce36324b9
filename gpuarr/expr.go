package gpuarr

import (
	"math"
	"unsafe"

	"github.com/gpuarr/gpuarr/device/dtype"
	"github.com/gpuarr/gpuarr/internal/fusion/expr"
	"github.com/gpuarr/gpuarr/internal/lifetime"
)

// Expr is a lazy elementwise expression whose elements have type T: a tree
// of operations on arrays and scalars that nothing has computed yet.
// Building one allocates a few small nodes and launches nothing; Eval or
// EvalInto compiles the whole tree into one fused kernel (cached by the
// tree's shape and types, not by scalar values) and runs it:
//
//	// y = a*x + b, one kernel, one pass over memory
//	y, err := gpuarr.Eval(gpuarr.FMA(a, x, b))
//
// An Expr is a value; reusing it in several places computes it in each
// (within one kernel, a shared subtree is computed once per element).
// Errors found while building (mismatched shapes, released arrays) are
// kept in the expression and returned by the call that materializes it.
type Expr[T Numeric] struct{ n *node }

// Operand is anything an expression can take as an input of element type
// T: an *Array[T] or an Expr[T]. Scalars become operands with Scalar.
type Operand[T Numeric] interface {
	operand() Expr[T]
}

func (e Expr[T]) operand() Expr[T] { return e }

func (a *Array[T]) operand() Expr[T] {
	if a == nil {
		return Expr[T]{&node{err: errNilArray}}
	}
	if a.c.IsZero() {
		return Expr[T]{&node{err: errZeroArrayExpr}}
	}
	return Expr[T]{arrayNode(&a.c, dtype.Of[T]())}
}

// Shape is the shape the expression evaluates to (its operands
// broadcast together); nil when building it failed.
func (e Expr[T]) Shape() Shape {
	if e.n == nil || e.n.err != nil {
		return nil
	}
	return append(Shape(nil), e.n.shape...)
}

// Err is the error building the expression met, if any (Eval returns it).
func (e Expr[T]) Err() error {
	if e.n == nil {
		return errNilExpr
	}
	return e.n.err
}

// Mask is a lazy boolean expression: the result of a comparison, the
// condition of Where. It cannot be stored; turn it into numbers with
// FromMask.
type Mask struct{ n *node }

// node is one operation of an expression tree; leaves are arrays,
// scalars, constants and random streams.
type node struct {
	op    expr.Op
	t     dtype.DType
	args  [3]*node
	shape Shape
	err   error

	arr   *lifetime.Handle // OpInput
	bits  uint64           // OpScalar: the value's ParamType bits
	value float64          // OpConst
	rnd   *randomSrc       // OpRandom
}

// arrayNode is the leaf for an array. It keeps the array alive (through
// its core) until the expression is gone; a release before Eval is caught
// when Eval claims the array.
func arrayNode(c *lifetime.Handle, t dtype.DType) *node {
	if n := (*node)(c.Leaf()); n != nil {
		return n
	}
	n := &node{op: expr.OpInput, t: t, arr: c, shape: c.Shape()}
	return (*node)(c.SetLeaf(unsafe.Pointer(n)))
}

// scalarBits is v's kernel-parameter bits for type t (dtype.DType.ParamType).
func scalarBits[T Numeric](v T, t dtype.DType) uint64 {
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
