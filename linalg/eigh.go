package linalg

import (
	"github.com/gpuarr/gpuarr/device"
	"github.com/gpuarr/gpuarr/gpuarr"
	"github.com/gpuarr/gpuarr/internal/arrayhook"
)

// Eigh is the eigendecomposition of a symmetric matrix or of each of a
// stack ([..., n, n]), NumPy's linalg.eigh: eigenvalues w [..., n] in
// ascending order and orthonormal eigenvectors v [..., n, n], column i
// for w[i], so that a·v = v·diag(w). Only the triangle tri of a is read
// (NumPy's UPLO; Lower is NumPy's default). An eigenvector's sign is
// arbitrary, as with NumPy.
//
// cuSOLVER's syevd (divide and conquer) for one matrix or large ones,
// syevjBatched (Jacobi) for stacks of matrices up to 32×32; gonum on the
// host. An algorithm that does not converge is an *Error matching
// ErrNoConvergence; the info words are read back before Eigh returns
// (one wait). Errors and stream as Solve's.
func Eigh[T Float](a *gpuarr.Array[T], tri Triangle, opts ...gpuarr.Option) (w, v *gpuarr.Array[T], err error) {
	return eigh("linalg.Eigh", a, tri, true, opts)
}

// Eigvalsh is Eigh's eigenvalues alone, NumPy's linalg.eigvalsh.
func Eigvalsh[T Float](a *gpuarr.Array[T], tri Triangle, opts ...gpuarr.Option) (*gpuarr.Array[T], error) {
	w, _, err := eigh("linalg.Eigvalsh", a, tri, false, opts)
	return w, err
}

func eigh[T Float](call string, a *gpuarr.Array[T], tri Triangle, vectors bool, opts []gpuarr.Option) (w, v *gpuarr.Array[T], err error) {
	defer func() {
		if err != nil {
			release(w, v)
			w, v = nil, nil
			err = wrap(call, err)
		}
	}()
	if err := checkTriangle(tri); err != nil {
		return nil, nil, err
	}
	st, s, err := squaresOn("a", a, opts)
	if err != nil {
		return nil, nil, err
	}
	n := st.n
	if w, err = gpuarr.Empty[T](st.with(n), on(s)); err != nil {
		return
	}
	if st.count == 0 || n == 0 {
		if vectors {
			v, err = gpuarr.Empty[T](st.with(n, n), on(s))
		}
		return
	}
	// a is symmetric: its memory is itself column-major, and its triangle
	// tri is the other one there.
	x, info, done, err := workingInfo[T](a, st.with(n, n), st.count, s)
	if err != nil {
		return
	}
	defer done()
	dt, es, count, upper := dtype[T](), esize[T](), st.count, tri.colUpper()
	uses := []arrayhook.Use{readsWrites(x, s), writes(w, s), writes(info, s)}
	if count > 1 && n <= device.MaxJacobiBatchN {
		err = issue(call, s, uses, step{1, func(int) device.SolverCall {
			return device.SolverCall{Op: device.SyevjBatched, Type: dt, N: n, Batch: count, Upper: upper, Vectors: vectors,
				A: ptr(x), LDA: n, Vals: ptr(w), Info: ptr(info)}
		}})
	} else {
		err = issue(call, s, uses, step{count, func(i int) device.SolverCall {
			return device.SolverCall{Op: device.Syevd, Type: dt, N: n, Upper: upper, Vectors: vectors,
				A: ptr(x).Add(uint64(i*n*n) * es), LDA: n, Vals: ptr(w).Add(uint64(i*n) * es), Info: ptr(info).Add(uint64(i) * 4)}
		}})
	}
	if err != nil {
		return
	}
	if vectors {
		// x holds the eigenvectors as columns, column-major.
		if v, err = transposed(x, st.with(n, n), s); err != nil {
			return
		}
	}
	if err = checkInfo(call, info, st, ErrNoConvergence); err == nil {
		err = checkNaN(w, st, n, ErrNoConvergence, s)
	}
	return
}
