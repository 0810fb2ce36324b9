package gcpressure_test

import (
	"fmt"

	"github.com/gpuarr/gpuarr/device"
	"github.com/gpuarr/gpuarr/gcpressure"
	"github.com/gpuarr/gpuarr/gpuarr"
	"github.com/gpuarr/gpuarr/memory"
)

// Arrays the program never releases come back through the GC before the
// device runs dry: the loop allocates four times the hard limit (this test
// binary runs under one, see TestMain) without an out-of-memory error.
func Example() {
	// Arrays install gcpressure on their first allocation; installing it
	// first reports a malformed GPUARR_GC_* variable here.
	if err := gcpressure.Install(); err != nil {
		fmt.Println(err)
		return
	}
	dev, err := device.Default()
	if err != nil {
		fmt.Println(err)
		return
	}
	res, err := memory.Default(dev)
	if err != nil {
		fmt.Println(err)
		return
	}
	limit := res.Stats().HardLimit
	n := int(limit / 16 / 4) // float32s in a sixteenth of the limit
	before := gcpressure.Stats().Collections()
	for range 64 {
		a, err := gpuarr.Zeros[float32](gpuarr.Shape{n})
		if err != nil {
			fmt.Println(err)
			return
		}
		_ = a // forgotten: its memory returns when the GC finds it unreachable
	}
	gcpressure.WaitIdle()
	fmt.Println("collected:", gcpressure.Stats().Collections() > before)
	// Output: collected: true
}
