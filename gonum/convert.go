package gonum

import (
	"fmt"

	"gonum.org/v1/gonum/blas/blas32"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"github.com/gpuarr/gpuarr/gpuarr"
)

// packed copies the rows×cols matrix whose rows are stride apart in data
// into a new packed slice.
func packed[T float32 | float64](rows, cols, stride int, data []T) []T {
	if stride == cols {
		return append([]T(nil), data[:rows*cols]...)
	}
	out := make([]T, rows*cols)
	for i := range rows {
		copy(out[i*cols:(i+1)*cols], data[i*stride:])
	}
	return out
}

// FromDense copies m into a new [rows cols] float64 array (on the
// options' stream, as gpuarr.FromSlice).
func FromDense(m *mat.Dense, opts ...gpuarr.Option) (*gpuarr.Array[float64], error) {
	if m == nil {
		return nil, fmt.Errorf("gonum.FromDense: nil matrix: %w", gpuarr.ErrArgument)
	}
	return FromGeneral(m.RawMatrix(), opts...)
}

// FromGeneral copies g into a new [rows cols] float64 array.
func FromGeneral(g blas64.General, opts ...gpuarr.Option) (*gpuarr.Array[float64], error) {
	if err := checkGeneral(g.Rows, g.Cols, g.Stride, len(g.Data)); err != nil {
		return nil, fmt.Errorf("gonum.FromGeneral: %w", err)
	}
	return gpuarr.FromSlice(packed(g.Rows, g.Cols, g.Stride, g.Data), gpuarr.Shape{g.Rows, g.Cols}, opts...)
}

// FromGeneral32 copies g into a new [rows cols] float32 array.
func FromGeneral32(g blas32.General, opts ...gpuarr.Option) (*gpuarr.Array[float32], error) {
	if err := checkGeneral(g.Rows, g.Cols, g.Stride, len(g.Data)); err != nil {
		return nil, fmt.Errorf("gonum.FromGeneral32: %w", err)
	}
	return gpuarr.FromSlice(packed(g.Rows, g.Cols, g.Stride, g.Data), gpuarr.Shape{g.Rows, g.Cols}, opts...)
}

func checkGeneral(rows, cols, stride, n int) error {
	if rows < 0 || cols < 0 || stride < max(1, cols) || (rows > 0 && n < (rows-1)*stride+cols) {
		return fmt.Errorf("a %d×%d matrix with stride %d over %d elements: %w", rows, cols, stride, n, gpuarr.ErrArgument)
	}
	return nil
}

// ToDense copies the 2-D array a into a new mat.Dense. gonum has no empty
// matrices: an array with a zero extent is an error matching
// gpuarr.ErrShape.
func ToDense(a *gpuarr.Array[float64]) (*mat.Dense, error) {
	rows, cols, data, err := toHost("ToDense", a)
	if err != nil {
		return nil, err
	}
	if rows == 0 || cols == 0 {
		return nil, fmt.Errorf("gonum.ToDense: %v: a mat.Dense cannot be empty: %w", a.Describe(), gpuarr.ErrShape)
	}
	return mat.NewDense(rows, cols, data), nil
}

// ToGeneral copies the 2-D array a into a new blas64.General.
func ToGeneral(a *gpuarr.Array[float64]) (blas64.General, error) {
	rows, cols, data, err := toHost("ToGeneral", a)
	return blas64.General{Rows: rows, Cols: cols, Stride: max(1, cols), Data: data}, err
}

// ToGeneral32 copies the 2-D array a into a new blas32.General.
func ToGeneral32(a *gpuarr.Array[float32]) (blas32.General, error) {
	rows, cols, data, err := toHost("ToGeneral32", a)
	return blas32.General{Rows: rows, Cols: cols, Stride: max(1, cols), Data: data}, err
}

// toHost reads the 2-D array a back.
func toHost[T float32 | float64](call string, a *gpuarr.Array[T]) (rows, cols int, data []T, err error) {
	if a == nil {
		return 0, 0, nil, fmt.Errorf("gonum.%s: nil array: %w", call, gpuarr.ErrArgument)
	}
	sh := a.Shape()
	if len(sh) != 2 {
		return 0, 0, nil, fmt.Errorf("gonum.%s: %v: want a 2-D array: %w", call, a.Describe(), gpuarr.ErrShape)
	}
	if data, err = a.ToSlice(); err != nil {
		return 0, 0, nil, fmt.Errorf("gonum.%s: %w", call, err)
	}
	return sh[0], sh[1], data, nil
}
