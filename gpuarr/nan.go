package gpuarr

import (
	"github.com/gpuarr/gpuarr/device/dtype"
	"github.com/gpuarr/gpuarr/internal/fusion"
	"github.com/gpuarr/gpuarr/internal/fusion/expr"
)

// The Nan reductions treat NaN elements as missing, like NumPy's nansum,
// nanmean, nanmin and nanmax; they take float elements (integers have no
// NaN: use Sum, Mean, Min and Max) and the reductions' options.

// NanSum adds the elements that are not NaN (0 when all are NaN), in
// one fused pass, accumulating as Sum does.
func NanSum[T Float](x Operand[T], opts ...Option) (*Array[T], error) {
	return reduceTo[T]("NanSum", expr.Sum, zeroNaN(operandNode(x)), opts, false)
}

// NanMean is the mean of the elements that are not NaN: their float64
// sum over their number, rounded to T; NaN where all are NaN (NumPy
// warns and gives NaN). Of no elements it is an error matching ErrShape.
func NanMean[T Float](x Operand[T], opts ...Option) (*Array[T], error) {
	return reduceTo[T]("NanMean", expr.NanMean, operandNode(x), opts, false)
}

// NanMin is the least element that is not NaN; NaN where all are NaN.
func NanMin[T Float](x Operand[T], opts ...Option) (*Array[T], error) {
	return reduceTo[T]("NanMin", expr.NanMin, operandNode(x), opts, false)
}

// NanMax is the greatest element that is not NaN; NaN where all are NaN.
func NanMax[T Float](x Operand[T], opts ...Option) (*Array[T], error) {
	return reduceTo[T]("NanMax", expr.NanMax, operandNode(x), opts, false)
}

// zeroNaN is n with its NaN values replaced by 0: Where(n == n, n, 0).
func zeroNaN(n *fusion.Node) *fusion.Node {
	if n == nil || n.Err() != nil {
		return n
	}
	t := n.Type()
	ok := fusion.Apply("NanSum", expr.OpEq, dtype.Bool, n, n)
	return fusion.Apply("NanSum", expr.OpWhere, t, ok, n, fusion.Const(t, 0))
}
