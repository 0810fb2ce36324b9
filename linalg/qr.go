package linalg

import (
	"fmt"

	"github.com/gpuarr/gpuarr/device"
	"github.com/gpuarr/gpuarr/gpuarr"
	"github.com/gpuarr/gpuarr/internal/arrayhook"
)

// QRMode says what QR returns, as NumPy's mode argument does.
type QRMode uint8

const (
	// Reduced: q [..., m, k] and r [..., k, n], k = min(m, n) (NumPy's
	// default, "reduced").
	Reduced QRMode = iota
	// Complete: q [..., m, m] and r [..., m, n] ("complete").
	Complete
	// ROnly: r [..., k, n] alone; q is nil ("r").
	ROnly
)

func (m QRMode) String() string {
	switch m {
	case Reduced:
		return "Reduced"
	case Complete:
		return "Complete"
	case ROnly:
		return "ROnly"
	}
	return fmt.Sprintf("QRMode(%d)", uint8(m))
}

// QR is the QR factorization of a matrix or of each of a stack ([..., m,
// n]), NumPy's linalg.qr: a = q·r with q's columns orthonormal and r upper
// triangular. Householder reflections (cuSOLVER's geqrf and orgqr, gonum
// on the host); the signs of r's diagonal follow LAPACK's convention, as
// NumPy's do. QR reads nothing back and does not wait. Errors and stream
// as Solve's; an unknown mode is ErrArgument.
func QR[T Float](a *gpuarr.Array[T], mode QRMode, opts ...gpuarr.Option) (q, r *gpuarr.Array[T], err error) {
	const call = "linalg.QR"
	defer func() {
		if err != nil {
			release(q, r)
			q, r = nil, nil
			err = wrap(call, err)
		}
	}()
	if mode > ROnly {
		return nil, nil, fmt.Errorf("%v: want Reduced, Complete or ROnly: %w", mode, gpuarr.ErrArgument)
	}
	st, s, err := matricesOn("a", a, opts)
	if err != nil {
		return nil, nil, err
	}
	m, n := st.m, st.n
	k := min(m, n)
	rRows, qCols := k, k
	if mode == Complete {
		rRows, qCols = m, m
	}
	if st.count == 0 || k == 0 {
		if r, err = gpuarr.Zeros[T](st.with(rRows, n), on(s)); err != nil || mode == ROnly {
			return
		}
		if qCols == m {
			q, err = identity[T](st.with(m, m), s)
		} else {
			q, err = gpuarr.Empty[T](st.with(m, qCols), on(s))
		}
		return
	}
	// w holds each matrix column-major (m×n, leading dimension m).
	w, err := transposed(a, st.with(n, m), s)
	if err != nil {
		return
	}
	defer w.Release()
	tau, err := gpuarr.Empty[T](st.with(k), on(s))
	if err != nil {
		return
	}
	defer tau.Release()
	info, err := newInfo(st.count, s)
	if err != nil {
		return
	}
	defer info.Release()
	dt, es := dtype[T](), esize[T]()
	err = issue(call, s, []arrayhook.Use{readsWrites(w, s), writes(tau, s), writes(info, s)},
		step{st.count, func(i int) device.SolverCall {
			return device.SolverCall{Op: device.Geqrf, Type: dt, M: m, N: n, A: ptr(w).Add(uint64(i*m*n) * es), LDA: m,
				Vals: ptr(tau).Add(uint64(i*k) * es), Info: ptr(info).Add(uint64(i) * 4)}
		}})
	if err != nil {
		return
	}
	packed, err := swapLast(w)
	if err != nil {
		return
	}
	defer packed.Release()
	rv, err := rows(packed, min(rRows, m))
	if err != nil {
		return
	}
	defer rv.Release()
	// Issued before orgqr overwrites w, on the same stream.
	if r, err = masked[T](rv, st.with(rRows, n), upperTri, false, s); err != nil || mode == ROnly {
		return
	}
	// Q's qCols columns, column-major with leading dimension m: in w when
	// they fit among its n columns, else in a new m×m matrix whose first
	// n columns are w's.
	qm := w
	if qCols > n {
		if qm, err = gpuarr.Empty[T](st.with(m, m), on(s)); err != nil {
			return
		}
		defer qm.Release()
		err = copies(call, s, []arrayhook.Use{reads(w, s), writes(qm, s)}, st.count, func(i int) (dst, src device.Ptr, bytes uint64) {
			return ptr(qm).Add(uint64(i*m*m) * es), ptr(w).Add(uint64(i*m*n) * es), uint64(m*n) * es
		})
		if err != nil {
			return
		}
	}
	stride := uint64(m*qm.Shape()[len(st.batch)]) * es
	err = issue(call, s, []arrayhook.Use{readsWrites(qm, s), reads(tau, s), writes(info, s)},
		step{st.count, func(i int) device.SolverCall {
			return device.SolverCall{Op: device.Orgqr, Type: dt, M: m, N: qCols, K: k,
				A: ptr(qm).Add(uint64(i) * stride), LDA: m, Vals: ptr(tau).Add(uint64(i*k) * es), Info: ptr(info).Add(uint64(i) * 4)}
		}})
	if err != nil {
		return
	}
	qv, err := rows(qm, qCols)
	if err != nil {
		return
	}
	defer qv.Release()
	q, err = transposed(qv, st.with(m, qCols), s)
	return
}
