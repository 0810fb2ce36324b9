package kernels_test

import (
	"fmt"

	"github.com/gpuarr/gpuarr/device"
	"github.com/gpuarr/gpuarr/device/dtype"
	"github.com/gpuarr/gpuarr/internal/kernels"
	"github.com/gpuarr/gpuarr/internal/lifetime"
)

// A Take as package gpuarr runs it once its arguments are checked: the
// arrays are lifetime handles, the operation claims them on its stream
// and queues the gather kernel (its PTX on a GPU, its Go twin on the host
// device). Out-of-range indices wrap, as NumPy's mode='wrap' does.
func Example() {
	dev, err := device.Default()
	if err != nil {
		fmt.Println(err)
		return
	}
	s := dev.DefaultStream()
	var x, idx, out lifetime.Handle
	for _, m := range []struct {
		h  *lifetime.Handle
		n  int
		el *dtype.Elem
	}{{&x, 5, dtype.ElemOf[float32]()}, {&idx, 4, dtype.ElemOf[int64]()}, {&out, 4, dtype.ElemOf[float32]()}} {
		if err := m.h.Make("Take", s, []int{m.n}, m.el); err != nil {
			fmt.Println(err)
			return
		}
		defer m.h.Release()
	}
	err = device.Upload(s, x.Ptr(), []float32{10, 11, 12, 13, 14})
	if err == nil {
		err = device.Upload(s, idx.Ptr(), []int64{4, 0, -1, 7})
	}
	if err == nil {
		g := kernels.Gather{Out: &out, X: &x, Idx: &idx, IdxType: dtype.Int64, ElemSize: 4,
			Mode: kernels.ModeWrap, Outer: 1, N: 5, M: 4, Inner: 1}
		err = g.Run("Take", s)
	}
	got := make([]float32, 4)
	if err == nil {
		err = device.Download(s, got, out.Ptr())
	}
	fmt.Println(got, err)
	// Output: [14 10 14 12] <nil>
}
