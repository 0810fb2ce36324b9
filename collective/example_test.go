package collective_test

import (
	"fmt"

	"github.com/gpuarr/gpuarr/collective"
	"github.com/gpuarr/gpuarr/device"
	"github.com/gpuarr/gpuarr/gpuarr"
)

// Average one gradient across every device of this process.
func ExampleAllReduce() {
	devs, err := device.Devices()
	if err != nil {
		panic(err)
	}
	c, err := collective.NewComm(devs)
	if err != nil {
		panic(err)
	}
	defer c.Close()
	grads := make([]*gpuarr.Array[float32], len(devs))
	for i, d := range devs {
		grads[i], err = gpuarr.FromSlice([]float32{2, 4, 6}, gpuarr.Shape{3}, gpuarr.OnDevice(d))
		if err != nil {
			panic(err)
		}
		defer grads[i].Release()
	}
	// In place (nil receive arrays), on each device's default stream.
	if err := collective.AllReduce(c, grads, nil, collective.Avg); err != nil {
		panic(err)
	}
	v, err := grads[len(devs)-1].ToSlice()
	if err != nil {
		panic(err)
	}
	fmt.Println(v)
	// Output: [2 4 6]
}

// Send rank 0's weights to every other rank, with a second collective in
// the same launch.
func ExampleComm_Group() {
	devs, err := device.Devices()
	if err != nil {
		panic(err)
	}
	c, err := collective.NewComm(devs)
	if err != nil {
		panic(err)
	}
	defer c.Close()
	w := make([]*gpuarr.Array[float64], len(devs))
	steps := make([]*gpuarr.Array[int64], len(devs))
	for i, d := range devs {
		w[i], _ = gpuarr.Zeros[float64](gpuarr.Shape{2}, gpuarr.OnDevice(d))
		steps[i], _ = gpuarr.FromSlice([]int64{int64(10 * i)}, gpuarr.Shape{1}, gpuarr.OnDevice(d))
	}
	_ = w[0].CopyFromHost([]float64{0.5, -1})
	err = c.Group(func() error {
		if err := collective.Broadcast(c, nil, w, 0); err != nil {
			return err
		}
		return collective.AllReduce(c, steps, nil, collective.Min)
	})
	if err != nil {
		panic(err)
	}
	last, _ := w[len(devs)-1].ToSlice()
	step, _ := steps[len(devs)-1].ToSlice()
	fmt.Println(last, step)
	// Output: [0.5 -1] [0]
}

// One rank of a job that torchrun, mpirun or srun started: Init reads the
// launcher's variables from the process's environment (here, for the
// example, from a map: no launcher, so a one-rank job).
func ExampleInit() {
	env := map[string]string{}
	comm, job, err := collective.Init(collective.Env(func(k string) (string, bool) { v, ok := env[k]; return v, ok }))
	if err != nil {
		panic(err) // an *EnvError names the variable to fix
	}
	defer comm.Close()
	fmt.Printf("rank %d of %d, %d local\n", job.Rank, job.Size, comm.Local())
	// Output: rank 0 of 1, 1 local
}
