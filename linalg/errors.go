package linalg

import (
	"errors"
	"fmt"
)

// The numerical failures, matched with errors.Is. Each comes wrapped in an
// *Error that says which call and which matrix of a stack failed.
var (
	// ErrSingular: an LU factorization met an exactly zero pivot, so the
	// matrix has no inverse (Solve, Inv).
	ErrSingular = errors.New("singular matrix")
	// ErrNotPositiveDefinite: a Cholesky factorization met a leading
	// minor that is not positive definite (Cholesky).
	ErrNotPositiveDefinite = errors.New("matrix is not positive definite")
	// ErrNoConvergence: an iterative eigenvalue or singular value
	// algorithm did not converge (Eigh, Eigvalsh, SVD, SVDVals and what
	// is built on them); a NaN or infinity in the input is the usual
	// cause.
	ErrNoConvergence = errors.New("did not converge")
)

// Error is a numerical failure that the library reported in its info
// output, NumPy's LinAlgError. Err is one of ErrSingular,
// ErrNotPositiveDefinite and ErrNoConvergence (errors.Is sees through).
type Error struct {
	Call string // "linalg.Solve"
	// Index is the batch index of the first failing matrix of a stack
	// (its leading axes), empty for a single matrix.
	Index []int
	// Info is the library's info word: the 1-based order of the zero
	// pivot (of the factorization the library ran, which may be of aᵀ) or
	// of the failing leading minor; for ErrNoConvergence a count the
	// library defines. When a NaN in the result revealed the failure
	// (see the package doc), it is the NaN's 1-based position among the
	// matrix's diagonal, eigenvalues or singular values.
	Info int
	Err  error
}

func (e *Error) Error() string {
	where := "the matrix"
	if len(e.Index) > 0 {
		where = fmt.Sprintf("matrix %v of the stack", e.Index)
	}
	switch e.Err {
	case ErrSingular:
		return fmt.Sprintf("%s: %s is singular: U(%d,%d) of its LU factorization is exactly zero", e.Call, where, e.Info, e.Info)
	case ErrNotPositiveDefinite:
		return fmt.Sprintf("%s: %s is not positive definite: its leading minor of order %d is not", e.Call, where, e.Info)
	}
	return fmt.Sprintf("%s: %s: %v (info %d)", e.Call, where, e.Err, e.Info)
}

func (e *Error) Unwrap() error { return e.Err }

// wrap names call in an internal error, once: an *Error names it already.
func wrap(call string, err error) error {
	if err == nil {
		return nil
	}
	var e *Error
	if errors.As(err, &e) {
		if e.Call == "" {
			e.Call = call
		}
		return err
	}
	return fmt.Errorf("%s: %w", call, err)
}
