package gpuarr

import (
	"github.com/gpuarr/gpuarr/device/dtype"
	"github.com/gpuarr/gpuarr/internal/fusion"
	"github.com/gpuarr/gpuarr/internal/fusion/expr"
)

// Ddof makes Var and Std divide the sum of squared deviations by N − k
// instead of N, the number of elements reduced (NumPy's ddof; Ddof(1) is
// the unbiased sample variance). When N − k ≤ 0 the divisor is 0 and the
// result +Inf (or NaN where every deviation is 0), as in NumPy. A
// negative k is an error matching ErrArgument.
func Ddof(k int) Option { return ddofOption(k) }

// Var is the variance: the mean of the squared deviations from the mean,
// Σ(x − mean)² / (N − ddof) over all elements or along the axes Axis
// options name (KeepDims keeps them; Ddof sets ddof, 0 by default). It
// takes float elements (VarAs takes any) and is one pass over them, fused
// with the expression x may be: each thread sums its elements' deviations
// from its first one in float64 and the partial results combine by
// Chan's rule, so the variance is accurate where the naive Σx² − N·mean²
// cancels. A NaN or ±Inf element makes the result NaN; Var of no elements
// is an error matching ErrShape.
func Var[T Float](x Operand[T], opts ...Option) (*Array[T], error) {
	return reduceTo[T]("Var", expr.Var, operandNode(x), opts, false)
}

// Std is the standard deviation, the square root of Var (with the same
// options).
func Std[T Float](x Operand[T], opts ...Option) (*Array[T], error) {
	return reduceTo[T]("Std", expr.Std, operandNode(x), opts, false)
}

// VarAs is the variance as a float R of elements of any type, like
// NumPy's var(x, dtype=R): integers convert to float64 first (VarAs of
// int32 elements is NumPy's var), floats are reduced as Var reduces them
// and the result rounded to R. Only R needs naming:
// gpuarr.VarAs[float64](x).
func VarAs[R Float, T Numeric](x Operand[T], opts ...Option) (*Array[R], error) {
	return reduceTo[R]("VarAs", expr.Var, asFloat(operandNode(x)), opts, false)
}

// StdAs is the standard deviation as a float R: see VarAs.
func StdAs[R Float, T Numeric](x Operand[T], opts ...Option) (*Array[R], error) {
	return reduceTo[R]("StdAs", expr.Std, asFloat(operandNode(x)), opts, false)
}

// asFloat is n, converted to float64 when its values are integers.
func asFloat(n *fusion.Node) *fusion.Node {
	if n == nil || n.Err() != nil || n.Type().IsFloat() {
		return n
	}
	return fusion.Unary(expr.OpCast, n, dtype.Float64)
}
