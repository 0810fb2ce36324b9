package gonum_test

import (
	"fmt"

	"gonum.org/v1/gonum/blas/blas64"
	native "gonum.org/v1/gonum/blas/gonum"
	"gonum.org/v1/gonum/mat"

	"github.com/gpuarr/gpuarr/gonum"
	"github.com/gpuarr/gpuarr/gpuarr"
	"github.com/gpuarr/gpuarr/unified"
)

// gonum's own mat.Dense.Mul on unified arrays lent as matrices runs as
// one device DGEMM on their memory; ToDense copies the result out.
func Example() {
	blas64.Use(gonum.Implementation{}) // once, at the start of a program
	defer blas64.Use(native.Implementation{})

	const n = 128 // n³ multiply-adds: at least MinDeviceGemm
	two := make([]float64, n*n)
	for i := range n {
		two[i*n+i] = 2
	}
	a, err := unified.FromSlice(two, gpuarr.Shape{n, n})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer a.Release()
	c, err := unified.Zeros[float64](gpuarr.Shape{n, n})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer c.Release()

	before := gonum.DeviceGemms()
	err = gonum.BorrowAll([]*gpuarr.Array[float64]{a, c}, func(m []*mat.Dense) error {
		m[1].Mul(m[0], m[0]) // c = a·a on the device
		return nil
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	d, err := gonum.ToDense(c)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(d.At(0, 0), d.At(0, 1), d.At(n-1, n-1), "device products:", gonum.DeviceGemms()-before)
	// Output: 4 0 4 device products: 1
}
