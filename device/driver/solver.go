package driver

import (
	"fmt"

	"github.com/gpuarr/gpuarr/device/dtype"
)

// SolverOp names one dense linear-algebra routine of a Solver, with
// LAPACK's semantics on column-major matrices.
type SolverOp uint8

// The routines. Sizes, pointers and leading dimensions are SolverCall's
// fields; each routine reads the fields its comment names. Pivots are
// 1-based as in LAPACK; Info is a device int32 (one per matrix for the
// batched routines that say so): 0 on success, i > 0 for the routine's
// numerical failure (a zero pivot U(i,i), a leading minor of order i
// that is not positive definite, no convergence).
const (
	// Getrf: LU with partial pivoting of the M×N matrix A (LDA) in place,
	// P·A = L·U. Ipiv: min(M,N) int64 pivots. Info: U(i,i) is exactly zero.
	Getrf SolverOp = iota + 1
	// Getrs: solves op(A)·X = B in place of the N×NRHS matrix B (LDB)
	// with Getrf's factors of the N×N A and Ipiv (int64); op(A) is Aᵀ
	// when Trans is set.
	Getrs
	// Potrf: Cholesky factor of the symmetric positive definite N×N A in
	// place: A = Uᵀ·U with Upper (the upper triangle is read and written),
	// else A = L·Lᵀ (the lower one). Info: the leading minor of order i is
	// not positive definite.
	Potrf
	// Potrs: solves A·X = B in place of the N×NRHS B with Potrf's factor
	// of A in the triangle Upper names.
	Potrs
	// Geqrf: QR factorization of the M×N A in place: R in the upper
	// triangle, the Householder vectors below it, their min(M,N) scalars
	// in Vals (Tau).
	Geqrf
	// Orgqr: overwrites the M×N A (M ≥ N ≥ K) with the first N columns of
	// Q from Geqrf's K reflectors (A's first K columns) and Vals (Tau).
	Orgqr
	// Syevd: eigenvalues (ascending, into Vals: N) of the symmetric N×N A,
	// read from the triangle Upper names; with Vectors, A is overwritten
	// by the orthonormal eigenvectors (column i for value i). Info: no
	// convergence.
	Syevd
	// Gesvd: singular values of the M×N A (M ≥ N), descending, into Vals
	// (N); A is destroyed. Job 'A' computes U (M×M, LDU) and VT (Vᵀ, N×N,
	// LDV), 'S' the first N columns of U and rows of VT, 'N' neither.
	// Info: no convergence.
	Gesvd
	// Gesvdj: the SVD of the M×N A (any shape) by Jacobi rotations,
	// values descending into Vals (min(M,N)); with Vectors, U (M×M, or
	// M×min(M,N) with Econ) and V itself, not Vᵀ (N×N, or N×min(M,N)).
	// U and V are required without Vectors too (cuSOLVER uses them). A
	// is destroyed. Info: no convergence (min(M,N)+1 on CUDA).
	Gesvdj
	// GetrfBatched: Getrf of Batch N×N matrices whose addresses are the
	// device array of Batch pointers at A (LDA); Ipiv: Batch×N int32
	// pivots, N apart; Info: one per matrix.
	GetrfBatched
	// GetrsBatched: Getrs for Batch systems: A and B are device arrays of
	// pointers; Ipiv as GetrfBatched wrote it. Info is unused (bad
	// arguments are the call's error).
	GetrsBatched
	// PotrfBatched: Potrf of Batch N×N matrices (A: device array of
	// pointers); Info: one per matrix. Unlike Potrf it leaves the other
	// triangle undefined (cuSOLVER writes there; the host backend fills
	// it with NaN).
	PotrfBatched
	// PotrsBatched: Potrs of Batch systems with NRHS = 1 (A and B: device
	// arrays of pointers). Info: one word, for bad arguments.
	PotrsBatched
	// SyevjBatched: Syevd by Jacobi rotations for Batch N×N matrices
	// (N ≤ 32) stored LDA·N elements apart from A, values N apart from
	// Vals. Info: one per matrix.
	SyevjBatched
	// GesvdjBatched: full SVD by Jacobi rotations of Batch M×N matrices
	// (M, N ≤ 32) LDA·N apart from A: values min(M,N) apart from Vals,
	// with Vectors U (M×M, LDU·M apart) and V (N×N, LDV·N apart; V, not
	// Vᵀ), which are required without Vectors too. Info: one per matrix.
	GesvdjBatched
)

var solverOpNames = [...]string{"", "getrf", "getrs", "potrf", "potrs", "geqrf", "orgqr", "syevd", "gesvd",
	"gesvdj", "getrfBatched", "getrsBatched", "potrfBatched", "potrsBatched", "syevjBatched", "gesvdjBatched"}

func (op SolverOp) String() string {
	if int(op) < len(solverOpNames) && op > 0 {
		return solverOpNames[op]
	}
	return fmt.Sprintf("SolverOp(%d)", int(op))
}

// Batched reports whether the routine works on a batch (pointer arrays
// or strided matrices) rather than one matrix.
func (op SolverOp) Batched() bool { return op >= GetrfBatched && op <= GesvdjBatched }

// SolverType reports whether the solver routines take elements of type t:
// dtype.Float32 and dtype.Float64, as Gemm.
func SolverType(t dtype.DType) bool { return GemmType(t) }

// SolverCall is one call of a Solver routine. Matrices are column-major:
// element (i, j) of A is at A + (j·LDA + i)·Type.Size(). Vals holds the
// real-valued vector a routine reads or writes (Tau, W, S).
type SolverCall struct {
	Op   SolverOp
	Type dtype.DType
	// M×N is A's shape (M alone is unused by the square routines); K is
	// Orgqr's reflector count; NRHS the right-hand sides of Getrs and
	// Potrs; Batch the matrices of a batched routine.
	M, N, K, NRHS, Batch int
	// Upper: the upper triangle (Potrf, Potrs, Syevd and their batched
	// forms); Trans: Getrs solves with Aᵀ; Vectors: Syevd, Gesvdj and the
	// Jacobi batches compute vectors; Econ: Gesvdj's thin U and V.
	Upper, Trans, Vectors, Econ bool
	// Job is Gesvd's 'A', 'S' or 'N' for both U and VT.
	Job byte

	A    Ptr
	LDA  int
	B    Ptr
	LDB  int
	U    Ptr
	LDU  int
	V    Ptr // Gesvd: VT; Gesvdj and GesvdjBatched: V
	LDV  int
	Vals Ptr
	Ipiv Ptr
	Info Ptr
	// Work is the device workspace, WorkBytes long, of at least what
	// SolverWorkspace reported for the same call.
	Work      Ptr
	WorkBytes uint64
}

func (c *SolverCall) String() string {
	return fmt.Sprintf("%v %v M=%d N=%d K=%d NRHS=%d batch=%d", c.Type, c.Op, c.M, c.N, c.K, c.NRHS, c.Batch)
}

// Solver is an optional capability of a backend's Stream: the LAPACK
// routines above, queued in stream order like kernels (cuSOLVER and, for
// GetrfBatched and GetrsBatched, cuBLAS on CUDA; gonum's LAPACK on the
// host). A backend whose solver library cannot be loaded still implements
// it and fails with NotSupported naming the library.
//
// Backends treat HideSymbol("libcusolver") as hiding the whole solver
// library, so tests can take the missing-library path on any machine.
type Solver interface {
	// SolverWorkspace is the device workspace bytes c needs (the
	// library's buffer-size query, which reads no matrix memory; host
	// workspaces, when the library needs one, are the backend's own).
	SolverWorkspace(c *SolverCall) (uint64, error)
	// Solve queues c on the stream.
	Solve(c *SolverCall) error
}

// SolverLibrary names the cuSOLVER sonames, as errors for a missing library say.
const SolverLibrary = "libcusolver.so.12 or libcusolver.so.11"

// BLASWorkspace is an optional capability of a backend's Stream whose BLAS
// needs a device workspace: a Gemm given one (Gemm.Work) uses it instead of
// memory the library allocates itself.
type BLASWorkspace interface {
	// BLASWorkspace is the workspace bytes a Gemm should be given.
	BLASWorkspace() uint64
}
