package linalg

import (
	"github.com/gpuarr/gpuarr/device"
	"github.com/gpuarr/gpuarr/gpuarr"
	"github.com/gpuarr/gpuarr/internal/arrayhook"
)

// Det is the determinant of a square matrix or of each of a stack ([...,
// n, n] gives [...]; a single matrix gives a 0-d array, read it with
// Item), NumPy's linalg.det: sign·exp(logabsdet) from Slogdet. A singular
// matrix has determinant 0, not an error, and Det does not wait for the
// result (nothing is read back). Errors and stream as Solve's.
func Det[T Float](a *gpuarr.Array[T], opts ...gpuarr.Option) (*gpuarr.Array[T], error) {
	const call = "linalg.Det"
	d, err := det(call, a, opts)
	return d, wrap(call, err)
}

func det[T Float](call string, a *gpuarr.Array[T], opts []gpuarr.Option) (*gpuarr.Array[T], error) {
	sign, logdet, err := slogdet(call, a, opts)
	if err != nil {
		return nil, err
	}
	defer release(sign, logdet)
	s, err := streamOf(opts, a.Device())
	if err != nil {
		return nil, err
	}
	d, err := gpuarr.Eval(gpuarr.Mul[T](sign, gpuarr.Exp[T](logdet)), on(s))
	if err != nil {
		return nil, err
	}
	return d, nil
}

// Slogdet is the sign and the natural logarithm of the absolute value of
// the determinant of a square matrix or of each of a stack, NumPy's
// linalg.slogdet: the determinant is sign·exp(logabsdet) without its
// overflow. sign is 1, -1, or 0 for a singular matrix (whose logabsdet is
// -Inf). Like Det, it does not wait for the result.
func Slogdet[T Float](a *gpuarr.Array[T], opts ...gpuarr.Option) (sign, logabsdet *gpuarr.Array[T], err error) {
	const call = "linalg.Slogdet"
	sign, logabsdet, err = slogdet(call, a, opts)
	return sign, logabsdet, wrap(call, err)
}

func slogdet[T Float](call string, a *gpuarr.Array[T], opts []gpuarr.Option) (sign, logabsdet *gpuarr.Array[T], err error) {
	st, s, err := squaresOn("a", a, opts)
	if err != nil {
		return nil, nil, err
	}
	n := st.n
	if st.count == 0 || n == 0 {
		// The empty product: det = 1.
		if sign, err = gpuarr.Full(st.with(), T(1), on(s)); err != nil {
			return nil, nil, err
		}
		if logabsdet, err = gpuarr.Zeros[T](st.with(), on(s)); err != nil {
			sign.Release()
			return nil, nil, err
		}
		return sign, logabsdet, nil
	}
	lu, err := working[T](a, st.with(n, n), s)
	if err != nil {
		return nil, nil, err
	}
	defer lu.Release()
	swaps, err := luFactor[T](call, s, st, lu)
	if err != nil {
		return nil, nil, err
	}
	defer swaps.Release()
	// det(Aᵀ) = det(A): lu holds Aᵀ's factors; det = (-1)^swaps · ∏ U(i,i).
	diag, err := diagonalOf(lu, st)
	if err != nil {
		return nil, nil, err
	}
	defer diag.Release()
	last := gpuarr.Axis(-1)
	one, zero := gpuarr.Scalar[T](1), gpuarr.Scalar[T](0)
	dsign := gpuarr.Where(gpuarr.Less[T](diag, zero), gpuarr.Scalar[T](-1), gpuarr.Where(gpuarr.Equal[T](diag, zero), zero, one))
	ds, err := gpuarr.Prod[T](dsign, last, on(s))
	if err != nil {
		return nil, nil, err
	}
	defer ds.Release()
	// (-1)^swaps = 1 - 2·(swaps mod 2), swaps ≥ 0.
	parity := gpuarr.Sub[int64](swaps, gpuarr.Mul(gpuarr.Scalar[int64](2), gpuarr.Div[int64](swaps, gpuarr.Scalar[int64](2))))
	psign := gpuarr.Cast[T](gpuarr.Sub(gpuarr.Scalar[int64](1), gpuarr.Mul(gpuarr.Scalar[int64](2), parity)))
	if sign, err = gpuarr.Eval(gpuarr.Mul[T](ds, psign), on(s)); err != nil {
		return nil, nil, err
	}
	if logabsdet, err = gpuarr.Sum(gpuarr.Log(gpuarr.Abs[T](diag)), last, on(s)); err != nil {
		sign.Release()
		return nil, nil, err
	}
	return sign, logabsdet, nil
}

// luFactor factors lu (the stack's column-major n×n matrices) in place
// and returns how many row interchanges each factorization made (an
// int64 array of the stack's batch shape). A zero pivot is not an error
// here: the determinant is then 0.
func luFactor[T Float](call string, s *device.Stream, st stack, lu *gpuarr.Array[T]) (*gpuarr.Array[int64], error) {
	n, count, dt, es := st.n, st.count, dtype[T](), esize[T]()
	info, err := newInfo(count, s)
	if err != nil {
		return nil, err
	}
	defer info.Release()
	var pivots gpuarr.Operand[int64]
	if batched(st) {
		piv, err := gpuarr.Empty[int32](st.with(n), on(s))
		if err != nil {
			return nil, err
		}
		defer piv.Release()
		ap, err := pointers(s, ptr(lu), uint64(n*n)*es, count)
		if err != nil {
			return nil, err
		}
		defer ap.Release()
		err = issue(call, s, []arrayhook.Use{readsWrites(lu, s), writes(piv, s), writes(info, s), reads(ap, s)},
			step{1, func(int) device.SolverCall {
				return device.SolverCall{Op: device.GetrfBatched, Type: dt, N: n, Batch: count,
					A: ptr(ap), LDA: n, Ipiv: ptr(piv), Info: ptr(info)}
			}})
		if err != nil {
			return nil, err
		}
		pivots = gpuarr.Cast[int64](piv)
	} else {
		piv, err := gpuarr.Empty[int64](st.with(n), on(s))
		if err != nil {
			return nil, err
		}
		defer piv.Release()
		err = issue(call, s, []arrayhook.Use{readsWrites(lu, s), writes(piv, s), writes(info, s)},
			step{count, func(i int) device.SolverCall {
				return device.SolverCall{Op: device.Getrf, Type: dt, M: n, N: n,
					A: ptr(lu).Add(uint64(i*n*n) * es), LDA: n, Ipiv: ptr(piv).Add(uint64(i*n) * 8), Info: ptr(info).Add(uint64(i) * 4)}
			}})
		if err != nil {
			return nil, err
		}
		pivots = piv
	}
	ix, err := indices(s, n)
	if err != nil {
		return nil, err
	}
	defer ix.Release()
	// Pivots are 1-based: row i was swapped when ipiv[i] ≠ i+1.
	moved := gpuarr.NotEqual[int64](pivots, gpuarr.Add(gpuarr.Cast[int64](ix), gpuarr.Scalar[int64](1)))
	swaps, err := gpuarr.Sum(gpuarr.FromMask[int64](moved), gpuarr.Axis(-1), on(s))
	if err != nil {
		return nil, err
	}
	return swaps, nil
}
