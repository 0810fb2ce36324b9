package gpuarr

import (
	"fmt"
	"math"

	"github.com/gpuarr/gpuarr/device/dtype"
	"github.com/gpuarr/gpuarr/internal/fusion"
	"github.com/gpuarr/gpuarr/internal/fusion/expr"
)

// Complex numbers. A complex64 is two float32s and a complex128 two
// float64s, real part first; the functions that take a complex operand
// and give a real one (Real, Imag, ComplexAbs, Angle) are told the part type
// (float32 for complex64, float64 for complex128), since Go cannot derive
// one type from another: gpuarr.Real[float32](z). A wrong part type makes
// an expression that fails with ErrArgument naming the right call.

// partNode is z's node when R is C's part type, else a failed node.
func partNode[R Float, C ComplexFloat](call string, z Operand[C]) *fusion.Node {
	ct, rt := dtype.Of[C](), dtype.Of[R]()
	if pt := expr.PartType(ct); pt != rt {
		return fusion.Failed(fmt.Errorf("gpuarr.%s: the parts of %s values are %s, not %s: call gpuarr.%s[%s]: %w",
			call, ct, pt, rt, call, pt, ErrArgument))
	}
	return operandNode(z)
}

// Real is the real part of z, of z's part type R (Go's real):
//
//	re := gpuarr.Real[float32](z) // z an *Array[complex64]
func Real[R Float, C ComplexFloat](z Operand[C]) Expr[R] {
	return Expr[R]{fusion.Unary(expr.OpReal, partNode[R]("Real", z), dtype.Of[R]())}
}

// Imag is the imaginary part of z, of z's part type R (Go's imag).
func Imag[R Float, C ComplexFloat](z Operand[C]) Expr[R] {
	return Expr[R]{fusion.Unary(expr.OpImag, partNode[R]("Imag", z), dtype.Of[R]())}
}

// Angle is the argument of z, atan2(imag, real) in [-π, π], of z's part
// type R (NumPy's angle, Go's cmplx.Phase), with Atan2's special cases
// and accuracy.
//
//	phi := gpuarr.Angle[float64](z) // z an *Array[complex128]
func Angle[R Float, C ComplexFloat](z Operand[C]) Expr[R] {
	n, rt := partNode[R]("Angle", z), dtype.Of[R]()
	return Expr[R]{fusion.Apply("Angle", expr.OpAtan2, rt, fusion.Unary(expr.OpImag, n, rt), fusion.Unary(expr.OpReal, n, rt))}
}

// Complex is the complex number re + im·i (Go's complex): C is the
// complex type of parts of type R (complex64 for float32 parts),
// re and im broadcast together.
//
//	z := gpuarr.Complex[complex64](re, im) // re, im *Array[float32]
func Complex[C ComplexFloat, R Float](re, im Operand[R]) Expr[C] {
	ct, rt := dtype.Of[C](), dtype.Of[R]()
	if expr.ComplexOf(rt) != ct {
		return Expr[C]{fusion.Failed(fmt.Errorf("gpuarr.Complex: %s parts make %s values, not %s: call gpuarr.Complex[%s]: %w",
			rt, expr.ComplexOf(rt), ct, expr.ComplexOf(rt), ErrArgument))}
	}
	return Expr[C]{fusion.Apply("Complex", expr.OpComplex, ct, operandNode(re), operandNode(im))}
}

// Conj is the complex conjugate of x (its imaginary part negated); a real
// x is its own conjugate, as in NumPy.
func Conj[T Number](x Operand[T]) Expr[T] {
	t := dtype.Of[T]()
	n := operandNode(x)
	pt := expr.PartType(t)
	if pt == dtype.Invalid || n == nil {
		return Expr[T]{n}
	}
	im := fusion.Unary(expr.OpNeg, fusion.Unary(expr.OpImag, n, pt), pt)
	return Expr[T]{fusion.Apply("Conj", expr.OpComplex, t, fusion.Unary(expr.OpReal, n, pt), im)}
}

// ComplexAbs is the magnitude |z| = √(re² + im²) of z, of z's part type R
// (NumPy's abs of a complex array, Go's cmplx.Abs): +Inf when either part
// is infinite (even with a NaN), NaN when a part is NaN otherwise, and
// no overflow or underflow in between. For complex64 it is computed in
// float64 and rounded once (within an ulp of the exact magnitude); for
// complex128 as m·√(1 + (n/m)²) with m and n the larger and smaller part
// magnitudes (within 2 ulps). Both back ends give the same bits.
func ComplexAbs[R Float, C ComplexFloat](z Operand[C]) Expr[R] {
	const call = "ComplexAbs"
	n := partNode[R](call, z)
	rt := dtype.Of[R]()
	if n == nil || n.Err() != nil {
		return Expr[R]{fusion.Unary(expr.OpReal, n, rt)}
	}
	f64 := dtype.Float64
	un := func(op expr.Op, x *fusion.Node) *fusion.Node { return fusion.Unary(op, x, f64) }
	bin := func(op expr.Op, x, y *fusion.Node) *fusion.Node { return fusion.Apply(call, op, f64, x, y) }
	re, im := fusion.Unary(expr.OpReal, n, rt), fusion.Unary(expr.OpImag, n, rt)
	if rt == dtype.Float32 {
		re, im = fusion.Unary(expr.OpCast, re, f64), fusion.Unary(expr.OpCast, im, f64)
	}
	a, b := un(expr.OpAbs, re), un(expr.OpAbs, im)
	var mag *fusion.Node
	if rt == dtype.Float32 {
		// Exact squares (48 bits) and one rounding each for the sum and
		// the root, then one to float32.
		mag = un(expr.OpSqrt, bin(expr.OpAdd, bin(expr.OpMul, a, a), bin(expr.OpMul, b, b)))
	} else {
		m, k := bin(expr.OpMax, a, b), bin(expr.OpMin, a, b)
		r := bin(expr.OpDiv, k, m)
		h := bin(expr.OpMul, m, un(expr.OpSqrt, bin(expr.OpAdd, fusion.Const(f64, 1), bin(expr.OpMul, r, r))))
		zero := fusion.Const(f64, 0)
		mag = fusion.Apply(call, expr.OpWhere, f64, fusion.Apply(call, expr.OpEq, dtype.Bool, m, zero), zero, h)
	}
	inf := fusion.Const(f64, math.Inf(1))
	anyInf := fusion.Apply(call, expr.OpOr, dtype.Bool,
		fusion.Apply(call, expr.OpEq, dtype.Bool, a, inf), fusion.Apply(call, expr.OpEq, dtype.Bool, b, inf))
	mag = fusion.Apply(call, expr.OpWhere, f64, anyInf, inf, mag)
	if rt == dtype.Float32 {
		mag = fusion.Unary(expr.OpCast, mag, rt)
	}
	return Expr[R]{mag}
}
