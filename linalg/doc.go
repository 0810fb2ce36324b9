// Package linalg is dense linear algebra on gpuarr arrays, NumPy's
// numpy.linalg: solvers, factorizations and decompositions of float32
// and float64 matrices, run by NVIDIA's cuSOLVER and cuBLAS on a GPU and
// by gonum's LAPACK on the host device, with the same results within
// rounding.
//
//	x, err := linalg.Solve(a, b)              // a·x = b
//	l, err := linalg.Cholesky(a, linalg.Lower) // a = l·lᵀ
//	u, s, vh, err := linalg.SVD(a, false)      // thin SVD
//
// ExampleSolve, ExampleSolve_stack and the other examples run these.
//
// # Functions
//
// Solve, Inv, Det, Slogdet, Cholesky, Eigh, Eigvalsh, QR, SVD, SVDVals,
// Lstsq, Pinv and MatrixRank are NumPy's functions of the same names;
// LU is SciPy's scipy.linalg.lu and CholeskySolve SciPy's cho_solve
// (NumPy has neither). Like NumPy's, every function but Lstsq takes a
// stack of matrices ([..., m, n]: the leading axes are a batch), and the
// stacks of Solve's and CholeskySolve's two arguments broadcast. A stack
// of small matrices (up to 128×128; 32×32 for Eigh and SVD) is one call
// of the libraries' batched routines; larger ones are one call per matrix
// (cuSOLVER's 64-bit API; gesvdj, the Jacobi SVD, for SVD). Empty matrices
// and stacks give NumPy's empty results (the determinant of a 0×0 matrix
// is 1).
//
// Arguments may be any arrays, strided views included; each function
// works on copies it lays out for the library (which is column-major and
// overwrites its input), and leaves its arguments unchanged. Results are
// new contiguous arrays on the stream's device.
//
// # Streams, waiting and errors
//
// Each function runs on the default stream of its first argument's
// device unless a gpuarr.On or gpuarr.OnDevice option names another, and
// orders itself against other streams' use of its arguments like any
// gpuarr operation. It returns once its work is queued, except that a
// function whose result can fail numerically reads the library's info
// words back before it returns, which waits for its work on the stream:
// Solve and Inv (a singular matrix), Cholesky (not positive definite),
// Eigh, Eigvalsh, SVD and SVDVals (no convergence; a NaN or infinity in
// the input), and what is built on them (Lstsq, Pinv, MatrixRank). Det,
// Slogdet, QR and CholeskySolve cannot fail that way and do not wait; LU
// waits to read the pivots back.
//
// A numerical failure is an *Error (NumPy's LinAlgError) matching
// ErrSingular, ErrNotPositiveDefinite or ErrNoConvergence, naming the call
// and, for a stack, the index of the first failing matrix, with the
// library's info word. Cholesky, Eigh and SVD also check their results
// for NaN (one small reduction and a one-word read), so a NaN input fails
// as in NumPy. Other errors: gpuarr.ErrShape for shapes that do not fit,
// gpuarr.ErrArgument and gpuarr.ErrReleased for bad arguments, and
// device.ErrNotSupported naming the library (libcusolver.so.12 or .11, or
// libcublas) when it cannot be loaded; cuSOLVER is opened the first time a
// stream solves.
//
// # Memory
//
// The libraries' device workspaces, pivots, info words and the pointer
// arrays of the batched routines are arrays from the device's caching
// pool on the operation's stream, given back once it is queued: they
// count against the memory limits and the eager collection like any
// array, and the libraries allocate no device memory of their own.
//
// # Precision and signs
//
// float32 matrices are factored in float32 on a GPU (in float64 and
// rounded on the host). Eigenvectors and singular vectors are unique only
// up to sign (and to a basis of their space for repeated values), as with
// NumPy; R of QR has LAPACK's signs. Results match NumPy's within
// tolerances scaled by the condition number, with residuals
// ‖a·x − b‖ / (‖a‖·‖x‖) ≤ n·ε.
//
// # Boundaries
//
// This package owns the linear-algebra API and the layout of its working
// copies. It issues its library calls (device.Stream.Solve and Gemm)
// through arrayhook.Track (issue.go), and allocates device memory only as
// gpuarr arrays.
package linalg
