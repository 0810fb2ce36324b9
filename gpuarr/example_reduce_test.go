package gpuarr_test

import (
	"errors"
	"fmt"

	"github.com/gpuarr/gpuarr/gpuarr"
)

// A sum of int8s could overflow int8, so Sum refuses it; SumAs names the
// result type, as NumPy's dtype= does, and MeanAs gives NumPy's float
// mean.
func ExampleSumAs() {
	x, _ := gpuarr.FromSlice([]int8{100, 100, 100}, gpuarr.Shape{3})
	defer x.Release()
	_, err := gpuarr.Sum(x)
	fmt.Println(errors.Is(err, gpuarr.ErrArgument))
	s, _ := gpuarr.SumAs[int64](x)
	total, _ := s.Item()
	m, _ := gpuarr.MeanAs[float64](x)
	mean, _ := m.Item()
	fmt.Println(total, mean)
	// Output:
	// true
	// 300 100
}

// Several Axis options reduce along each of them.
func ExampleAxis() {
	x, _ := gpuarr.Ones[float32](gpuarr.Shape{2, 3, 4})
	defer x.Release()
	s, _ := gpuarr.Sum(x, gpuarr.Axis(0), gpuarr.Axis(-1))
	v, _ := s.ToSlice()
	fmt.Println(s.Shape(), v)
	// Output: [3] [8 8 8]
}

// KeepDims keeps the reduced axis with extent 1, so the result
// broadcasts against the operand: here, centring each row.
func ExampleKeepDims() {
	x, _ := gpuarr.FromSlice([]float32{1, 2, 3, 4, 6, 8}, gpuarr.Shape{2, 3})
	defer x.Release()
	m, _ := gpuarr.Mean(x, gpuarr.Axis(1), gpuarr.KeepDims())
	c, _ := gpuarr.Eval(gpuarr.Sub(x, m))
	v, _ := c.ToSlice()
	fmt.Println(m.Shape(), v)
	// Output: [2 1] [-1 0 1 -2 0 2]
}
