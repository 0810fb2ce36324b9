package gpuarr

import (
	"github.com/gpuarr/gpuarr/device/dtype"
	"github.com/gpuarr/gpuarr/internal/fusion"
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
type Expr[T Element] struct{ n *fusion.Node }

// Operand is anything an expression can take as an input of element type
// T: an *Array[T] or an Expr[T]. Scalars become operands with Scalar.
type Operand[T Element] interface {
	operand() Expr[T]
}

func (e Expr[T]) operand() Expr[T] { return e }

func (a *Array[T]) operand() Expr[T] {
	if a == nil {
		return Expr[T]{fusion.Failed(errNilArray)}
	}
	if a.c.IsZero() {
		return Expr[T]{fusion.Failed(errZeroArrayExpr)}
	}
	return Expr[T]{fusion.Leaf(&a.c, dtype.Of[T]())}
}

// Shape is the shape the expression evaluates to (its operands
// broadcast together); nil when building it failed.
func (e Expr[T]) Shape() Shape {
	if e.n == nil || e.n.Err() != nil {
		return nil
	}
	return append(Shape(nil), e.n.Shape()...)
}

// Err is the error building the expression met, if any (Eval returns it).
func (e Expr[T]) Err() error {
	if e.n == nil {
		return fusion.ErrNilExpr
	}
	return e.n.Err()
}

// Mask is a lazy boolean expression: the result of a comparison, the
// condition of Where. It is an Operand[bool]: Eval stores it as an
// Array[bool] (one byte an element, 0 or 1), and a bool array or
// Expr[bool] serves wherever a mask does. FromMask and Cast turn it into
// numbers.
type Mask struct{ n *fusion.Node }

func (m Mask) operand() Expr[bool] { return Expr[bool]{m.n} }
