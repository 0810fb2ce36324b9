package linalg

import (
	"fmt"

	"github.com/gpuarr/gpuarr/device"
	"github.com/gpuarr/gpuarr/gpuarr"
)

// stack is an argument seen as NumPy sees one: a stack of matrices whose
// leading axes are the batch.
type stack struct {
	batch gpuarr.Shape // the leading axes
	count int          // matrices: the product of batch
	m, n  int          // rows and columns of each
}

// with is the shape of a stack of this batch with matrices of the given
// trailing extents (rows, cols; or one extent for vectors, none for
// scalars).
func (st stack) with(tail ...int) gpuarr.Shape {
	return append(append(gpuarr.Shape(nil), st.batch...), tail...)
}

// index is the batch index of matrix i.
func (st stack) index(i int) []int {
	idx := make([]int, len(st.batch))
	for ax := len(st.batch) - 1; ax >= 0; ax-- {
		if d := st.batch[ax]; d > 0 {
			idx[ax] = i % d
			i /= d
		}
	}
	return idx
}

// check refuses a nil or released argument.
func check[T Float](name string, a *gpuarr.Array[T]) error {
	if a == nil {
		return fmt.Errorf("%s is a nil array: %w", name, gpuarr.ErrArgument)
	}
	if a.Released() {
		return fmt.Errorf("%s %v: %w", name, a.Describe(), gpuarr.ErrReleased)
	}
	return nil
}

// matrices reads a as a stack of matrices (rank ≥ 2).
func matrices[T Float](name string, a *gpuarr.Array[T]) (stack, error) {
	if err := check(name, a); err != nil {
		return stack{}, err
	}
	sh := a.Shape()
	if len(sh) < 2 {
		return stack{}, fmt.Errorf("%s is %v: want a matrix or a stack of matrices (rank at least 2): %w", name, a.Describe(), gpuarr.ErrShape)
	}
	st := stack{batch: sh[:len(sh)-2], m: sh[len(sh)-2], n: sh[len(sh)-1], count: 1}
	for _, d := range st.batch {
		st.count *= d
	}
	return st, nil
}

// squares reads a as a stack of square matrices.
func squares[T Float](name string, a *gpuarr.Array[T]) (stack, error) {
	st, err := matrices(name, a)
	if err != nil {
		return st, err
	}
	if st.m != st.n {
		return st, fmt.Errorf("%s is %v: want square matrices (the last two extents equal): %w", name, a.Describe(), gpuarr.ErrShape)
	}
	return st, nil
}

// squaresOn is squares, then the stream of opts on a's device.
func squaresOn[T Float](name string, a *gpuarr.Array[T], opts []gpuarr.Option) (stack, *device.Stream, error) {
	return readOn(squares[T], name, a, opts)
}

// matricesOn is matrices, then the stream of opts on a's device.
func matricesOn[T Float](name string, a *gpuarr.Array[T], opts []gpuarr.Option) (stack, *device.Stream, error) {
	return readOn(matrices[T], name, a, opts)
}

// readOn is read(name, a), then the stream of opts on a's device.
func readOn[T Float](read func(string, *gpuarr.Array[T]) (stack, error), name string, a *gpuarr.Array[T], opts []gpuarr.Option) (stack, *device.Stream, error) {
	st, err := read(name, a)
	if err != nil {
		return st, nil, err
	}
	s, err := streamOf(opts, a.Device())
	return st, s, err
}

// broadcastBatch is the batch two stacks broadcast to (NumPy's rules).
func broadcastBatch(a, b gpuarr.Shape) (gpuarr.Shape, error) {
	n := max(len(a), len(b))
	out := make(gpuarr.Shape, n)
	for i := range n {
		da, db := 1, 1
		if j := i - (n - len(a)); j >= 0 {
			da = a[j]
		}
		if j := i - (n - len(b)); j >= 0 {
			db = b[j]
		}
		switch {
		case da == db || db == 1:
			out[i] = da
		case da == 1:
			out[i] = db
		default:
			return nil, fmt.Errorf("the stacks' leading axes %v and %v do not broadcast: %w", a, b, gpuarr.ErrShape)
		}
	}
	return out, nil
}

// rebatch is st over another batch.
func (st stack) rebatch(batch gpuarr.Shape) stack {
	st.batch, st.count = batch, 1
	for _, d := range batch {
		st.count *= d
	}
	return st
}
