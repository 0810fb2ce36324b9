package gpuarr

import (
	"fmt"

	"github.com/gpuarr/gpuarr/device/dtype"
	"github.com/gpuarr/gpuarr/internal/fusion"
	"github.com/gpuarr/gpuarr/internal/fusion/expr"
)

// The elementwise operations. Each builds a node; none computes anything.
// Binary operations broadcast their operands (NumPy's rules); shapes that
// cannot broadcast make an expression whose Eval fails with ErrShape
// naming both shapes. All operands of one operation have the same element
// type: convert with Cast. Float16 and BFloat16 compute in float32 and
// round each operation's result to nearest even; complex numbers compute
// as NumPy computes them (Mul and Div by its formulas).

func unary[T Element](op expr.Op, x Operand[T]) Expr[T] {
	return Expr[T]{fusion.Unary(op, operandNode(x), dtype.Of[T]())}
}

func binop[T Element](name string, op expr.Op, x, y Operand[T]) Expr[T] {
	return Expr[T]{fusion.Apply(name, op, dtype.Of[T](), operandNode(x), operandNode(y))}
}

func operandNode[T Element](x Operand[T]) *fusion.Node {
	if x == nil {
		return nil
	}
	return x.operand().n
}

// Scalar is the value v as an operand: it broadcasts to any shape, and
// travels as a kernel parameter, so x*2 and x*3 share one kernel.
func Scalar[T Element](v T) Expr[T] {
	return Expr[T]{fusion.ScalarOf(v)}
}

// Add is x + y.
func Add[T Number](x, y Operand[T]) Expr[T] { return binop("Add", expr.OpAdd, x, y) }

// Sub is x - y.
func Sub[T Number](x, y Operand[T]) Expr[T] { return binop("Sub", expr.OpSub, x, y) }

// Mul is x * y.
func Mul[T Number](x, y Operand[T]) Expr[T] { return binop("Mul", expr.OpMul, x, y) }

// Div is x / y. Integer division truncates toward zero; an integer divided
// by zero gives 0 and MinInt / -1 gives MinInt (no panic on a device).
// Complex division is NumPy's (Smith's method).
func Div[T Number](x, y Operand[T]) Expr[T] { return binop("Div", expr.OpDiv, x, y) }

// Minimum is the elementwise smaller of x and y; NaN if either is NaN.
func Minimum[T RealNumber](x, y Operand[T]) Expr[T] { return binop("Minimum", expr.OpMin, x, y) }

// Maximum is the elementwise larger of x and y; NaN if either is NaN.
func Maximum[T RealNumber](x, y Operand[T]) Expr[T] { return binop("Maximum", expr.OpMax, x, y) }

// Pow is x raised to y, with math.Pow's special cases.
func Pow[T Floating](x, y Operand[T]) Expr[T] { return binop("Pow", expr.OpPow, x, y) }

// FMA is x*y + z; for floats with one rounding (fused multiply-add; for
// halves in float32, then rounded to T); for complex numbers Add(Mul(x,
// y), z).
func FMA[T Number](x, y, z Operand[T]) Expr[T] {
	return Expr[T]{fusion.Apply("FMA", expr.OpFMA, dtype.Of[T](), operandNode(x), operandNode(y), operandNode(z))}
}

// Neg is -x (wrapping for unsigned types).
func Neg[T Number](x Operand[T]) Expr[T] {
	return unary(expr.OpNeg, x)
}

// Abs is |x|; the identity for unsigned types, and MinInt stays MinInt.
// The magnitude of a complex number is ComplexAbs.
func Abs[T RealNumber](x Operand[T]) Expr[T] {
	return unary(expr.OpAbs, x)
}

// Exp is eˣ.
func Exp[T Floating](x Operand[T]) Expr[T] {
	return unary(expr.OpExp, x)
}

// Log is the natural logarithm (NaN below 0, -Inf at 0).
func Log[T Floating](x Operand[T]) Expr[T] {
	return unary(expr.OpLog, x)
}

// Sqrt is the square root, correctly rounded.
func Sqrt[T Floating](x Operand[T]) Expr[T] {
	return unary(expr.OpSqrt, x)
}

// Tanh is the hyperbolic tangent.
func Tanh[T Floating](x Operand[T]) Expr[T] {
	return unary(expr.OpTanh, x)
}

// Sigmoid is 1 / (1 + e⁻ˣ), built from the operations above (it fuses
// like any expression).
func Sigmoid[T Floating](x Operand[T]) Expr[T] {
	t := dtype.Of[T]()
	one := fusion.Const(t, 1)
	e := fusion.Unary(expr.OpExp, fusion.Unary(expr.OpNeg, operandNode(x), t), t)
	return Expr[T]{fusion.Apply("Sigmoid", expr.OpDiv, t, one, fusion.Apply("Sigmoid", expr.OpAdd, t, one, e))}
}

// Clamp limits x to [lo, hi]: Minimum(Maximum(x, lo), hi).
func Clamp[T RealNumber](x Operand[T], lo, hi T) Expr[T] {
	return Minimum(Maximum(x, Scalar(lo)), Scalar(hi))
}

// Cast converts x's elements to U: integers wrap when narrowed; floats
// round to nearest (to a 16-bit float once, from float32 or float64;
// integers through float64); floats become integers by truncation toward
// zero, saturating at U's range, NaN becoming 0; numbers become bool as x
// != 0, bool becomes 0 or 1; a real number becomes a complex one with
// imaginary part 0, and complex types convert each part. A complex
// number does not become a real one (Go has no such conversion, and
// NumPy's drops the imaginary part with only a warning): the expression
// fails with ErrArgument naming Real, which takes the real part.
//
//	h := gpuarr.Cast[float64](x) // x an *Array[float32]
func Cast[U, T Element](x Operand[T]) Expr[U] {
	from, to := dtype.Of[T](), dtype.Of[U]()
	n := operandNode(x)
	switch {
	case from == to:
		return Expr[U]{n}
	case from.IsComplex() && !to.IsComplex():
		return Expr[U]{fusion.Failed(fmt.Errorf("gpuarr.Cast: %s to %s would drop the imaginary part: take gpuarr.Real[%s](x) (Go's real), "+
			"or gpuarr.ComplexAbs, then Cast that: %w", from, to, expr.PartType(from), ErrArgument))}
	}
	return Expr[U]{fusion.Unary(expr.OpCast, n, to)}
}

func compare[T Element](name string, op expr.Op, x, y Operand[T]) Mask {
	return Mask{fusion.Apply(name, op, dtype.Bool, operandNode(x), operandNode(y))}
}

// Less is the mask x < y. Comparisons with NaN are false (NotEqual: true).
func Less[T Ordered](x, y Operand[T]) Mask { return compare("Less", expr.OpLt, x, y) }

// LessEqual is the mask x <= y.
func LessEqual[T Ordered](x, y Operand[T]) Mask { return compare("LessEqual", expr.OpLe, x, y) }

// Greater is the mask x > y.
func Greater[T Ordered](x, y Operand[T]) Mask { return compare("Greater", expr.OpGt, x, y) }

// GreaterEqual is the mask x >= y.
func GreaterEqual[T Ordered](x, y Operand[T]) Mask { return compare("GreaterEqual", expr.OpGe, x, y) }

// Equal is the mask x == y.
func Equal[T Element](x, y Operand[T]) Mask { return compare("Equal", expr.OpEq, x, y) }

// NotEqual is the mask x != y.
func NotEqual[T Element](x, y Operand[T]) Mask { return compare("NotEqual", expr.OpNe, x, y) }

// And is the mask m && o; o is a Mask, a bool array or an Expr[bool].
func (m Mask) And(o Operand[bool]) Mask {
	return Mask{fusion.Apply("Mask.And", expr.OpAnd, dtype.Bool, m.n, operandNode(o))}
}

// Or is the mask m || o.
func (m Mask) Or(o Operand[bool]) Mask {
	return Mask{fusion.Apply("Mask.Or", expr.OpOr, dtype.Bool, m.n, operandNode(o))}
}

// Not is the mask !m.
func (m Mask) Not() Mask { return Mask{fusion.Unary(expr.OpNot, m.n, dtype.Bool)} }

// Err is the error building the mask met, if any.
func (m Mask) Err() error { return Expr[bool]{m.n}.Err() }

// Where picks x where m is true and y elsewhere (all three broadcast); m
// is a Mask, a bool array or an Expr[bool].
func Where[T Element](m Operand[bool], x, y Operand[T]) Expr[T] {
	return Expr[T]{fusion.Apply("Where", expr.OpWhere, dtype.Of[T](), operandNode(m), operandNode(x), operandNode(y))}
}

// FromMask is 1 where m is true and 0 elsewhere (Cast[T] of it).
func FromMask[T Element](m Operand[bool]) Expr[T] {
	return Cast[T](m)
}
