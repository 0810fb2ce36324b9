package device

import (
	"math"

	"github.com/gpuarr/gpuarr/device/driver"
)

// SolverOp names a dense linear-algebra routine; see driver.SolverOp.
type SolverOp = driver.SolverOp

// SolverCall is one call of a solver routine on column-major matrices;
// see driver.SolverCall.
type SolverCall = driver.SolverCall

// The solver routines (see driver's constants of the same names).
const (
	Getrf         = driver.Getrf
	Getrs         = driver.Getrs
	Potrf         = driver.Potrf
	Potrs         = driver.Potrs
	Geqrf         = driver.Geqrf
	Orgqr         = driver.Orgqr
	Syevd         = driver.Syevd
	Gesvd         = driver.Gesvd
	Gesvdj        = driver.Gesvdj
	GetrfBatched  = driver.GetrfBatched
	GetrsBatched  = driver.GetrsBatched
	PotrfBatched  = driver.PotrfBatched
	PotrsBatched  = driver.PotrsBatched
	SyevjBatched  = driver.SyevjBatched
	GesvdjBatched = driver.GesvdjBatched
)

// MaxJacobiBatchN is the largest matrix side SyevjBatched and
// GesvdjBatched take.
const MaxJacobiBatchN = 32

// SolverWorkspace is the device workspace, in bytes, that c needs
// (cuSOLVER's buffer-size query on CUDA; the host backend's scratch on
// the host). It reads no matrix memory. Without a solver library the
// error matches ErrNotSupported and names it; bad sizes match
// ErrInvalidValue.
func (s *Stream) SolverWorkspace(c *SolverCall) (uint64, error) {
	const call = "Stream.SolverWorkspace"
	if err := s.check(call); err != nil {
		return 0, err
	}
	if err := checkSolver(call, c, false); err != nil {
		return 0, err
	}
	sv, ok := s.drv.(driver.Solver)
	if !ok {
		return 0, driver.Errorf(call, driver.NotSupported, "the %s backend has no solver (%s)", s.dev.Backend(), driver.SolverLibrary)
	}
	if solverEmpty(c) {
		return 0, nil
	}
	return sv.SolverWorkspace(c)
}

// Solve queues c on s (cuSOLVER, or cuBLAS for the batched LU routines,
// on CUDA; gonum's LAPACK on the host). It returns once the work is
// queued: the routine's Info words say, once the stream reached them,
// whether it succeeded numerically. A call whose matrices have no
// element does nothing (Info is not written). Errors as SolverWorkspace's;
// a missing pointer or a workspace shorter than needed matches
// ErrInvalidValue.
func (s *Stream) Solve(c *SolverCall) error {
	const call = "Stream.Solve"
	if err := s.check(call); err != nil {
		return err
	}
	if err := checkSolver(call, c, true); err != nil {
		return err
	}
	sv, ok := s.drv.(driver.Solver)
	if !ok {
		return driver.Errorf(call, driver.NotSupported, "the %s backend has no solver (%s)", s.dev.Backend(), driver.SolverLibrary)
	}
	if solverEmpty(c) {
		return nil
	}
	return sv.Solve(c)
}

// solverEmpty reports a call with no matrix element to work on.
func solverEmpty(c *SolverCall) bool {
	switch c.Op {
	case driver.Getrf, driver.Geqrf, driver.Gesvd, driver.Gesvdj, driver.GesvdjBatched:
		return c.M == 0 || c.N == 0 || (c.Op.Batched() && c.Batch == 0)
	case driver.Getrs, driver.Potrs, driver.GetrsBatched, driver.PotrsBatched:
		return c.N == 0 || c.NRHS == 0 || (c.Op.Batched() && c.Batch == 0)
	case driver.Orgqr:
		return c.M == 0 || c.N == 0
	}
	return c.N == 0 || (c.Op.Batched() && c.Batch == 0)
}

// checkSolver refuses what the libraries would reject or misread: unknown
// routines and types, negative or oversized extents, leading dimensions
// shorter than a column, and (when ptrs) missing pointers.
func checkSolver(call string, c *SolverCall, ptrs bool) error {
	if c == nil {
		return invalid(call, "nil call")
	}
	if c.Op < driver.Getrf || c.Op > driver.GesvdjBatched {
		return invalid(call, "routine %v", c.Op)
	}
	if !driver.SolverType(c.Type) {
		return invalid(call, "%v: element type %v: want Float32 or Float64", c.Op, c.Type)
	}
	for _, d := range []struct {
		name string
		v    int
	}{{"M", c.M}, {"N", c.N}, {"K", c.K}, {"NRHS", c.NRHS}, {"Batch", c.Batch}} {
		if d.v < 0 || d.v > math.MaxInt32 {
			return invalid(call, "%v: %s=%d out of range [0, 2³¹)", c.Op, d.name, d.v)
		}
	}
	type mat struct {
		name       string
		rows, cols int
		ld         int
		p          driver.Ptr
	}
	var mats []mat
	var vecs []struct {
		name string
		p    driver.Ptr
	}
	vec := func(name string, p driver.Ptr) {
		vecs = append(vecs, struct {
			name string
			p    driver.Ptr
		}{name, p})
	}
	m, n := c.M, c.N
	switch c.Op {
	case driver.Getrf:
		mats = append(mats, mat{"A", m, n, c.LDA, c.A})
		vec("Ipiv", c.Ipiv)
	case driver.Getrs:
		mats = append(mats, mat{"A", n, n, c.LDA, c.A}, mat{"B", n, c.NRHS, c.LDB, c.B})
		vec("Ipiv", c.Ipiv)
	case driver.Potrf:
		mats = append(mats, mat{"A", n, n, c.LDA, c.A})
	case driver.Potrs:
		mats = append(mats, mat{"A", n, n, c.LDA, c.A}, mat{"B", n, c.NRHS, c.LDB, c.B})
	case driver.Geqrf:
		mats = append(mats, mat{"A", m, n, c.LDA, c.A})
		vec("Vals (tau)", c.Vals)
	case driver.Orgqr:
		if n > m || c.K > n {
			return invalid(call, "orgqr M=%d N=%d K=%d: want M ≥ N ≥ K", m, n, c.K)
		}
		mats = append(mats, mat{"A", m, n, c.LDA, c.A})
		if c.K > 0 {
			vec("Vals (tau)", c.Vals)
		}
	case driver.Syevd:
		mats = append(mats, mat{"A", n, n, c.LDA, c.A})
		vec("Vals (W)", c.Vals)
	case driver.Gesvd:
		if m < n {
			return invalid(call, "gesvd M=%d N=%d: want M ≥ N (factor the transpose)", m, n)
		}
		mats = append(mats, mat{"A", m, n, c.LDA, c.A})
		vec("Vals (S)", c.Vals)
		switch c.Job {
		case 'A':
			mats = append(mats, mat{"U", m, m, c.LDU, c.U}, mat{"VT", n, n, c.LDV, c.V})
		case 'S':
			mats = append(mats, mat{"U", m, n, c.LDU, c.U}, mat{"VT", n, n, c.LDV, c.V})
		case 'N':
		default:
			return invalid(call, "gesvd Job %q: want 'A', 'S' or 'N'", c.Job)
		}
	case driver.Gesvdj:
		// cuSOLVER's gesvdj fails without U and V even when it computes no
		// vectors: they are required either way.
		k := min(m, n)
		uc, vc := m, n
		if c.Econ {
			uc, vc = k, k
		}
		mats = append(mats, mat{"A", m, n, c.LDA, c.A}, mat{"U", m, uc, c.LDU, c.U}, mat{"V", n, vc, c.LDV, c.V})
		vec("Vals (S)", c.Vals)
	case driver.GetrfBatched, driver.PotrfBatched:
		mats = append(mats, mat{"A (pointer array)", n, n, c.LDA, c.A})
		if c.Op == driver.GetrfBatched {
			vec("Ipiv", c.Ipiv)
		}
	case driver.GetrsBatched, driver.PotrsBatched:
		if c.Op == driver.PotrsBatched && c.NRHS > 1 {
			return invalid(call, "potrsBatched NRHS=%d: the library takes one right-hand side", c.NRHS)
		}
		mats = append(mats, mat{"A (pointer array)", n, n, c.LDA, c.A}, mat{"B (pointer array)", n, c.NRHS, c.LDB, c.B})
		if c.Op == driver.GetrsBatched {
			vec("Ipiv", c.Ipiv)
		}
	case driver.SyevjBatched:
		if n > MaxJacobiBatchN {
			return invalid(call, "syevjBatched N=%d: at most %d", n, MaxJacobiBatchN)
		}
		mats = append(mats, mat{"A", n, n, c.LDA, c.A})
		vec("Vals (W)", c.Vals)
	case driver.GesvdjBatched:
		if m > MaxJacobiBatchN || n > MaxJacobiBatchN {
			return invalid(call, "gesvdjBatched M=%d N=%d: at most %d each", m, n, MaxJacobiBatchN)
		}
		mats = append(mats, mat{"A", m, n, c.LDA, c.A}, mat{"U", m, m, c.LDU, c.U}, mat{"V", n, n, c.LDV, c.V})
		vec("Vals (S)", c.Vals)
	}
	for _, x := range mats {
		if x.ld < max(1, x.rows) || x.ld > math.MaxInt32 {
			return invalid(call, "%v: LD%s=%d for a %d×%d column-major matrix: want at least %d", c.Op, x.name[:1], x.ld, x.rows, x.cols, max(1, x.rows))
		}
	}
	if !ptrs || solverEmpty(c) {
		return nil
	}
	for _, x := range mats {
		if x.p == 0 && x.rows > 0 && x.cols > 0 {
			return invalid(call, "%v: %s is a null pointer", c.Op, x.name)
		}
	}
	for _, v := range vecs {
		if v.p == 0 {
			return invalid(call, "%v: %s is a null pointer", c.Op, v.name)
		}
	}
	if c.Info == 0 && c.Op != driver.GetrsBatched {
		return invalid(call, "%v: Info is a null pointer", c.Op)
	}
	if c.WorkBytes > 0 && c.Work == 0 {
		return invalid(call, "%v: a %d-byte workspace at a null pointer", c.Op, c.WorkBytes)
	}
	return nil
}
