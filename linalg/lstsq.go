package linalg

import (
	"fmt"

	"github.com/gpuarr/gpuarr/device"
	"github.com/gpuarr/gpuarr/gpuarr"
)

// DefaultTol, given as Lstsq's or Pinv's rcond or MatrixRank's tol, picks
// NumPy's default (its None); see each function. Any negative value does.
const DefaultTol = -1.0

// Lstsq is the least-squares solution of a·x = b, NumPy's linalg.lstsq:
// the x minimizing ‖b − a·x‖₂, and of those the one of least norm, for a
// single m×n matrix a (NumPy's lstsq takes no stacks) and b a vector [m]
// or a matrix [m, k]. Singular values of a at or below rcond·s[0] count as
// zero; rcond < 0 (DefaultTol) uses NumPy's default, machine epsilon ·
// max(m, n). It returns x ([n] or [n, k], b's kind), the squared residual
// norm of each column of b ([1] for a vector b, [k] for a matrix; empty
// when the rank is below n or m ≤ n, as NumPy's), the rank, and a's
// singular values s.
//
// It goes through SVD (so it waits for SVD's info words and reads s
// back to find the rank) and BLAS products. Errors and stream as SVD's.
func Lstsq[T Float](a, b *gpuarr.Array[T], rcond float64, opts ...gpuarr.Option) (x, residuals *gpuarr.Array[T], rank int, s *gpuarr.Array[T], err error) {
	const call = "linalg.Lstsq"
	x, residuals, rank, s, err = lstsq(call, a, b, rcond, opts)
	return x, residuals, rank, s, wrap(call, err)
}

func lstsq[T Float](call string, a, b *gpuarr.Array[T], rcond float64, opts []gpuarr.Option) (x, residuals *gpuarr.Array[T], rank int, sv *gpuarr.Array[T], err error) {
	st, err := matrices("a", a)
	if err != nil {
		return nil, nil, 0, nil, err
	}
	if len(st.batch) > 0 {
		return nil, nil, 0, nil, fmt.Errorf("a is %v: want one matrix (lstsq takes no stacks): %w", a.Describe(), gpuarr.ErrShape)
	}
	if err := check("b", b); err != nil {
		return nil, nil, 0, nil, err
	}
	m, n := st.m, st.n
	bsh := b.Shape()
	if len(bsh) > 2 || len(bsh) == 0 || bsh[0] != m {
		return nil, nil, 0, nil, fmt.Errorf("b is %v and a is %v: want [%d] or [%d k]: %w", b.Describe(), a.Describe(), m, m, gpuarr.ErrShape)
	}
	vector := len(bsh) == 1
	kb := 1
	if !vector {
		kb = bsh[1]
	}
	s, err := streamOf(opts, a.Device())
	if err != nil {
		return nil, nil, 0, nil, err
	}
	if rcond < 0 {
		rcond = eps[T]() * float64(max(m, n))
	}
	var u, vh, b2, x2 *gpuarr.Array[T]
	defer func() {
		release(u, vh, b2)
		if err != nil {
			release(x, x2, residuals, sv)
			x, residuals, sv = nil, nil, nil
		}
	}()
	if vector {
		var bc *gpuarr.Array[T]
		if bc, err = gpuarr.Clone(b, on(s)); err != nil {
			return
		}
		b2, err = bc.Reshape(gpuarr.Shape{m, 1})
		bc.Release()
	} else {
		b2, err = working[T](b, gpuarr.Shape{m, kb}, s)
	}
	if err != nil {
		return
	}
	if u, sv, vh, err = svd(call, a, true, false, opts); err != nil {
		return
	}
	k := min(m, n)
	if k > 0 {
		var vals []T
		if vals, err = sv.ToSlice(); err != nil {
			return
		}
		cutoff := T(rcond * float64(vals[0]))
		for _, v := range vals {
			if v > cutoff {
				rank++
			}
		}
		sinv, err2 := reciprocals(sv, gpuarr.Scalar(cutoff), gpuarr.Shape{k, 1}, s)
		if err = err2; err != nil {
			return
		}
		defer sinv.Release()
		// x = vhᵀ·diag(1/s)·uᵀ·b over the singular values kept.
		utb, err2 := bmm(call, s, nil, 1, u, true, b2, false)
		if err = err2; err != nil {
			return
		}
		defer utb.Release()
		y, err2 := gpuarr.Eval(gpuarr.Mul[T](sinv, utb), on(s))
		if err = err2; err != nil {
			return
		}
		defer y.Release()
		if x2, err = bmm(call, s, nil, 1, vh, true, y, false); err != nil {
			return
		}
	} else if x2, err = gpuarr.Zeros[T](gpuarr.Shape{n, kb}, on(s)); err != nil {
		return
	}
	if rank == n && m > n {
		if residuals, err = residualNorms(call, s, a, x2, b2); err != nil {
			return
		}
	} else if residuals, err = gpuarr.Empty[T](gpuarr.Shape{0}, on(s)); err != nil {
		return
	}
	if !vector {
		x, x2 = x2, nil
		return
	}
	x, err = x2.Reshape(gpuarr.Shape{n})
	x2.Release()
	x2 = nil
	return
}

// reciprocals is 1/s where s > cutoff and 0 elsewhere (cutoff broadcasts
// against s), reshaped to sh.
func reciprocals[T Float](s *gpuarr.Array[T], cutoff gpuarr.Operand[T], sh gpuarr.Shape, st *device.Stream) (*gpuarr.Array[T], error) {
	r, err := gpuarr.Eval(gpuarr.Where(gpuarr.Greater[T](s, cutoff), gpuarr.Div(gpuarr.Scalar[T](1), gpuarr.Operand[T](s)), gpuarr.Scalar[T](0)), on(st))
	if err != nil {
		return nil, err
	}
	defer r.Release()
	return r.Reshape(sh)
}

// residualNorms is the squared norm of each column of a·x − b.
func residualNorms[T Float](call string, s *device.Stream, a, x, b *gpuarr.Array[T]) (*gpuarr.Array[T], error) {
	aw, err := working[T](a, a.Shape(), s)
	if err != nil {
		return nil, err
	}
	defer aw.Release()
	ax, err := bmm(call, s, nil, 1, aw, false, x, false)
	if err != nil {
		return nil, err
	}
	defer ax.Release()
	d := gpuarr.Sub[T](ax, b)
	return gpuarr.Sum(gpuarr.Mul(d, d), gpuarr.Axis(0), on(s))
}

// Pinv is the Moore–Penrose pseudo-inverse of a matrix or of each of a
// stack ([..., m, n] gives [..., n, m]), NumPy's linalg.pinv: through the
// SVD, with singular values at or below rcond times each matrix's largest
// counted as zero; rcond < 0 (DefaultTol) uses NumPy's default, 1e-15. It
// waits for SVD's info words. Errors and stream as SVD's.
func Pinv[T Float](a *gpuarr.Array[T], rcond float64, opts ...gpuarr.Option) (*gpuarr.Array[T], error) {
	const call = "linalg.Pinv"
	p, err := pinv(call, a, rcond, opts)
	return p, wrap(call, err)
}

func pinv[T Float](call string, a *gpuarr.Array[T], rcond float64, opts []gpuarr.Option) (*gpuarr.Array[T], error) {
	st, s, err := matricesOn("a", a, opts)
	if err != nil {
		return nil, err
	}
	if rcond < 0 {
		rcond = 1e-15
	}
	m, n := st.m, st.n
	k := min(m, n)
	if st.count == 0 || k == 0 {
		return gpuarr.Zeros[T](st.with(n, m), on(s))
	}
	u, sv, vh, err := svd(call, a, true, false, opts)
	if err != nil {
		return nil, err
	}
	defer release(u, sv, vh)
	smax, err := gpuarr.Max[T](sv, gpuarr.Axis(-1), gpuarr.KeepDims(), on(s))
	if err != nil {
		return nil, err
	}
	defer smax.Release()
	sinv, err := reciprocals(sv, gpuarr.Mul[T](smax, gpuarr.Scalar(T(rcond))), st.with(k, 1), s)
	if err != nil {
		return nil, err
	}
	defer sinv.Release()
	// pinv = vhᵀ·diag(1/s)·uᵀ.
	ut, err := swapLast(u)
	if err != nil {
		return nil, err
	}
	defer ut.Release()
	y, err := gpuarr.Eval(gpuarr.Mul[T](sinv, ut), on(s))
	if err != nil {
		return nil, err
	}
	defer y.Release()
	return bmm(call, s, st.batch, st.count, vh, true, y, false)
}

// MatrixRank is the rank of a matrix or of each of a stack ([..., m, n]
// gives [...]; a single matrix gives a 0-d array, read it with Item),
// NumPy's linalg.matrix_rank: the number of singular values above tol;
// tol < 0 (DefaultTol) uses NumPy's default, each matrix's largest
// singular value · max(m, n) · machine epsilon. It waits for SVDVals'
// info words. Errors and stream as SVD's.
func MatrixRank[T Float](a *gpuarr.Array[T], tol float64, opts ...gpuarr.Option) (*gpuarr.Array[int64], error) {
	const call = "linalg.MatrixRank"
	r, err := matrixRank(call, a, tol, opts)
	return r, wrap(call, err)
}

func matrixRank[T Float](call string, a *gpuarr.Array[T], tol float64, opts []gpuarr.Option) (*gpuarr.Array[int64], error) {
	st, s, err := matricesOn("a", a, opts)
	if err != nil {
		return nil, err
	}
	if st.count == 0 || min(st.m, st.n) == 0 {
		return gpuarr.Zeros[int64](st.with(), on(s))
	}
	_, sv, _, err := svd(call, a, false, false, opts)
	if err != nil {
		return nil, err
	}
	defer sv.Release()
	var thr gpuarr.Operand[T] = gpuarr.Scalar(T(tol))
	if tol < 0 {
		smax, err := gpuarr.Max[T](sv, gpuarr.Axis(-1), gpuarr.KeepDims(), on(s))
		if err != nil {
			return nil, err
		}
		defer smax.Release()
		thr = gpuarr.Mul[T](smax, gpuarr.Scalar(T(float64(max(st.m, st.n))*eps[T]())))
	}
	return gpuarr.Sum(gpuarr.FromMask[int64](gpuarr.Greater[T](sv, thr)), gpuarr.Axis(-1), on(s))
}
