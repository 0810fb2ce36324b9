package linalg

import (
	"fmt"

	"github.com/gpuarr/gpuarr/device"
	"github.com/gpuarr/gpuarr/gpuarr"
)

// newInfo is count info words on s, for routines that write one each.
func newInfo(count int, s *device.Stream) (*gpuarr.Array[int32], error) {
	return gpuarr.Empty[int32](gpuarr.Shape{max(count, 1)}, on(s))
}

// workingInfo is a solver call's working copy of a (working, shape sh) and
// its info array for count matrices (newInfo); done releases both.
func workingInfo[T Float](a gpuarr.Operand[T], sh gpuarr.Shape, count int, s *device.Stream) (w *gpuarr.Array[T], info *gpuarr.Array[int32], done func(), err error) {
	if w, err = working[T](a, sh, s); err != nil {
		return nil, nil, nil, err
	}
	if info, err = newInfo(count, s); err != nil {
		w.Release()
		return nil, nil, nil, err
	}
	return w, info, func() { info.Release(); w.Release() }, nil
}

// checkInfo reads the info words back, which waits for the routines that
// write them (one synchronization with s's work so far), and turns the
// first positive one into an *Error of kind. A negative word is an
// argument the library refused, which the checks before it should have
// caught.
func checkInfo(call string, info *gpuarr.Array[int32], st stack, kind error) error {
	words, err := info.ToSlice()
	if err != nil {
		return fmt.Errorf("reading the solver's info: %w", err)
	}
	for i, w := range words[:min(len(words), max(st.count, 1))] {
		switch {
		case w > 0:
			e := &Error{Call: call, Info: int(w), Err: kind}
			if len(st.batch) > 0 {
				e.Index = st.index(i)
			}
			return e
		case w < 0:
			return fmt.Errorf("the solver refused its argument %d for matrix %d: %w", -w, i, device.ErrInvalidValue)
		}
	}
	return nil
}

// checkNaN turns a NaN among vals (the stack's values, k per matrix: a
// factor's diagonal, eigenvalues, singular values) into an *Error of
// kind, whose Info is the NaN's 1-based position. A NaN or infinity in
// the input makes one, and not every library reports it in its info
// word (LAPACK's potrf does; cuSOLVER need not): NumPy reports them as
// these errors. It costs one reduction and reads back one word, and the
// values only when there is a NaN.
func checkNaN[T Float](vals *gpuarr.Array[T], st stack, k int, kind error, s *device.Stream) error {
	if vals.Len() == 0 {
		return nil
	}
	count, err := gpuarr.Sum(gpuarr.FromMask[int64](gpuarr.NotEqual[T](vals, vals)), on(s))
	if err != nil {
		return err
	}
	defer count.Release()
	n, err := count.Item()
	if err != nil || n == 0 {
		return err
	}
	v, err := vals.ToSlice()
	if err != nil {
		return err
	}
	for i, x := range v {
		if x != x {
			e := &Error{Info: i%k + 1, Err: kind}
			if len(st.batch) > 0 {
				e.Index = st.index(i / k)
			}
			return e
		}
	}
	return nil
}
