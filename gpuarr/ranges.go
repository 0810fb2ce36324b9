package gpuarr

import (
	"fmt"
	"math"
	"math/big"

	"github.com/gpuarr/gpuarr/device/dtype"
	"github.com/gpuarr/gpuarr/internal/fusion"
	"github.com/gpuarr/gpuarr/internal/fusion/expr"
	"github.com/gpuarr/gpuarr/internal/layout"
)

// Constructors from positions: each is one fused kernel that computes its
// elements from their positions on the device (nothing is uploaded).

type endpointOption bool

func (endpointOption) isOption() {}

func (o endpointOption) String() string { return fmt.Sprintf("gpuarr.Endpoint(%t)", bool(o)) }

// Endpoint says whether Linspace's last value is stop (true, the
// default) or the value before it (false), NumPy's endpoint.
func Endpoint(include bool) Option { return endpointOption(include) }

// iotaOf is the int64 position node of a vector of n elements.
func iotaOf(sh ...int) *fusion.Node { return fusion.Iota(sh) }

// Arange is the vector start, start+step, … of the values before stop
// (NumPy's arange): ⌈(stop − start)/step⌉ elements, none when that is not
// positive. As in NumPy, element 1 is start+step (computed in float64 for
// floats) and element i ≥ 2 is start + i·d with d = element 1 − element
// 0, in T's arithmetic. A step of 0 is an error matching ErrArgument.
func Arange[T Numeric](start, stop, step T, opts ...Option) (*Array[T], error) {
	const call = "Arange"
	if step == 0 {
		return nil, fmt.Errorf("gpuarr.%s: step 0: %w", call, ErrArgument)
	}
	t := dtype.Of[T]()
	n, err := arangeLen(t, start, stop, step)
	if err != nil {
		return nil, fmt.Errorf("gpuarr.%s(%v, %v, %v): %w", call, start, stop, step, err)
	}
	v0, v1 := start, start+step
	if t.IsFloat() {
		v1 = T(float64(start) + float64(step))
	}
	d := v1 - v0
	i := iotaOf(n)
	// v0 + T(i)·d, and v1 at position 1.
	ti := fusion.Unary(expr.OpCast, i, t)
	val := fusion.Apply(call, expr.OpAdd, t, Scalar(v0).n, fusion.Apply(call, expr.OpMul, t, ti, Scalar(d).n))
	one := fusion.Apply(call, expr.OpEq, dtype.Bool, i, fusion.Const(dtype.Int64, 1))
	return evalNew[T](call, Shape{n}, fusion.Apply(call, expr.OpWhere, t, one, Scalar(v1).n, val), opts)
}

// arangeLen is ⌈(stop − start)/step⌉ clipped at 0: exact for integers,
// in float64 for floats (as NumPy computes it).
func arangeLen[T Numeric](t dtype.DType, start, stop, step T) (int, error) {
	var n float64
	if t.IsFloat() {
		n = math.Ceil((float64(stop) - float64(start)) / float64(step))
		if math.IsNaN(n) {
			return 0, fmt.Errorf("the length is NaN: %w", ErrArgument)
		}
	} else {
		toBig := func(v T) *big.Int {
			if t.IsSigned() {
				return big.NewInt(int64(v))
			}
			return new(big.Int).SetUint64(uint64(v))
		}
		num := new(big.Int).Sub(toBig(stop), toBig(start))
		den := toBig(step)
		// ceil(num/den) = -floor(-num/den); big.Int's Div is Euclidean.
		q := new(big.Int)
		if den.Sign() > 0 {
			q.Neg(new(big.Int).Div(new(big.Int).Neg(num), den))
		} else {
			q.Neg(new(big.Int).Div(num, new(big.Int).Neg(den)))
		}
		if !q.IsInt64() {
			return 0, fmt.Errorf("%v elements: %w", q, ErrShape)
		}
		n = float64(q.Int64())
	}
	if n <= 0 {
		return 0, nil
	}
	if n > math.MaxInt32*float64(1<<30) {
		return 0, fmt.Errorf("%g elements: %w", n, ErrShape)
	}
	return int(n), nil
}

// Linspace is num values evenly spaced from start to stop (NumPy's
// linspace): with div = num−1 (num with Endpoint(false)) and step =
// (stop−start)/div, value i is i·step + start computed in float64 and
// rounded to T, and the last is stop exactly when the endpoint is
// included. A negative num is an error matching ErrArgument.
func Linspace[T Float](start, stop T, num int, opts ...Option) (*Array[T], error) {
	const call = "Linspace"
	if num < 0 {
		return nil, fmt.Errorf("gpuarr.%s: num %d is negative: %w", call, num, ErrArgument)
	}
	endpoint := true
	for _, o := range opts {
		if e, ok := o.(endpointOption); ok {
			endpoint = bool(e)
		}
	}
	div := num
	if endpoint {
		div = num - 1
	}
	f := dtype.Float64
	s0, s1 := float64(start), float64(stop)
	delta := s1 - s0
	i := fusion.Unary(expr.OpCast, iotaOf(num), f)
	var y *fusion.Node
	switch step := delta / float64(div); {
	case div > 0 && step != 0:
		y = fusion.Apply(call, expr.OpMul, f, i, Scalar(step).n)
	case div > 0: // the step underflows: (i/div)·delta, as NumPy
		y = fusion.Apply(call, expr.OpMul, f, fusion.Apply(call, expr.OpDiv, f, i, Scalar(float64(div)).n), Scalar(delta).n)
	default: // one value: NumPy multiplies by delta (giving start)
		y = fusion.Apply(call, expr.OpMul, f, i, Scalar(delta).n)
	}
	y = fusion.Apply(call, expr.OpAdd, f, y, Scalar(s0).n)
	if endpoint && num > 1 {
		last := fusion.Apply(call, expr.OpEq, dtype.Bool, iotaOf(num), fusion.Const(dtype.Int64, float64(num-1)))
		y = fusion.Apply(call, expr.OpWhere, f, last, Scalar(s1).n, y)
	}
	return evalNew[T](call, Shape{num}, fusion.Unary(expr.OpCast, y, dtype.Of[T]()), opts, optEndpoint)
}

// Eye is the n×m matrix with ones on the k-th diagonal and zeros
// elsewhere (NumPy's eye(n, m, k)): element [i, j] is 1 where j − i = k.
// Eye(n, n, 0) is the identity.
func Eye[T Numeric](n, m, k int, opts ...Option) (*Array[T], error) {
	const call = "Eye"
	t := dtype.Of[T]()
	diag := fusion.Apply(call, expr.OpEq, dtype.Bool,
		fusion.Apply(call, expr.OpSub, dtype.Int64, iotaOf(m), iotaOf(n, 1)), Scalar(int64(k)).n)
	return evalNew[T](call, Shape{n, m}, fusion.Unary(expr.OpCast, diag, t), opts)
}

// evalNew allocates an array of shape sh on the options' stream (the
// default device's, like any constructor) and computes n into it.
func evalNew[T Numeric](call string, sh Shape, n *fusion.Node, opts []Option, also ...optionKind) (*Array[T], error) {
	var k optionKind
	for _, a := range also {
		k |= a
	}
	s, err := streamTaking(call, opts, nil, k)
	if err != nil {
		return nil, err
	}
	if _, err := layout.Check(call, sh, uintptr(dtype.Of[T]().Size())); err != nil {
		return nil, err
	}
	if n.Err() != nil {
		return nil, fmt.Errorf("gpuarr.%s: %w", call, n.Err())
	}
	out, err := newArray[T](call, sh, s)
	if err != nil {
		return nil, err
	}
	if err := fusion.EvalInto(call, &out.c, n, s); err != nil {
		_ = out.Release()
		return nil, err
	}
	return out, nil
}
