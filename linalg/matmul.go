package linalg

import (
	"github.com/gpuarr/gpuarr/device"
	"github.com/gpuarr/gpuarr/gpuarr"
	"github.com/gpuarr/gpuarr/internal/arrayhook"
)

// bmm is the stack of products op(a)·op(b), one BLAS product per matrix:
// a and b are contiguous stacks of count matrices ([..., r, c], any
// batch shape of count matrices), op(x) is x, or xᵀ when its flag is set.
// The result is [batch..., m, n] for the given batch.
func bmm[T Float](call string, s *device.Stream, batch gpuarr.Shape, count int, a *gpuarr.Array[T], ta bool, b *gpuarr.Array[T], tb bool) (*gpuarr.Array[T], error) {
	ash, bsh := a.Shape(), b.Shape()
	ar, ac := ash[len(ash)-2], ash[len(ash)-1]
	br, bc := bsh[len(bsh)-2], bsh[len(bsh)-1]
	m, k := ar, ac
	if ta {
		m, k = ac, ar
	}
	n := bc
	if tb {
		n = br
	}
	sh := append(append(gpuarr.Shape(nil), batch...), m, n)
	if count == 0 || m == 0 || n == 0 || k == 0 {
		return gpuarr.Zeros[T](sh, on(s))
	}
	c, err := gpuarr.Empty[T](sh, on(s))
	if err != nil {
		return nil, err
	}
	es := esize[T]()
	// Row-major C = op(a)·op(b) is column-major Cᵀ = op(b)ᵀ·op(a)ᵀ over
	// the same memory, and a row-major x is column-major xᵀ: each operand
	// goes to BLAS transposed exactly when op transposes it.
	err = gemms(call, s, []arrayhook.Use{reads(a, s), reads(b, s), writes(c, s)}, count, func(i int) device.Gemm {
		return device.Gemm{Type: dtype[T](), M: n, N: m, K: k, Alpha: 1,
			A: ptr(b).Add(uint64(i*br*bc) * es), LDA: bc, TransA: tb,
			B: ptr(a).Add(uint64(i*ar*ac) * es), LDB: ac, TransB: ta,
			C: ptr(c).Add(uint64(i*m*n) * es), LDC: n}
	})
	if err != nil {
		c.Release()
		return nil, err
	}
	return c, nil
}
