package cuda_test

import (
	"fmt"

	"github.com/gpuarr/gpuarr/device"
)

// A program reaches the CUDA backend through package device. Without a
// driver or a GPU, Open fails with an error that says which is missing;
// go test compiles this example but does not run it, since its output
// depends on the machine.
func Example() {
	dev, err := device.Open("cuda:0")
	if err != nil {
		fmt.Println("no CUDA device:", err)
		return
	}
	major, minor := dev.ComputeCapability()
	fmt.Printf("%s: compute capability %d.%d, %d MiB, driver %d\n",
		dev.Name(), major, minor, dev.TotalMemory()>>20, dev.DriverVersion())
}
