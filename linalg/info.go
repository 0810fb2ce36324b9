package linalg

import (
	"fmt"

	"github.com/gpuarr/gpuarr/device"
	"github.com/gpuarr/gpuarr/gpuarr"
)

// newInfo is count zeroed info words on s: the routines write one each.
func newInfo(count int, s *device.Stream) (*gpuarr.Array[int32], error) {
	return gpuarr.Zeros[int32](gpuarr.Shape{max(count, 1)}, on(s))
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
