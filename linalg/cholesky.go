package linalg

import (
	"fmt"

	"github.com/gpuarr/gpuarr/device"
	"github.com/gpuarr/gpuarr/gpuarr"
	"github.com/gpuarr/gpuarr/internal/arrayhook"
)

// Triangle names a triangle of a square matrix: which one a routine reads
// of a symmetric matrix, or which Cholesky factor it makes or takes.
type Triangle uint8

const (
	// Lower is the triangle on and below the diagonal (NumPy's UPLO='L',
	// the default of NumPy's cholesky and eigh).
	Lower Triangle = iota
	// Upper is the triangle on and above the diagonal.
	Upper
)

func (t Triangle) String() string {
	if t == Upper {
		return "Upper"
	}
	return "Lower"
}

// colUpper is whether triangle t of a row-major matrix is the upper
// triangle of its memory read column-major (the transpose): the lower
// triangle of A is the upper triangle of Aᵀ.
func (t Triangle) colUpper() bool { return t == Lower }

func checkTriangle(t Triangle) error {
	if t != Lower && t != Upper {
		return fmt.Errorf("Triangle(%d): want Lower or Upper: %w", t, gpuarr.ErrArgument)
	}
	return nil
}

// Cholesky is the Cholesky factor of a symmetric positive definite matrix
// or of each of a stack ([..., n, n]), NumPy's linalg.cholesky: with
// Lower, L with a = L·Lᵀ, computed from a's lower triangle; with Upper, U
// with a = Uᵀ·U, from a's upper triangle (NumPy's upper=True). The other
// triangle of the result is zero.
//
// cuSOLVER's potrf (potrfBatched for stacks of small matrices), gonum on
// the host. A matrix that is not positive definite is an *Error matching
// ErrNotPositiveDefinite; the info word is read back before Cholesky
// returns (one wait). Errors and stream as Solve's.
func Cholesky[T Float](a *gpuarr.Array[T], tri Triangle, opts ...gpuarr.Option) (*gpuarr.Array[T], error) {
	const call = "linalg.Cholesky"
	l, err := cholesky(call, a, tri, opts)
	return l, wrap(call, err)
}

func cholesky[T Float](call string, a *gpuarr.Array[T], tri Triangle, opts []gpuarr.Option) (*gpuarr.Array[T], error) {
	if err := checkTriangle(tri); err != nil {
		return nil, err
	}
	st, s, err := squaresOn("a", a, opts)
	if err != nil {
		return nil, err
	}
	n := st.n
	sh := st.with(n, n)
	if st.count == 0 || n == 0 {
		return gpuarr.Empty[T](sh, on(s))
	}
	// cuSOLVER's potrf is much faster on the lower triangle of a
	// column-major matrix than on the upper one (BENCHMARKS.md), and that
	// is the upper triangle of a row-major one. So the factor is computed
	// as U with a = Uᵀ·U from the row-major upper triangle: for Upper,
	// a's own; for Lower, a's lower triangle transposed, and L = Uᵀ is
	// transposed back. The working copy holds that triangle, the other
	// zeroed: potrf reads and writes only that triangle, so the copy
	// becomes U in place (one pass over memory before the factorization;
	// a second after it for Lower, and after potrfBatched, which writes
	// the other triangle too).
	var src gpuarr.Operand[T] = a
	if tri == Lower {
		at, err := swapLast(a)
		if err != nil {
			return nil, err
		}
		defer at.Release()
		src = at
	}
	w, err := masked[T](src, sh, upperTri, false, s)
	if err != nil {
		return nil, err
	}
	info, err := newInfo(st.count, s)
	if err != nil {
		w.Release()
		return nil, err
	}
	defer info.Release()
	err = potrf[T](call, s, st, w, false, info)
	if err == nil {
		err = checkInfo(call, info, st, ErrNotPositiveDefinite)
	}
	if err == nil {
		var d *gpuarr.Array[T]
		if d, err = diagonalOf(w, st); err == nil {
			err = checkNaN(d, st, n, ErrNotPositiveDefinite, s)
			d.Release()
		}
	}
	if err == nil && (tri == Lower || batched(st)) {
		var z *gpuarr.Array[T]
		if tri == Lower {
			var wt *gpuarr.Array[T]
			if wt, err = swapLast(w); err == nil {
				z, err = masked[T](wt, sh, lowerTri, false, s)
				wt.Release()
			}
		} else {
			z, err = masked[T](w, sh, upperTri, false, s)
		}
		if err == nil {
			w.Release()
			w = z
		}
	}
	if err != nil {
		w.Release()
		return nil, err
	}
	return w, nil
}

// potrf factors w's column-major n×n matrices in place (the other triangle
// is left alone by potrf, undefined after potrfBatched).
func potrf[T Float](call string, s *device.Stream, st stack, w *gpuarr.Array[T], upper bool, info *gpuarr.Array[int32]) error {
	n, count, dt, es := st.n, st.count, dtype[T](), esize[T]()
	if batched(st) {
		ap, err := pointers(s, ptr(w), uint64(n*n)*es, count)
		if err != nil {
			return err
		}
		defer ap.Release()
		return issue(call, s, []arrayhook.Use{readsWrites(w, s), writes(info, s), reads(ap, s)},
			step{1, func(int) device.SolverCall {
				return device.SolverCall{Op: device.PotrfBatched, Type: dt, N: n, Batch: count, Upper: upper,
					A: ptr(ap), LDA: n, Info: ptr(info)}
			}})
	}
	return issue(call, s, []arrayhook.Use{readsWrites(w, s), writes(info, s)},
		step{count, func(i int) device.SolverCall {
			return device.SolverCall{Op: device.Potrf, Type: dt, N: n, Upper: upper,
				A: ptr(w).Add(uint64(i*n*n) * es), LDA: n, Info: ptr(info).Add(uint64(i) * 4)}
		}})
}

// CholeskySolve solves a·x = b given the Cholesky factor c of a (as
// Cholesky returns it, with the same Triangle: L with a = L·Lᵀ, or U with
// a = Uᵀ·U), SciPy's cho_solve and PyTorch's cholesky_solve. c is [...,
// n, n]; b is a vector [n] or [..., n, k], and the result has b's kind,
// as with Solve. Only the triangle tri of c is read.
//
// cuSOLVER's potrs (potrsBatched for stacks of small matrices with one
// right-hand side), gonum on the host. It reads nothing back and does not
// wait: the factor's diagonal is not checked (a zero there gives
// infinities, as with SciPy). Errors and stream as Solve's.
func CholeskySolve[T Float](c, b *gpuarr.Array[T], tri Triangle, opts ...gpuarr.Option) (*gpuarr.Array[T], error) {
	const call = "linalg.CholeskySolve"
	x, err := choleskySolve(call, c, b, tri, opts)
	return x, wrap(call, err)
}

func choleskySolve[T Float](call string, c, b *gpuarr.Array[T], tri Triangle, opts []gpuarr.Option) (*gpuarr.Array[T], error) {
	if err := checkTriangle(tri); err != nil {
		return nil, err
	}
	st, k, vector, s, err := systems("c", c, b, opts)
	if err != nil {
		return nil, err
	}
	n, count, dt, es := st.n, st.count, dtype[T](), esize[T]()
	out := st.with(n, k)
	if vector {
		out = st.with(n)
	}
	if count == 0 || n == 0 || k == 0 {
		return gpuarr.Zeros[T](out, on(s))
	}
	w, err := working[T](c, st.with(n, n), s)
	if err != nil {
		return nil, err
	}
	defer w.Release()
	x, err := rhsColumns(b, st, k, vector, s)
	if err != nil {
		return nil, err
	}
	info, err := newInfo(count, s)
	if err != nil {
		x.Release()
		return nil, err
	}
	defer info.Release()
	upper := tri.colUpper()
	if count > 1 && k == 1 && n <= maxBatchedN {
		var ap, bp *gpuarr.Array[uint64]
		if ap, err = pointers(s, ptr(w), uint64(n*n)*es, count); err == nil {
			bp, err = pointers(s, ptr(x), uint64(n)*es, count)
		}
		defer release(ap, bp)
		if err == nil {
			err = issue(call, s, []arrayhook.Use{reads(w, s), readsWrites(x, s), writes(info, s), reads(ap, s), reads(bp, s)},
				step{1, func(int) device.SolverCall {
					return device.SolverCall{Op: device.PotrsBatched, Type: dt, N: n, NRHS: 1, Batch: count, Upper: upper,
						A: ptr(ap), LDA: n, B: ptr(bp), LDB: n, Info: ptr(info)}
				}})
		}
	} else {
		err = issue(call, s, []arrayhook.Use{reads(w, s), readsWrites(x, s), writes(info, s)},
			step{count, func(i int) device.SolverCall {
				return device.SolverCall{Op: device.Potrs, Type: dt, N: n, NRHS: k, Upper: upper,
					A: ptr(w).Add(uint64(i*n*n) * es), LDA: n, B: ptr(x).Add(uint64(i*n*k) * es), LDB: n,
					Info: ptr(info).Add(uint64(i) * 4)}
			}})
	}
	defer x.Release()
	if err != nil {
		return nil, err
	}
	return rhsResult(x, out, k, vector, s)
}
