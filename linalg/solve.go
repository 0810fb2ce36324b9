package linalg

import (
	"fmt"

	"github.com/gpuarr/gpuarr/device"
	"github.com/gpuarr/gpuarr/gpuarr"
	"github.com/gpuarr/gpuarr/internal/arrayhook"
)

// maxBatchedN is the largest matrix side for which a stack of several
// matrices goes to the library's batched routines (one call for the whole
// stack: cuBLAS getrfBatched and getrsBatched, cuSOLVER potrfBatched and
// potrsBatched); larger ones are factored one call per matrix, where the
// per-matrix routines use the GPU better.
const maxBatchedN = 128

// batched is whether the stack st is factored by the batched routines
// (many small matrices) rather than one call per matrix.
func batched(st stack) bool { return st.count > 1 && st.n <= maxBatchedN }

// Solve solves a·x = b for x, NumPy's linalg.solve: a is a square matrix
// or a stack of them ([..., n, n]); b is a vector [n], or a matrix or
// stack of matrices [..., n, k] (the stacks' leading axes broadcast). The
// result has b's kind: [..., n] for a vector b, [..., n, k] otherwise.
//
// It factors each matrix of a (LU with partial pivoting: cuSOLVER's
// getrf and getrs for one matrix or large ones, cuBLAS's batched
// routines for stacks of small ones; gonum on the host) and reads the
// factorization's info word back before it returns, which waits for the
// solve: a singular matrix is an *Error matching ErrSingular (with the
// stack index of the first one), never a result of infinities. Singular
// means an exactly zero pivot, as in LAPACK: a matrix singular only in
// exact arithmetic may factor with a pivot of rounding size instead
// (the libraries' rounding differs, FMA included) and give huge values
// without an error, as NumPy can; MatrixRank tells them apart. Other
// errors: ErrShape for shapes that do not fit, ErrArgument or ErrReleased
// for bad arrays, device.ErrNotSupported naming the library when it is
// missing. It runs on the default stream of a's device unless a
// gpuarr.On or gpuarr.OnDevice option says otherwise.
func Solve[T Float](a, b *gpuarr.Array[T], opts ...gpuarr.Option) (*gpuarr.Array[T], error) {
	const call = "linalg.Solve"
	x, err := solve(call, a, b, opts)
	return x, wrap(call, err)
}

func solve[T Float](call string, a, b *gpuarr.Array[T], opts []gpuarr.Option) (*gpuarr.Array[T], error) {
	st, k, vector, s, err := systems("a", a, b, opts)
	if err != nil {
		return nil, err
	}
	n := st.n
	out := st.with(n, k)
	if vector {
		out = st.with(n)
	}
	if st.count == 0 || n == 0 || k == 0 {
		return gpuarr.Zeros[T](out, on(s))
	}
	lu, err := working[T](a, st.with(n, n), s)
	if err != nil {
		return nil, err
	}
	defer lu.Release()
	info, err := newInfo(st.count, s)
	if err != nil {
		return nil, err
	}
	defer info.Release()
	x, err := rhsColumns(b, st, k, vector, s)
	if err != nil {
		return nil, err
	}
	defer x.Release()
	// lu holds Aᵀ column-major: solving Aᵀᵀ·x = b is getrs with Trans.
	if err := luSolve[T](call, s, st, lu, x, k, true, info); err != nil {
		return nil, err
	}
	if err := checkInfo(call, info, st, ErrSingular); err != nil {
		return nil, err
	}
	return rhsResult(x, out, k, vector, s)
}

// rhsResult is the solutions x (laid out as rhsColumns lays out b) as a
// new array of shape out.
func rhsResult[T Float](x *gpuarr.Array[T], out gpuarr.Shape, k int, vector bool, s *device.Stream) (*gpuarr.Array[T], error) {
	if vector || k == 1 {
		// One column: its column-major layout is the row-major one.
		return x.Reshape(out)
	}
	return transposed(x, out, s)
}

// systems reads the square matrices a (called name in messages) and the
// right-hand side b as rhs does, and finds the stream of opts on a's
// device.
func systems[T Float](name string, a, b *gpuarr.Array[T], opts []gpuarr.Option) (st stack, k int, vector bool, s *device.Stream, err error) {
	sa, err := squares(name, a)
	if err != nil {
		return stack{}, 0, false, nil, err
	}
	if st, k, vector, err = rhs(sa, b); err != nil {
		return stack{}, 0, false, nil, err
	}
	s, err = streamOf(opts, a.Device())
	return st, k, vector, s, err
}

// rhs reads b as the right-hand side of a stack of square systems sa: the
// broadcast stack, b's column count k, and whether b is a vector.
func rhs[T Float](sa stack, b *gpuarr.Array[T]) (st stack, k int, vector bool, err error) {
	if err := check("b", b); err != nil {
		return stack{}, 0, false, err
	}
	n := sa.n
	if b.Rank() == 1 {
		if b.Len() != n {
			return stack{}, 0, false, fmt.Errorf("b is %v and a's matrices are %d×%d: want a vector of %d: %w", b, n, n, n, gpuarr.ErrShape)
		}
		return sa, 1, true, nil
	}
	sb, err := matrices("b", b)
	if err != nil {
		return stack{}, 0, false, err
	}
	if sb.m != n {
		return stack{}, 0, false, fmt.Errorf("b is %v and a's matrices are %d×%d: want %d rows: %w", b, n, n, n, gpuarr.ErrShape)
	}
	batch, err := broadcastBatch(sa.batch, sb.batch)
	if err != nil {
		return stack{}, 0, false, err
	}
	return sa.rebatch(batch), sb.n, false, nil
}

// rhsColumns is b laid out as the libraries take right-hand sides: for
// each matrix of the stack, k columns of n, column-major ([..., k, n]
// row-major; a vector b, or a single column, is its own layout).
func rhsColumns[T Float](b *gpuarr.Array[T], st stack, k int, vector bool, s *device.Stream) (*gpuarr.Array[T], error) {
	switch {
	case vector:
		return working[T](b, st.with(st.n), s)
	case k == 1:
		return working[T](b, st.with(st.n, 1), s)
	}
	return transposed(b, st.with(k, st.n), s)
}

// luSolve factors lu (count column-major n×n matrices, n·n apart) in
// place and solves with each for the k columns of x (n·k apart): op(A)·X
// = B with op(A) = Aᵀ when trans. Getrf's info words go to info.
func luSolve[T Float](call string, s *device.Stream, st stack, lu, x *gpuarr.Array[T], k int, trans bool, info *gpuarr.Array[int32]) error {
	n, count, dt, es := st.n, st.count, dtype[T](), esize[T]()
	if batched(st) {
		piv, err := gpuarr.Empty[int32](gpuarr.Shape{count * n}, on(s))
		if err != nil {
			return err
		}
		defer piv.Release()
		ap, err := pointers(s, ptr(lu), uint64(n*n)*es, count)
		if err != nil {
			return err
		}
		defer ap.Release()
		bp, err := pointers(s, ptr(x), uint64(n*k)*es, count)
		if err != nil {
			return err
		}
		defer bp.Release()
		uses := []arrayhook.Use{readsWrites(lu, s), readsWrites(x, s), writes(piv, s), writes(info, s), reads(ap, s), reads(bp, s)}
		return issue(call, s, uses,
			step{1, func(int) device.SolverCall {
				return device.SolverCall{Op: device.GetrfBatched, Type: dt, N: n, Batch: count,
					A: ptr(ap), LDA: n, Ipiv: ptr(piv), Info: ptr(info)}
			}},
			step{1, func(int) device.SolverCall {
				return device.SolverCall{Op: device.GetrsBatched, Type: dt, N: n, NRHS: k, Batch: count, Trans: trans,
					A: ptr(ap), LDA: n, Ipiv: ptr(piv), B: ptr(bp), LDB: n}
			}})
	}
	piv, err := gpuarr.Empty[int64](gpuarr.Shape{count * n}, on(s))
	if err != nil {
		return err
	}
	defer piv.Release()
	// getrs writes an info word too (for bad arguments only): keep it
	// apart from getrf's.
	info2, err := newInfo(count, s)
	if err != nil {
		return err
	}
	defer info2.Release()
	uses := []arrayhook.Use{readsWrites(lu, s), readsWrites(x, s), writes(piv, s), writes(info, s), writes(info2, s)}
	return issue(call, s, uses,
		step{count, func(i int) device.SolverCall {
			return device.SolverCall{Op: device.Getrf, Type: dt, M: n, N: n,
				A: ptr(lu).Add(uint64(i*n*n) * es), LDA: n, Ipiv: ptr(piv).Add(uint64(i*n) * 8), Info: ptr(info).Add(uint64(i) * 4)}
		}},
		step{count, func(i int) device.SolverCall {
			return device.SolverCall{Op: device.Getrs, Type: dt, N: n, NRHS: k, Trans: trans,
				A: ptr(lu).Add(uint64(i*n*n) * es), LDA: n, Ipiv: ptr(piv).Add(uint64(i*n) * 8),
				B: ptr(x).Add(uint64(i*n*k) * es), LDB: n, Info: ptr(info2).Add(uint64(i) * 4)}
		}})
}

// Inv is the inverse of a square matrix or of each of a stack ([..., n,
// n]), NumPy's linalg.inv: LU factorization and a solve against the
// identity. A singular matrix is an *Error matching ErrSingular; the info
// word is read back before Inv returns (one wait). Errors and stream as
// Solve's.
func Inv[T Float](a *gpuarr.Array[T], opts ...gpuarr.Option) (*gpuarr.Array[T], error) {
	const call = "linalg.Inv"
	x, err := inv(call, a, opts)
	return x, wrap(call, err)
}

func inv[T Float](call string, a *gpuarr.Array[T], opts []gpuarr.Option) (*gpuarr.Array[T], error) {
	st, s, err := squaresOn("a", a, opts)
	if err != nil {
		return nil, err
	}
	n := st.n
	sh := st.with(n, n)
	if st.count == 0 || n == 0 {
		return gpuarr.Empty[T](sh, on(s))
	}
	lu, err := working[T](a, sh, s)
	if err != nil {
		return nil, err
	}
	defer lu.Release()
	info, err := newInfo(st.count, s)
	if err != nil {
		return nil, err
	}
	defer info.Release()
	x, err := identity[T](sh, s)
	if err != nil {
		return nil, err
	}
	// lu holds M = Aᵀ column-major; M·Y = I gives Y = (A⁻¹)ᵀ column-major,
	// which is A⁻¹ row-major.
	err = luSolve[T](call, s, st, lu, x, n, false, info)
	if err == nil {
		err = checkInfo(call, info, st, ErrSingular)
	}
	if err != nil {
		x.Release()
		return nil, err
	}
	return x, nil
}
