package gpuarr

import "github.com/gpuarr/gpuarr/internal/fusion/expr"

// The bitwise operations of the integer types (NumPy's bitwise_and, …,
// invert, left_shift, right_shift), elementwise and fused like the
// others. Masks and bool arrays have Mask.And, Or and Not instead.

// BitAnd is x & y.
func BitAnd[T Integer](x, y Operand[T]) Expr[T] { return binop("BitAnd", expr.OpBitAnd, x, y) }

// BitOr is x | y.
func BitOr[T Integer](x, y Operand[T]) Expr[T] { return binop("BitOr", expr.OpBitOr, x, y) }

// BitXor is x ^ y.
func BitXor[T Integer](x, y Operand[T]) Expr[T] { return binop("BitXor", expr.OpBitXor, x, y) }

// Invert is ^x, every bit flipped (NumPy's invert and ~): -x-1 for signed
// types, MaxUint-x for unsigned ones.
func Invert[T Integer](x Operand[T]) Expr[T] { return unary(expr.OpInvert, x) }

// LeftShift is x << y, wrapping in T. A count of at least T's width
// gives 0, as in Go and NumPy; so does a negative count (Go panics on
// one; NumPy takes it as a huge unsigned count).
func LeftShift[T Integer](x, y Operand[T]) Expr[T] { return binop("LeftShift", expr.OpShl, x, y) }

// RightShift is x >> y: arithmetic (copies of the sign bit) for signed
// types, logical for unsigned ones. A count of at least T's width gives
// 0, or -1 for negative x, as in Go and NumPy; so does a negative count.
func RightShift[T Integer](x, y Operand[T]) Expr[T] { return binop("RightShift", expr.OpShr, x, y) }
