package linalg

import (
	"fmt"

	"github.com/gpuarr/gpuarr/device"
	"github.com/gpuarr/gpuarr/gpuarr"
	"github.com/gpuarr/gpuarr/internal/arrayhook"
)

// LU is the LU factorization with partial pivoting of a matrix or of each
// of a stack ([..., m, n]), SciPy's scipy.linalg.lu (NumPy has none):
// a = p·l·u with p an m×m permutation matrix, l m×k lower triangular with
// a unit diagonal and u k×n upper triangular, k = min(m, n). A singular
// matrix factors too (u then has a zero on its diagonal): it is not an
// error.
//
// cuSOLVER's getrf, gonum on the host. Building p needs the pivots on the
// host: LU waits for the factorization and reads them back (k 8-byte
// words per matrix). Errors and stream as Solve's.
func LU[T Float](a *gpuarr.Array[T], opts ...gpuarr.Option) (p, l, u *gpuarr.Array[T], err error) {
	const call = "linalg.LU"
	defer func() {
		if err != nil {
			release(p, l, u)
			p, l, u = nil, nil, nil
			err = wrap(call, err)
		}
	}()
	st, s, err := matricesOn("a", a, opts)
	if err != nil {
		return nil, nil, nil, err
	}
	m, n := st.m, st.n
	k := min(m, n)
	if st.count == 0 || k == 0 {
		if p, err = identity[T](st.with(m, m), s); err != nil {
			return
		}
		if l, err = gpuarr.Empty[T](st.with(m, k), on(s)); err != nil {
			return
		}
		u, err = gpuarr.Empty[T](st.with(k, n), on(s))
		return
	}
	// w holds each matrix column-major (m×n, leading dimension m).
	w, err := transposed(a, st.with(n, m), s)
	if err != nil {
		return
	}
	defer w.Release()
	info, err := newInfo(st.count, s)
	if err != nil {
		return
	}
	defer info.Release()
	piv, err := gpuarr.Empty[int64](st.with(k), on(s))
	if err != nil {
		return
	}
	defer piv.Release()
	dt, es := dtype[T](), esize[T]()
	err = issue(call, s, []arrayhook.Use{readsWrites(w, s), writes(piv, s), writes(info, s)},
		step{st.count, func(i int) device.SolverCall {
			return device.SolverCall{Op: device.Getrf, Type: dt, M: m, N: n,
				A: ptr(w).Add(uint64(i*m*n) * es), LDA: m, Ipiv: ptr(piv).Add(uint64(i*k) * 8), Info: ptr(info).Add(uint64(i) * 4)}
		}})
	if err != nil {
		return
	}
	// The factors, row-major: w read as [..., m, n] is the packed L\U.
	packed, err := swapLast(w)
	if err != nil {
		return
	}
	defer packed.Release()
	lv, err := cols(packed, k)
	if err != nil {
		return
	}
	defer lv.Release()
	if l, err = masked[T](lv, st.with(m, k), strictLowerTri, true, s); err != nil {
		return
	}
	uv, err := rows(packed, k)
	if err != nil {
		return
	}
	defer uv.Release()
	if u, err = masked[T](uv, st.with(k, n), upperTri, false, s); err != nil {
		return
	}
	p, err = permutation[T](piv, st, s)
	return
}

// permutation is p with a = p·l·u from getrf's 1-based pivots (k per
// matrix): row i of the factored matrix was row perm[i] of a, so p's
// column i is the unit vector e(perm[i]).
func permutation[T Float](piv *gpuarr.Array[int64], st stack, s *device.Stream) (*gpuarr.Array[T], error) {
	m, k := st.m, min(st.m, st.n)
	ipiv, err := piv.ToSlice()
	if err != nil {
		return nil, err
	}
	perm := make([]uint64, st.count*m)
	for b := range st.count {
		pm := perm[b*m : (b+1)*m]
		for i := range pm {
			pm[i] = uint64(i)
		}
		for i, p := range ipiv[b*k : (b+1)*k] {
			j := int(p) - 1
			if j < 0 || j >= m {
				return nil, fmt.Errorf("pivot %d of matrix %d is %d, outside 1..%d: %w", i, b, p, m, device.ErrInvalidValue)
			}
			pm[i], pm[j] = pm[j], pm[i]
		}
	}
	pa, err := gpuarr.FromSlice(perm, st.with(1, m), on(s))
	if err != nil {
		return nil, err
	}
	defer pa.Release()
	ri, ci, err := grid(s, m, 1)
	if err != nil {
		return nil, err
	}
	defer release(ri, ci)
	// p[r, c] = 1 where perm[c] = r.
	return working[T](gpuarr.Where(gpuarr.Equal[uint64](pa, ri), gpuarr.Scalar[T](1), gpuarr.Scalar[T](0)), st.with(m, m), s)
}
