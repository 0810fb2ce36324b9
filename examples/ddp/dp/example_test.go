package dp_test

import (
	"fmt"

	"github.com/gpuarr/gpuarr/collective"
	"github.com/gpuarr/gpuarr/device"
	"github.com/gpuarr/gpuarr/examples/ddp/dp"
	"github.com/gpuarr/gpuarr/gpuarr"
)

// Train a small perceptron for a few steps on a communicator of one rank
// (the default device; collective.Init would make a launched job's rank):
// each step takes the rank's shard of a batch, and the loss falls. With
// buckets of 256 bytes each layer's gradient is all-reduced in its own
// bucket, the last layer's while the first layer's is computed.
func Example() {
	dev, err := device.Default()
	if err != nil {
		fmt.Println(err)
		return
	}
	comm, err := collective.NewComm([]*device.Device{dev})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer comm.Close()
	cfg := dp.Config{Widths: []int{8, 32, 2}, BucketBytes: 256, LR: 0.05, Seed: 1}
	const rows, batches = 64, 4
	tr, err := dp.NewTrainer[float64](comm, cfg, rows/comm.Size())
	if err != nil {
		fmt.Println(err)
		return
	}
	defer tr.Release()
	data, err := dp.NewData[float64](dev, 8, 2, rows, batches, 7)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer data.Release()
	var losses []float64
	for step := range 20 {
		x, y, err := data.Shard(step, comm.Rank(0), comm.Size())
		if err != nil {
			fmt.Println(err)
			return
		}
		err = tr.Step([]*gpuarr.Array[float64]{x}, []*gpuarr.Array[float64]{y})
		_, _ = x.Release(), y.Release()
		if err != nil {
			fmt.Println(err)
			return
		}
		l, err := tr.Loss()
		if err != nil {
			fmt.Println(err)
			return
		}
		losses = append(losses, l)
	}
	fmt.Println("buckets:", tr.Buckets())
	fmt.Println("loss fell:", losses[len(losses)-1] < losses[0])
	// Output:
	// buckets: 2
	// loss fell: true
}
