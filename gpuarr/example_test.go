package gpuarr_test

import (
	"fmt"
	"sync"

	"github.com/gpuarr/gpuarr/device"
	"github.com/gpuarr/gpuarr/gpuarr"
)

// The quick start: arrays on the default device, views, host reads.
func Example() {
	x, err := gpuarr.FromSlice([]float32{1, 2, 3, 4, 5, 6}, gpuarr.Shape{2, 3})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer x.Release() // or let the GC do it

	row, _ := x.Slice(1, 2) // a view: shares x's memory
	defer row.Release()
	vals, _ := row.ToSlice()
	fmt.Println(x.Shape(), row.Shape(), vals)

	col, _ := x.Reshape(gpuarr.Shape{-1, 1})
	defer col.Release()
	fmt.Println(col.Shape(), col.Strides())

	ones, _ := gpuarr.Full(gpuarr.Shape{4}, int64(7))
	defer ones.Release()
	sevens, _ := ones.ToSlice()
	fmt.Println(sevens)

	_, err = gpuarr.FromSlice([]float32{1, 2, 3}, gpuarr.Shape{2, 2})
	fmt.Println(err)
	// Output:
	// [2 3] [1 3] [4 5 6]
	// [6 1] [1 1]
	// [7 7 7 7]
	// gpuarr.FromSlice: shape [2 2] has 4 elements, the slice has 3: bad shape
}

// Two goroutines, each with its own stream: the producer fills an array,
// the consumer copies it, and neither synchronizes by hand — the array's
// tracking makes the consumer's stream wait for the producer's write, and
// the producer's next write wait for the consumer's read. (ExampleLaunch
// shows a kernel of your own; it is ordered the same way.)
func Example_streams() {
	dev, _ := device.Default()
	const n = 1 << 10

	x, _ := gpuarr.Empty[uint32](gpuarr.Shape{n})
	defer x.Release()
	filled, copied := make(chan struct{}), make(chan []uint32)
	var wg sync.WaitGroup
	wg.Go(func() { // producer
		s, _ := dev.NewStream()
		defer s.Close()
		for v := range uint32(3) {
			if err := gpuarr.EvalInto(x, gpuarr.Scalar(v+1), gpuarr.On(s)); err != nil {
				fmt.Println(err)
			}
			filled <- struct{}{}
			<-copied
		}
		close(filled)
	})
	wg.Go(func() { // consumer
		s, _ := dev.NewStream()
		defer s.Close()
		y, _ := gpuarr.Empty[uint32](gpuarr.Shape{n}, gpuarr.On(s))
		defer y.Release()
		for range filled {
			if err := gpuarr.Copy(y, x, gpuarr.On(s)); err != nil {
				fmt.Println(err)
			}
			got, _ := y.ToSlice()
			fmt.Println(got[0], got[n-1])
			copied <- got
		}
	})
	wg.Wait()
	// Output:
	// 1 1
	// 2 2
	// 3 3
}

// Copying an array to another device: direct with peer access, through
// pinned host memory without. With a single device this copies within it.
func ExampleClone() {
	devs, _ := device.Devices()
	from, to := devs[0], devs[len(devs)-1]

	x, _ := gpuarr.FromSlice([]float64{1.5, 2.5, 3.5}, gpuarr.Shape{3}, gpuarr.OnDevice(from))
	defer x.Release()
	y, err := gpuarr.Clone(x, gpuarr.OnDevice(to))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer y.Release()
	vals, _ := y.ToSlice()
	fmt.Println(y.Device() == to, vals)

	// Copy writes into an existing array, here back on the first device.
	z, _ := gpuarr.Zeros[float64](gpuarr.Shape{3}, gpuarr.OnDevice(from))
	defer z.Release()
	_ = gpuarr.Copy(z, y)
	vals, _ = z.ToSlice()
	fmt.Println(vals)
	// Output:
	// true [1.5 2.5 3.5]
	// [1.5 2.5 3.5]
}
