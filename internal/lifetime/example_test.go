package lifetime_test

import (
	"errors"
	"fmt"

	"github.com/gpuarr/gpuarr/device"
	"github.com/gpuarr/gpuarr/device/dtype"
	"github.com/gpuarr/gpuarr/internal/arg"
	"github.com/gpuarr/gpuarr/internal/lifetime"
	"github.com/gpuarr/gpuarr/internal/tracking"
)

// An array and a view share one buffer: releasing the array drops its
// reference only, and the buffer goes back when the view's goes too,
// stream-ordered after the work issued on it.
func Example() {
	dev, err := device.Default()
	if err != nil {
		fmt.Println(err)
		return
	}
	s := dev.DefaultStream()
	var a, row lifetime.Handle
	if err := a.Make("Example", s, []int{4, 4}, dtype.ElemOf[float32]()); err != nil {
		fmt.Println(err)
		return
	}
	if err := row.MakeView("Example", &a, 4*4, []int{4}, nil); err != nil { // row 1
		fmt.Println(err)
		return
	}
	fmt.Println(a.Len(), row.Len(), row.SharesBuffer(&a))

	_ = a.Release()
	fmt.Println(errors.Is(a.Check("Sum"), arg.ErrReleased), row.Check("Sum"))

	// An operation on the view: claimed, ordered, issued.
	err = row.Issue("Fill", s, tracking.Write, false, func() error {
		return s.Memset32(row.Ptr(), 0, uint64(row.Len()))
	})
	fmt.Println(err, row.Release())
	// Output:
	// 16 4 true
	// true <nil>
	// <nil> <nil>
}
