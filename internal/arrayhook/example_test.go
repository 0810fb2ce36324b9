package arrayhook_test

import (
	"fmt"

	"github.com/gpuarr/gpuarr/device"
	"github.com/gpuarr/gpuarr/gpuarr"
	"github.com/gpuarr/gpuarr/internal/arrayhook"
	"github.com/gpuarr/gpuarr/internal/testkernels"
)

// A package that issues its own kernels on arrays declares their uses with
// Track: the launch is ordered after other streams' work on them, and the
// arrays stay allocated until it is done, as with gpuarr's own operations.
func Example() {
	x, err := gpuarr.Zeros[uint32](gpuarr.Shape{4})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer x.Release()
	s, err := arrayhook.StreamOf(nil, x.Device()) // no On option: x's device's default stream
	if err != nil {
		fmt.Println(err)
		return
	}
	k, err := testkernels.Load(s.Device())
	if err != nil {
		fmt.Println(err)
		return
	}
	defer k.Module.Close()
	// gpuarr_fill_u32(dst ptr, v u32, n u64): dst[i] = v.
	err = arrayhook.Track("Fill", []arrayhook.Use{arrayhook.Writes(x, s)}, func() error {
		return s.Launch(k.Fill, device.Linear(uint64(x.Len()), 128), arrayhook.DevicePtr(x), uint32(7), uint64(x.Len()))
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(x.ToSlice()) // waits for the launch: x's write is tracked
	// Output: [7 7 7 7] <nil>
}
