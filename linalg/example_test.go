package linalg_test

import (
	"errors"
	"fmt"

	"github.com/gpuarr/gpuarr/gpuarr"
	"github.com/gpuarr/gpuarr/linalg"
)

func ExampleSolve() {
	// 3x + y = 9, x + 2y = 8.
	a, _ := gpuarr.FromSlice([]float64{3, 1, 1, 2}, gpuarr.Shape{2, 2})
	b, _ := gpuarr.FromSlice([]float64{9, 8}, gpuarr.Shape{2})
	x, err := linalg.Solve(a, b)
	if err != nil {
		panic(err)
	}
	v, _ := x.ToSlice()
	fmt.Printf("%.3f\n", v)

	// A singular matrix is an error, not infinities.
	s, _ := gpuarr.FromSlice([]float64{1, 2, 2, 4}, gpuarr.Shape{2, 2})
	_, err = linalg.Solve(s, b)
	fmt.Println(errors.Is(err, linalg.ErrSingular))
	// Output:
	// [2.000 3.000]
	// true
}

func ExampleSolve_stack() {
	// Two systems at once; b broadcasts against a's stack.
	a, _ := gpuarr.FromSlice([]float32{2, 0, 0, 4, 1, 1, 0, 1}, gpuarr.Shape{2, 2, 2})
	b, _ := gpuarr.FromSlice([]float32{2, 4}, gpuarr.Shape{2})
	x, _ := linalg.Solve(a, b)
	v, _ := x.ToSlice()
	fmt.Println(x.Shape(), v)
	// Output: [2 2] [1 1 -2 4]
}

func ExampleCholesky() {
	a, _ := gpuarr.FromSlice([]float64{4, 2, 2, 5}, gpuarr.Shape{2, 2})
	l, _ := linalg.Cholesky(a, linalg.Lower)
	v, _ := l.ToSlice()
	fmt.Println(v)
	// Output: [2 0 1 2]
}

func ExampleEigh() {
	a, _ := gpuarr.FromSlice([]float64{2, 1, 1, 2}, gpuarr.Shape{2, 2})
	w, _, _ := linalg.Eigh(a, linalg.Lower)
	v, _ := w.ToSlice()
	fmt.Printf("%.6f\n", v)
	// Output: [1.000000 3.000000]
}

func ExampleLstsq() {
	// The line y = c0 + c1·t through (0, 1), (1, 3), (2, 5), (3, 7).
	a, _ := gpuarr.FromSlice([]float64{1, 0, 1, 1, 1, 2, 1, 3}, gpuarr.Shape{4, 2})
	y, _ := gpuarr.FromSlice([]float64{1, 3, 5, 7}, gpuarr.Shape{4})
	c, _, rank, _, _ := linalg.Lstsq(a, y, linalg.DefaultTol)
	v, _ := c.ToSlice()
	fmt.Printf("%.6f rank %d\n", v, rank)
	// Output: [1.000000 2.000000] rank 2
}

func ExampleDet() {
	a, _ := gpuarr.FromSlice([]float64{1, 2, 3, 4}, gpuarr.Shape{2, 2})
	d, _ := linalg.Det(a)
	v, _ := d.Item()
	fmt.Printf("%.6f\n", v)
	// Output: -2.000000
}
