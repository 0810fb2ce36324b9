package unified_test

import (
	"fmt"
	"slices"

	"github.com/gpuarr/gpuarr/gpuarr"
	"github.com/gpuarr/gpuarr/unified"
)

// The GPU computes, the CPU reads the result in place.
func Example() {
	x, _ := gpuarr.FromSlice([]float32{1, 2, 3, 4, 5, 6}, gpuarr.Shape{2, 3})
	defer x.Release()
	y, err := unified.Empty[float32](gpuarr.Shape{2, 3})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer y.Release()
	// A GPU kernel writes y ...
	if err := gpuarr.EvalInto(y, gpuarr.Mul[float32](x, x)); err != nil {
		fmt.Println(err)
		return
	}
	// ... and the CPU iterates it with no copy; the iterator waited for
	// the kernel when it was made.
	vals, _ := unified.Values(y)
	var sum float32
	for v := range vals {
		sum += v
	}
	fmt.Println(sum)
	// Output: 91
}

// A View for loops: synchronize once, then plain memory accesses.
func ExampleHost() {
	a, _ := unified.FromSlice([]int32{1, 2, 3, 4, 5, 6}, gpuarr.Shape{2, 3})
	defer a.Release()
	t, _ := a.Transpose() // a strided view: iteration follows its strides
	defer t.Release()
	v, _ := unified.Host(t)
	for i, x := range v.All() {
		fmt.Printf("%d:%d ", i, x)
	}
	fmt.Println("in row-major order")
	v.SetIndex(100, 2, 1) // a CPU write; the next GPU operation sees it
	s, _ := gpuarr.SumAs[int64](a)
	defer s.Release()
	total, _ := s.ToSlice()
	fmt.Println(total)
	// Output:
	// 0:1 1:4 2:2 3:5 4:3 5:6 in row-major order
	// [115]
}

// Prefetch before a kernel; the CPU gets the pages back on demand (or by
// prefetching to unified.CPU).
func ExamplePrefetch() {
	a, _ := unified.Zeros[float32](gpuarr.Shape{1 << 10})
	defer a.Release()
	dev := a.Device()
	s := dev.DefaultStream()
	_ = unified.Advise(a, unified.PreferredLocation(dev))
	_ = unified.Prefetch(a, dev, s)
	_ = gpuarr.EvalInto(a, gpuarr.Scalar[float32](0.5), gpuarr.On(s))
	_ = unified.Prefetch(a, unified.CPU, s)
	first, _ := unified.AtIndex(a, 0)
	fmt.Println(first)
	// Output: 0.5
}

// Code that wants a []T (a sort, a library function) borrows one for the
// length of a call; the array stays alive until the call returns.
func ExampleBorrow() {
	a, _ := unified.FromSlice([]int32{3, 1, 2}, gpuarr.Shape{3})
	defer a.Release()
	_ = unified.Borrow(a, func(s []int32) error {
		slices.Sort(s)
		return nil
	})
	v, _ := unified.Host(a)
	fmt.Println(v.At(0), v.At(1), v.At(2))
	// Output: 1 2 3
}
