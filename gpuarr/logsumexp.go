package gpuarr

import (
	"github.com/gpuarr/gpuarr/device/dtype"
	"github.com/gpuarr/gpuarr/internal/fusion"
	"github.com/gpuarr/gpuarr/internal/fusion/expr"
)

// LogSumExp is log(Σ eˣ) computed without overflow, like SciPy's
// special.logsumexp: with m the maximum (over all elements, or along the
// axes Axis options name; KeepDims keeps them), m + log(Σ e^(x−m)), where
// an infinite m counts as 0 (so all −Inf gives −Inf, any +Inf gives +Inf,
// a NaN gives NaN). Three kernels: the maximum, the fused sum of
// exponentials (accumulated in float64) and the final log. LogSumExp of
// no elements is an error matching ErrShape.
func LogSumExp[T Float](x Operand[T], opts ...Option) (*Array[T], error) {
	const call = "LogSumExp"
	n := operandNode(x)
	rd, err := readReduction(call, n, opts, 0)
	if err != nil {
		return nil, err
	}
	if rd.empty() {
		return nil, rd.emptyError("logsumexp")
	}
	t := dtype.Of[T]()
	kept := rd.keeping()
	m, err := runReduction[T](kept, expr.Max, n)
	if err != nil {
		return nil, err
	}
	defer m.Release()
	mn := m.operand().n
	// shift = m where m is finite (m − m == 0), else 0.
	finite := fusion.Apply(call, expr.OpEq, dtype.Bool, fusion.Apply(call, expr.OpSub, t, mn, mn), fusion.Const(t, 0))
	shift := fusion.Apply(call, expr.OpWhere, t, finite, mn, fusion.Const(t, 0))
	e := fusion.Unary(expr.OpExp, fusion.Apply(call, expr.OpSub, t, n, shift), t)
	s, err := runReduction[T](kept, expr.Sum, e)
	if err != nil {
		return nil, err
	}
	defer s.Release()
	r, err := Eval(Expr[T]{fusion.Apply(call, expr.OpAdd, t, fusion.Unary(expr.OpLog, s.operand().n, t), shift)}, On(rd.s))
	if err != nil {
		return nil, err
	}
	return dropKept(rd, r)
}
