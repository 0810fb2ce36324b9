package linalg

import (
	"github.com/gpuarr/gpuarr/device"
	"github.com/gpuarr/gpuarr/gpuarr"
	"github.com/gpuarr/gpuarr/internal/arrayhook"
)

// SVD is the singular value decomposition of a matrix or of each of a
// stack ([..., m, n]), NumPy's linalg.svd: a = u·diag(s)·vh with the
// singular values s [..., k] (k = min(m, n)) descending and nonnegative.
// With full (NumPy's full_matrices=True, its default), u is [..., m, m]
// and vh [..., n, n]; without, u is [..., m, k] and vh [..., k, n]. A
// singular vector's sign is arbitrary, as with NumPy.
//
// Jacobi rotations: cuSOLVER's gesvdj for one matrix or large ones (the
// algorithm PyTorch uses), gesvdjBatched for stacks of matrices up to
// 32×32; gonum's gesvd on the host. An algorithm that does not converge
// (a NaN or infinity in a) is an *Error matching ErrNoConvergence; the
// info words are read back before SVD returns (one wait). Errors and
// stream as Solve's.
func SVD[T Float](a *gpuarr.Array[T], full bool, opts ...gpuarr.Option) (u, s, vh *gpuarr.Array[T], err error) {
	const call = "linalg.SVD"
	u, s, vh, err = svd(call, a, true, full, opts)
	return u, s, vh, wrap(call, err)
}

// SVDVals is the singular values alone, descending ([..., min(m, n)]),
// NumPy's linalg.svdvals (svd with compute_uv=False). As SVD, it waits
// for the info words.
func SVDVals[T Float](a *gpuarr.Array[T], opts ...gpuarr.Option) (*gpuarr.Array[T], error) {
	const call = "linalg.SVDVals"
	_, s, _, err := svd(call, a, false, false, opts)
	return s, wrap(call, err)
}

func svd[T Float](call string, a *gpuarr.Array[T], vectors, full bool, opts []gpuarr.Option) (u, sv, vh *gpuarr.Array[T], err error) {
	st, s, err := matricesOn("a", a, opts)
	if err != nil {
		return nil, nil, nil, err
	}
	defer func() {
		if err != nil {
			release(u, sv, vh)
			u, sv, vh = nil, nil, nil
		}
	}()
	m, n := st.m, st.n
	k := min(m, n)
	uc, vr := k, k // u's columns, vh's rows
	if full {
		uc, vr = m, n
	}
	if sv, err = gpuarr.Empty[T](st.with(k), on(s)); err != nil {
		return
	}
	if st.count == 0 || k == 0 {
		if !vectors {
			return
		}
		if u, err = identity[T](st.with(m, uc), s); err != nil {
			return
		}
		vh, err = identity[T](st.with(vr, n), s)
		return
	}
	// a's memory is M = aᵀ column-major (n×m): M = U_M·S·V_Mᵀ gives
	// a = V_M·S·U_Mᵀ, so vh is U_Mᵀ (U_M's memory read row-major, as it is)
	// and u is V_M (transposed).
	x, info, done, err := workingInfo[T](a, st.with(m, n), st.count, s)
	if err != nil {
		return
	}
	defer done()
	dt, es, count := dtype[T](), esize[T](), st.count
	// U_M [..., cu, n] and V_M [..., cv, m], column-major. cuSOLVER's
	// gesvdj needs them even for the values alone (thin then).
	batched := count > 1 && m <= device.MaxJacobiBatchN && n <= device.MaxJacobiBatchN
	econ := !full || !vectors
	cu, cv := k, k
	if batched || !econ {
		cu, cv = n, m // gesvdjBatched computes the full factors
	}
	um, err := gpuarr.Empty[T](st.with(cu, n), on(s))
	if err != nil {
		return
	}
	defer um.Release()
	vm, err := gpuarr.Empty[T](st.with(cv, m), on(s))
	if err != nil {
		return
	}
	defer vm.Release()
	uses := []arrayhook.Use{readsWrites(x, s), writes(sv, s), writes(info, s), writes(um, s), writes(vm, s)}
	at := func(a *gpuarr.Array[T], off uint64) device.Ptr { return ptr(a).Add(off * es) }
	if batched {
		err = issue(call, s, uses, step{1, func(int) device.SolverCall {
			return device.SolverCall{Op: device.GesvdjBatched, Type: dt, M: n, N: m, Batch: count, Vectors: vectors,
				A: ptr(x), LDA: n, Vals: ptr(sv), U: at(um, 0), LDU: n, V: at(vm, 0), LDV: m, Info: ptr(info)}
		}})
	} else {
		err = issue(call, s, uses, step{count, func(i int) device.SolverCall {
			return device.SolverCall{Op: device.Gesvdj, Type: dt, M: n, N: m, Vectors: vectors, Econ: econ,
				A: ptr(x).Add(uint64(i*m*n) * es), LDA: n, Vals: ptr(sv).Add(uint64(i*k) * es),
				U: at(um, uint64(i*cu*n)), LDU: n, V: at(vm, uint64(i*cv*m)), LDV: m, Info: ptr(info).Add(uint64(i) * 4)}
		}})
	}
	if err != nil {
		return
	}
	if vectors {
		uv, err2 := rows(vm, uc)
		if err = err2; err != nil {
			return
		}
		defer uv.Release()
		if u, err = transposed(uv, st.with(m, uc), s); err != nil {
			return
		}
		vv, err2 := rows(um, vr)
		if err = err2; err != nil {
			return
		}
		defer vv.Release()
		if vh, err = working[T](vv, st.with(vr, n), s); err != nil {
			return
		}
	}
	if err = checkInfo(call, info, st, ErrNoConvergence); err == nil {
		err = checkNaN(sv, st, k, ErrNoConvergence, s)
	}
	return
}
