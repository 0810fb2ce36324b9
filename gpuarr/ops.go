package gpuarr

import (
	"fmt"

	"github.com/gpuarr/gpuarr/device/dtype"
	"github.com/gpuarr/gpuarr/internal/fusion/expr"
	"github.com/gpuarr/gpuarr/internal/layout"
)

// The elementwise operations. Each builds a node; none computes anything.
// Binary operations broadcast their operands (NumPy's rules); shapes that
// cannot broadcast make an expression whose Eval fails with ErrShape
// naming both shapes. All operands of one operation have the same element
// type: convert with Cast.

func unary(op expr.Op, x *node, t dtype.DType) *node {
	if x == nil {
		return &node{err: errNilExpr}
	}
	n := &node{op: op, t: t, args: [3]*node{x}, shape: x.shape, err: x.err}
	return n
}

func nary(name string, op expr.Op, t dtype.DType, xs ...*node) *node {
	n := &node{op: op, t: t}
	for i, x := range xs {
		if x == nil {
			return &node{err: errNilExpr}
		}
		if x.err != nil {
			return &node{err: x.err}
		}
		n.args[i] = x
		if i == 0 {
			n.shape = x.shape
			continue
		}
		sh, err := layout.Broadcast(n.shape, x.shape)
		if err != nil {
			return &node{err: fmt.Errorf("gpuarr.%s: %w", name, err)}
		}
		n.shape = sh
	}
	return n
}

func binop[T Numeric](name string, op expr.Op, x, y Operand[T]) Expr[T] {
	return Expr[T]{nary(name, op, dtype.Of[T](), operandNode(x), operandNode(y))}
}

func operandNode[T Numeric](x Operand[T]) *node {
	if x == nil {
		return nil
	}
	return x.operand().n
}

// Scalar is the value v as an operand: it broadcasts to any shape, and
// travels as a kernel parameter, so x*2 and x*3 share one kernel.
func Scalar[T Numeric](v T) Expr[T] {
	t := dtype.Of[T]()
	return Expr[T]{&node{op: expr.OpScalar, t: t, bits: scalarBits(v, t), shape: Shape{}}}
}

func constant(t dtype.DType, v float64) *node {
	return &node{op: expr.OpConst, t: t, value: v, shape: Shape{}}
}

// Add is x + y.
func Add[T Numeric](x, y Operand[T]) Expr[T] { return binop("Add", expr.OpAdd, x, y) }

// Sub is x - y.
func Sub[T Numeric](x, y Operand[T]) Expr[T] { return binop("Sub", expr.OpSub, x, y) }

// Mul is x * y.
func Mul[T Numeric](x, y Operand[T]) Expr[T] { return binop("Mul", expr.OpMul, x, y) }

// Div is x / y. Integer division truncates toward zero; an integer divided
// by zero gives 0 and MinInt / -1 gives MinInt (no panic on a device).
func Div[T Numeric](x, y Operand[T]) Expr[T] { return binop("Div", expr.OpDiv, x, y) }

// Minimum is the elementwise smaller of x and y; NaN if either is NaN.
func Minimum[T Numeric](x, y Operand[T]) Expr[T] { return binop("Minimum", expr.OpMin, x, y) }

// Maximum is the elementwise larger of x and y; NaN if either is NaN.
func Maximum[T Numeric](x, y Operand[T]) Expr[T] { return binop("Maximum", expr.OpMax, x, y) }

// Pow is x raised to y, with math.Pow's special cases.
func Pow[T Float](x, y Operand[T]) Expr[T] { return binop("Pow", expr.OpPow, x, y) }

// FMA is x*y + z; for floats with one rounding (fused multiply-add).
func FMA[T Numeric](x, y, z Operand[T]) Expr[T] {
	return Expr[T]{nary("FMA", expr.OpFMA, dtype.Of[T](), operandNode(x), operandNode(y), operandNode(z))}
}

// Neg is -x (wrapping for unsigned types).
func Neg[T Numeric](x Operand[T]) Expr[T] {
	return Expr[T]{unary(expr.OpNeg, operandNode(x), dtype.Of[T]())}
}

// Abs is |x|; the identity for unsigned types, and MinInt stays MinInt.
func Abs[T Numeric](x Operand[T]) Expr[T] {
	return Expr[T]{unary(expr.OpAbs, operandNode(x), dtype.Of[T]())}
}

// Exp is eˣ.
func Exp[T Float](x Operand[T]) Expr[T] {
	return Expr[T]{unary(expr.OpExp, operandNode(x), dtype.Of[T]())}
}

// Log is the natural logarithm (NaN below 0, -Inf at 0).
func Log[T Float](x Operand[T]) Expr[T] {
	return Expr[T]{unary(expr.OpLog, operandNode(x), dtype.Of[T]())}
}

// Sqrt is the square root, correctly rounded.
func Sqrt[T Float](x Operand[T]) Expr[T] {
	return Expr[T]{unary(expr.OpSqrt, operandNode(x), dtype.Of[T]())}
}

// Tanh is the hyperbolic tangent.
func Tanh[T Float](x Operand[T]) Expr[T] {
	return Expr[T]{unary(expr.OpTanh, operandNode(x), dtype.Of[T]())}
}

// Sigmoid is 1 / (1 + e⁻ˣ), built from the operations above (it fuses
// like any expression).
func Sigmoid[T Float](x Operand[T]) Expr[T] {
	t := dtype.Of[T]()
	one := constant(t, 1)
	e := unary(expr.OpExp, unary(expr.OpNeg, operandNode(x), t), t)
	return Expr[T]{nary("Sigmoid", expr.OpDiv, t, one, nary("Sigmoid", expr.OpAdd, t, one, e))}
}

// Clamp limits x to [lo, hi]: Minimum(Maximum(x, lo), hi).
func Clamp[T Numeric](x Operand[T], lo, hi T) Expr[T] {
	return Minimum(Maximum(x, Scalar(lo)), Scalar(hi))
}

// Cast converts x's elements to U: integers wrap when narrowed; floats
// round to nearest; floats become integers by truncation toward zero,
// saturating at U's range, NaN becoming 0.
//
//	h := gpuarr.Cast[float64](x) // x an *Array[float32]
func Cast[U, T Numeric](x Operand[T]) Expr[U] {
	from, to := dtype.Of[T](), dtype.Of[U]()
	n := operandNode(x)
	if from == to {
		return Expr[U]{n}
	}
	return Expr[U]{unary(expr.OpCast, n, to)}
}

func compare[T Numeric](name string, op expr.Op, x, y Operand[T]) Mask {
	return Mask{nary(name, op, dtype.Bool, operandNode(x), operandNode(y))}
}

// Less is the mask x < y. Comparisons with NaN are false (NotEqual: true).
func Less[T Numeric](x, y Operand[T]) Mask { return compare("Less", expr.OpLt, x, y) }

// LessEqual is the mask x <= y.
func LessEqual[T Numeric](x, y Operand[T]) Mask { return compare("LessEqual", expr.OpLe, x, y) }

// Greater is the mask x > y.
func Greater[T Numeric](x, y Operand[T]) Mask { return compare("Greater", expr.OpGt, x, y) }

// GreaterEqual is the mask x >= y.
func GreaterEqual[T Numeric](x, y Operand[T]) Mask { return compare("GreaterEqual", expr.OpGe, x, y) }

// Equal is the mask x == y.
func Equal[T Numeric](x, y Operand[T]) Mask { return compare("Equal", expr.OpEq, x, y) }

// NotEqual is the mask x != y.
func NotEqual[T Numeric](x, y Operand[T]) Mask { return compare("NotEqual", expr.OpNe, x, y) }

// And is the mask m && o.
func (m Mask) And(o Mask) Mask { return Mask{nary("Mask.And", expr.OpAnd, dtype.Bool, m.n, o.n)} }

// Or is the mask m || o.
func (m Mask) Or(o Mask) Mask { return Mask{nary("Mask.Or", expr.OpOr, dtype.Bool, m.n, o.n)} }

// Not is the mask !m.
func (m Mask) Not() Mask { return Mask{unary(expr.OpNot, m.n, dtype.Bool)} }

// Err is the error building the mask met, if any.
func (m Mask) Err() error { return Expr[uint8]{m.n}.Err() }

// Where picks x where m is true and y elsewhere (all three broadcast).
func Where[T Numeric](m Mask, x, y Operand[T]) Expr[T] {
	return Expr[T]{nary("Where", expr.OpWhere, dtype.Of[T](), m.n, operandNode(x), operandNode(y))}
}

// FromMask is 1 where m is true and 0 elsewhere.
func FromMask[T Numeric](m Mask) Expr[T] { return Expr[T]{unary(expr.OpCast, m.n, dtype.Of[T]())} }
