package gpuarr

import (
	"github.com/gpuarr/gpuarr/device/dtype"
	"github.com/gpuarr/gpuarr/internal/fusion"
	"github.com/gpuarr/gpuarr/internal/fusion/expr"
)

// NumPy's elementwise math functions (its ufuncs), named as Go's math
// package names them. Like the operations of ops.go each builds a node
// of the expression, computes nothing, and fuses into the kernel of the
// tree it is part of; binary functions broadcast their operands.
//
// The transcendental functions take Floating: Float16 and BFloat16
// compute in float32 and round the result to nearest even. Special values
// (NaN, ±Inf, ±0, out of the domain) are Go's math package's and C99's,
// which NumPy's are too. Results are within the bounds of CUDA's own math
// library on both backends: float32 within 4 ulp of the correctly rounded
// result, float64 within 1e-14 relative; NaN payloads are not kept.

func floating[T Floating](op expr.Op, x Operand[T]) Expr[T] { return unary(op, x) }

// Sin is the sine of x (radians).
func Sin[T Floating](x Operand[T]) Expr[T] { return floating(expr.OpSin, x) }

// Cos is the cosine of x (radians).
func Cos[T Floating](x Operand[T]) Expr[T] { return floating(expr.OpCos, x) }

// Tan is the tangent of x (radians).
func Tan[T Floating](x Operand[T]) Expr[T] { return floating(expr.OpTan, x) }

// Asin is the arcsine of x (NumPy's arcsin), in [-π/2, π/2]; NaN for
// |x| > 1.
func Asin[T Floating](x Operand[T]) Expr[T] { return floating(expr.OpAsin, x) }

// Acos is the arccosine of x (NumPy's arccos), in [0, π]; NaN for
// |x| > 1.
func Acos[T Floating](x Operand[T]) Expr[T] { return floating(expr.OpAcos, x) }

// Atan is the arctangent of x (NumPy's arctan), in [-π/2, π/2].
func Atan[T Floating](x Operand[T]) Expr[T] { return floating(expr.OpAtan, x) }

// Atan2 is the arctangent of y/x using the signs of both to pick the
// quadrant (NumPy's arctan2, math.Atan2's special cases), in [-π, π].
func Atan2[T Floating](y, x Operand[T]) Expr[T] { return binop("Atan2", expr.OpAtan2, y, x) }

// Sinh is the hyperbolic sine.
func Sinh[T Floating](x Operand[T]) Expr[T] { return floating(expr.OpSinh, x) }

// Cosh is the hyperbolic cosine.
func Cosh[T Floating](x Operand[T]) Expr[T] { return floating(expr.OpCosh, x) }

// Asinh is the inverse hyperbolic sine (NumPy's arcsinh).
func Asinh[T Floating](x Operand[T]) Expr[T] { return floating(expr.OpAsinh, x) }

// Acosh is the inverse hyperbolic cosine (NumPy's arccosh); NaN below 1.
func Acosh[T Floating](x Operand[T]) Expr[T] { return floating(expr.OpAcosh, x) }

// Atanh is the inverse hyperbolic tangent (NumPy's arctanh): ±Inf at ±1,
// NaN beyond.
func Atanh[T Floating](x Operand[T]) Expr[T] { return floating(expr.OpAtanh, x) }

// Exp2 is 2ˣ.
func Exp2[T Floating](x Operand[T]) Expr[T] { return floating(expr.OpExp2, x) }

// Expm1 is eˣ - 1, accurate near 0.
func Expm1[T Floating](x Operand[T]) Expr[T] { return floating(expr.OpExpm1, x) }

// Log2 is the base-2 logarithm (NaN below 0, -Inf at 0).
func Log2[T Floating](x Operand[T]) Expr[T] { return floating(expr.OpLog2, x) }

// Log10 is the base-10 logarithm (NaN below 0, -Inf at 0).
func Log10[T Floating](x Operand[T]) Expr[T] { return floating(expr.OpLog10, x) }

// Log1p is ln(1 + x), accurate near 0 (NaN below -1, -Inf at -1).
func Log1p[T Floating](x Operand[T]) Expr[T] { return floating(expr.OpLog1p, x) }

// Cbrt is the cube root (negative for negative x).
func Cbrt[T Floating](x Operand[T]) Expr[T] { return floating(expr.OpCbrt, x) }

// Rsqrt is 1/√x, as Div(1, Sqrt(x)) rounds it (two correct roundings):
// +Inf at +0, -Inf at -0, NaN below 0.
func Rsqrt[T Floating](x Operand[T]) Expr[T] { return floating(expr.OpRsqrt, x) }

// Erf is the error function.
func Erf[T Floating](x Operand[T]) Expr[T] { return floating(expr.OpErf, x) }

// Erfc is the complementary error function 1 - Erf(x), accurate where
// Erf(x) is near 1.
func Erfc[T Floating](x Operand[T]) Expr[T] { return floating(expr.OpErfc, x) }

// Hypot is √(x² + y²) without undue overflow or underflow: +Inf if either
// is ±Inf (even with a NaN), else NaN if either is NaN.
func Hypot[T Floating](x, y Operand[T]) Expr[T] { return binop("Hypot", expr.OpHypot, x, y) }

// Floor is the largest integer value not above x (exact; ±0, ±Inf and
// NaN are themselves).
func Floor[T Floating](x Operand[T]) Expr[T] { return floating(expr.OpFloor, x) }

// Ceil is the smallest integer value not below x (exact).
func Ceil[T Floating](x Operand[T]) Expr[T] { return floating(expr.OpCeil, x) }

// Trunc is x's integer part, rounded toward zero (exact).
func Trunc[T Floating](x Operand[T]) Expr[T] { return floating(expr.OpTrunc, x) }

// Round is x rounded to the nearest integer value, halves to even:
// NumPy's round and rint (Round(2.5) is 2, Round(-0.5) is -0), Go's
// math.RoundToEven, not math.Round (halves away from zero).
func Round[T Floating](x Operand[T]) Expr[T] { return floating(expr.OpRound, x) }

// Copysign is x's magnitude with y's sign (the sign bit: -0 and NaNs
// count).
func Copysign[T Floating](x, y Operand[T]) Expr[T] { return binop("Copysign", expr.OpCopysign, x, y) }

// Sign is -1, 0 or 1 by x's sign (NumPy's sign): 0 for ±0 (+0), NaN for
// NaN; 0 or 1 for unsigned types.
func Sign[T RealNumber](x Operand[T]) Expr[T] { return unary(expr.OpSign, x) }

// Fmin is the smaller of x and y ignoring NaN (NumPy's fmin): NaN only if
// both are NaN; -0 and +0 may come out either way. Minimum propagates
// NaN instead. For integers Fmin is Minimum.
func Fmin[T RealNumber](x, y Operand[T]) Expr[T] { return binop("Fmin", expr.OpFmin, x, y) }

// Fmax is the larger of x and y ignoring NaN (NumPy's fmax).
func Fmax[T RealNumber](x, y Operand[T]) Expr[T] { return binop("Fmax", expr.OpFmax, x, y) }

// FloorDiv is x/y rounded toward -∞: NumPy's floor_divide (Python's //),
// where Div truncates toward zero as Go's / does. Integers: x // 0 is 0
// and MinInt // -1 is MinInt (no panic on a device; NumPy gives the same
// with a warning). Floats: NumPy's divmod, exact where the quotient is an
// integer value; x // 0 is ±Inf or NaN (x/0).
func FloorDiv[T RealNumber](x, y Operand[T]) Expr[T] {
	return binop("FloorDiv", expr.OpFloorDiv, x, y)
}

// Mod is x - FloorDiv(x, y)·y, with the sign of y: NumPy's remainder
// (Python's %), where Go's % takes the sign of x. Integers: x % 0 is 0.
// Floats: exact (computed from math.Mod), NaN for y = 0 or x = ±Inf, a
// zero result with y's sign.
func Mod[T RealNumber](x, y Operand[T]) Expr[T] { return binop("Mod", expr.OpMod, x, y) }

// Rem is the remainder of x / y truncated toward zero, x - trunc(x/y)·y
// computed exactly, with the sign of x: Go's % (math.Mod for floats), C's
// fmod and NumPy's fmod, where Mod takes the sign of y.
// Integers: x Rem 0 is 0 (no panic on a device; NumPy gives the same with
// a warning), as Div gives x / 0 = 0, and MinInt Rem -1 is 0. Floats:
// exact (math.Mod), NaN for y = 0, x = ±Inf or a NaN operand, x itself
// for y = ±Inf and finite x, a zero result with x's sign.
func Rem[T RealNumber](x, y Operand[T]) Expr[T] { return binop("Rem", expr.OpRem, x, y) }

// IsNaN is the mask of the elements of x that are NaN.
func IsNaN[T Floating](x Operand[T]) Mask { return test(expr.OpIsNaN, x) }

// IsInf is the mask of the elements of x that are +Inf or -Inf.
func IsInf[T Floating](x Operand[T]) Mask { return test(expr.OpIsInf, x) }

// IsFinite is the mask of the elements of x that are neither NaN nor
// ±Inf.
func IsFinite[T Floating](x Operand[T]) Mask { return test(expr.OpIsFinite, x) }

func test[T Floating](op expr.Op, x Operand[T]) Mask {
	return Mask{fusion.Unary(op, operandNode(x), dtype.Bool)}
}
