package gpuarr

import (
	"fmt"

	"github.com/gpuarr/gpuarr/device/dtype"
	"github.com/gpuarr/gpuarr/internal/fusion"
	"github.com/gpuarr/gpuarr/internal/fusion/expr"
)

// Triu is x with the elements below its k-th diagonal zeroed (NumPy's
// triu), for the matrices over x's last two axes: element [..., i, j]
// stays where j − i ≥ k. It is an expression (the mask comes from the
// positions, fused with the rest): Eval it, or use it as an operand. x
// must have at least two axes (NumPy broadcasts a vector to a square
// matrix; BroadcastTo does that here); else evaluating fails with
// ErrShape.
func Triu[T Numeric](x Operand[T], k int) Expr[T] { return triangle("Triu", x, k, expr.OpGe) }

// Tril is x with the elements above its k-th diagonal zeroed (NumPy's
// tril): element [..., i, j] stays where j − i ≤ k. See Triu.
func Tril[T Numeric](x Operand[T], k int) Expr[T] { return triangle("Tril", x, k, expr.OpLe) }

func triangle[T Numeric](call string, x Operand[T], k int, keep expr.Op) Expr[T] {
	n := operandNode(x)
	if n == nil || n.Err() != nil {
		return Expr[T]{n}
	}
	sh := n.Shape()
	if len(sh) < 2 {
		return Expr[T]{fusion.Failed(fmt.Errorf("gpuarr.%s of shape %v: it needs a matrix (two axes or more): %w", call, Shape(sh), ErrShape))}
	}
	rows, cols := sh[len(sh)-2], sh[len(sh)-1]
	t := dtype.Of[T]()
	diff := fusion.Apply(call, expr.OpSub, dtype.Int64, iotaOf(cols), iotaOf(rows, 1))
	cond := fusion.Apply(call, keep, dtype.Bool, diff, Scalar(int64(k)).n)
	return Expr[T]{fusion.Apply(call, expr.OpWhere, t, cond, n, fusion.Const(t, 0))}
}
