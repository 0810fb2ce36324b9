package fusion_test

import (
	"fmt"

	"github.com/gpuarr/gpuarr/device"
	"github.com/gpuarr/gpuarr/device/dtype"
	"github.com/gpuarr/gpuarr/internal/fusion"
	"github.com/gpuarr/gpuarr/internal/fusion/expr"
	"github.com/gpuarr/gpuarr/internal/lifetime"
)

// An expression tree over arrays, x·a + y with a a scalar parameter,
// materialized by one kernel; the same shape with another scalar reuses
// that kernel.
func Example() {
	dev, err := device.Default()
	if err != nil {
		fmt.Println(err)
		return
	}
	s := dev.DefaultStream()
	f32 := dtype.ElemOf[float32]()
	var x, y, out lifetime.Handle
	for _, h := range []*lifetime.Handle{&x, &y, &out} {
		if err := h.Make("Example", s, []int{4}, f32); err != nil {
			fmt.Println(err)
			return
		}
		defer h.Release()
	}
	if err := device.Upload(s, x.Ptr(), []float32{1, 2, 3, 4}); err != nil {
		fmt.Println(err)
		return
	}
	if err := device.Upload(s, y.Ptr(), []float32{10, 20, 30, 40}); err != nil {
		fmt.Println(err)
		return
	}
	axpy := func(a float32) *fusion.Node {
		ax := fusion.Apply("Example", expr.OpMul, dtype.Float32,
			fusion.Leaf(&x, dtype.Float32), fusion.Scalar(dtype.Float32, fusion.ScalarBits(a, dtype.Float32)))
		return fusion.Apply("Example", expr.OpAdd, dtype.Float32, ax, fusion.Leaf(&y, dtype.Float32))
	}
	res := make([]float32, 4)
	var compiles [2]uint64
	for i, a := range []float32{2, 3} {
		err := fusion.EvalInto("Example", &out, axpy(a), s)
		if err == nil {
			err = device.Download(s, res, out.Ptr())
		}
		compiles[i], _, _ = fusion.Stats()
		fmt.Println(res, err)
	}
	fmt.Println("kernels compiled by the second:", compiles[1]-compiles[0])
	// Output:
	// [12 24 36 48] <nil>
	// [13 26 39 52] <nil>
	// kernels compiled by the second: 0
}
