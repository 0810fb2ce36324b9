package gpuarr

import (
	"fmt"

	"github.com/gpuarr/gpuarr/internal/arg"
)

// Dot is NumPy's dot: for vectors their inner product (a 0-d array), for
// matrices and for a vector with a matrix or stack (either side) the
// product Matmul computes, for a 0-d operand the product by that scalar
// (as Mul), and for an N-d a with an M-d b (M ≥ 3, N ≥ 2) the sum over
// a's last axis and b's second-to-last: dot(a, b)[i, j, k, m] =
// Σ a[i, j, :]·b[k, :, m], of shape a's leading axes, then b's axes but
// its second-to-last. That last form is one GEMM over a reshaped a and
// a permuted, reshaped b (copies when they are strided). Options and
// errors as Matmul's.
func Dot[T Float](a, b *Array[T], opts ...Option) (*Array[T], error) {
	const call = "Dot"
	for _, x := range []struct {
		name string
		arr  *Array[T]
	}{{"a", a}, {"b", b}} {
		if err := x.arr.check(call + ": " + x.name); err != nil {
			return nil, err
		}
	}
	ra, rb := len(a.c.Shape()), len(b.c.Shape())
	switch {
	case ra == 0 || rb == 0:
		s, err := streamTaking(call, opts, a.c.Device(), 0)
		if err != nil {
			return nil, err
		}
		return Eval[T](Mul[T](a, b), On(s))
	case rb < 3 || ra < 2:
		return Matmul(a, b, opts...)
	}
	// Σ over a's last axis and b's second-to-last: [A k]·[k B·n].
	ash, bsh := a.c.Shape(), b.c.Shape()
	k := ash[ra-1]
	if bsh[rb-2] != k {
		return nil, arg.Shapef(call, "a is %s and b is %s: a's last axis (%d) does not match b's second-to-last (%d)",
			a.c.Describe(), b.c.Describe(), k, bsh[rb-2])
	}
	a2, err := a.Reshape(Shape{-1, k})
	if err != nil {
		return nil, fmt.Errorf("gpuarr.%s: %w", call, err)
	}
	defer a2.Release()
	perm := []int{rb - 2}
	for d := range rb {
		if d != rb-2 {
			perm = append(perm, d)
		}
	}
	bp, err := b.Permute(perm...)
	if err != nil {
		return nil, err
	}
	defer bp.Release()
	b2, err := bp.Reshape(Shape{k, -1})
	if err != nil {
		return nil, fmt.Errorf("gpuarr.%s: %w", call, err)
	}
	defer b2.Release()
	c2, err := Matmul(a2, b2, opts...)
	if err != nil {
		return nil, err
	}
	defer c2.Release()
	out := append(append(append(Shape{}, ash[:ra-1]...), bsh[:rb-2]...), bsh[rb-1])
	return c2.Reshape(out)
}

// Outer is the outer product of a and b, flattened first as in NumPy:
// the [len(a) len(b)] array of a[i]·b[j], one fused kernel (a strided
// operand is compacted first). It runs where Eval would (a's device
// without an option).
func Outer[T Numeric](a, b *Array[T], opts ...Option) (*Array[T], error) {
	const call = "Outer"
	cols := make([]*Array[T], 2)
	for i, x := range []*Array[T]{a, b} {
		if err := x.check(fmt.Sprintf("%s: %c", call, 'a'+i)); err != nil {
			return nil, err
		}
		v, err := x.Ravel()
		if err != nil {
			return nil, fmt.Errorf("gpuarr.%s: %w", call, err)
		}
		defer v.Release()
		if cols[i], err = v.ExpandDims(1 - i); err != nil { // a as a column, b as a row
			return nil, err
		}
		defer cols[i].Release()
	}
	return Eval[T](Mul[T](cols[0], cols[1]), opts...)
}
