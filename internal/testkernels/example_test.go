package testkernels_test

import (
	"fmt"

	"github.com/gpuarr/gpuarr/device"
	"github.com/gpuarr/gpuarr/internal/testkernels"
)

// The test kernels on whichever device is the default: their PTX on a GPU,
// their Go halves on the host device, launched the same way.
func Example() {
	dev, err := device.Default()
	if err != nil {
		fmt.Println(err)
		return
	}
	k, err := testkernels.Load(dev)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer k.Module.Close()
	buf, err := dev.Alloc(3 * 4 * 4) // a, b, c: four float32s each
	if err != nil {
		fmt.Println(err)
		return
	}
	defer dev.Free(buf)
	a, b, c := buf, buf+16, buf+32
	s := dev.DefaultStream()
	out := make([]float32, 4)
	err = device.Upload(s, a, []float32{1, 2, 3, 4})
	if err == nil {
		err = device.Upload(s, b, []float32{10, 20, 30, 40})
	}
	if err == nil { // gpuarr_vadd_f32(a, b, c ptr, n u64)
		err = s.Launch(k.VAdd, device.Linear(4, 128), a, b, c, uint64(4))
	}
	if err == nil {
		err = device.Download(s, out, c)
	}
	fmt.Println(out, err)
	// Output: [11 22 33 44] <nil>
}
