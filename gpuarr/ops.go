package gpuarr

import (
	"github.com/gpuarr/gpuarr/device/dtype"
	"github.com/gpuarr/gpuarr/internal/fusion"
	"github.com/gpuarr/gpuarr/internal/fusion/expr"
)

// The elementwise operations. Each builds a node; none computes anything.
// Binary operations broadcast their operands (NumPy's rules); shapes that
// cannot broadcast make an expression whose Eval fails with ErrShape
// naming both shapes. All operands of one operation have the same element
// type: convert with Cast.

func unary[T Numeric](op expr.Op, x Operand[T]) Expr[T] {
	return Expr[T]{fusion.Unary(op, operandNode(x), dtype.Of[T]())}
}

func binop[T Numeric](name string, op expr.Op, x, y Operand[T]) Expr[T] {
	return Expr[T]{fusion.Apply(name, op, dtype.Of[T](), operandNode(x), operandNode(y))}
}

func operandNode[T Numeric](x Operand[T]) *fusion.Node {
	if x == nil {
		return nil
	}
	return x.operand().n
}

// Scalar is the value v as an operand: it broadcasts to any shape, and
// travels as a kernel parameter, so x*2 and x*3 share one kernel.
func Scalar[T Numeric](v T) Expr[T] {
	t := dtype.Of[T]()
	return Expr[T]{fusion.Scalar(t, fusion.ScalarBits(v, t))}
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
	return Expr[T]{fusion.Apply("FMA", expr.OpFMA, dtype.Of[T](), operandNode(x), operandNode(y), operandNode(z))}
}

// Neg is -x (wrapping for unsigned types).
func Neg[T Numeric](x Operand[T]) Expr[T] {
	return unary(expr.OpNeg, x)
}

// Abs is |x|; the identity for unsigned types, and MinInt stays MinInt.
func Abs[T Numeric](x Operand[T]) Expr[T] {
	return unary(expr.OpAbs, x)
}

// Exp is eˣ.
func Exp[T Float](x Operand[T]) Expr[T] {
	return unary(expr.OpExp, x)
}

// Log is the natural logarithm (NaN below 0, -Inf at 0).
func Log[T Float](x Operand[T]) Expr[T] {
	return unary(expr.OpLog, x)
}

// Sqrt is the square root, correctly rounded.
func Sqrt[T Float](x Operand[T]) Expr[T] {
	return unary(expr.OpSqrt, x)
}

// Tanh is the hyperbolic tangent.
func Tanh[T Float](x Operand[T]) Expr[T] {
	return unary(expr.OpTanh, x)
}

// Sigmoid is 1 / (1 + e⁻ˣ), built from the operations above (it fuses
// like any expression).
func Sigmoid[T Float](x Operand[T]) Expr[T] {
	t := dtype.Of[T]()
	one := fusion.Const(t, 1)
	e := fusion.Unary(expr.OpExp, fusion.Unary(expr.OpNeg, operandNode(x), t), t)
	return Expr[T]{fusion.Apply("Sigmoid", expr.OpDiv, t, one, fusion.Apply("Sigmoid", expr.OpAdd, t, one, e))}
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
	return Expr[U]{fusion.Unary(expr.OpCast, n, to)}
}

func compare[T Numeric](name string, op expr.Op, x, y Operand[T]) Mask {
	return Mask{fusion.Apply(name, op, dtype.Bool, operandNode(x), operandNode(y))}
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
func (m Mask) And(o Mask) Mask {
	return Mask{fusion.Apply("Mask.And", expr.OpAnd, dtype.Bool, m.n, o.n)}
}

// Or is the mask m || o.
func (m Mask) Or(o Mask) Mask { return Mask{fusion.Apply("Mask.Or", expr.OpOr, dtype.Bool, m.n, o.n)} }

// Not is the mask !m.
func (m Mask) Not() Mask { return Mask{fusion.Unary(expr.OpNot, m.n, dtype.Bool)} }

// Err is the error building the mask met, if any.
func (m Mask) Err() error { return Expr[uint8]{m.n}.Err() }

// Where picks x where m is true and y elsewhere (all three broadcast).
func Where[T Numeric](m Mask, x, y Operand[T]) Expr[T] {
	return Expr[T]{fusion.Apply("Where", expr.OpWhere, dtype.Of[T](), m.n, operandNode(x), operandNode(y))}
}

// FromMask is 1 where m is true and 0 elsewhere.
func FromMask[T Numeric](m Mask) Expr[T] {
	return Expr[T]{fusion.Unary(expr.OpCast, m.n, dtype.Of[T]())}
}
