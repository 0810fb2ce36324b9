package host_test

import (
	"fmt"

	"github.com/gpuarr/gpuarr/device"
	"github.com/gpuarr/gpuarr/device/hostkernel"
)

// A kernel written in Go runs on the host device where a GPU would run its
// PTX: the Go function is bound to the PTX entry's name, and the module
// that declares the entry launches it.
func Example() {
	dev, err := device.Open("host")
	if err != nil {
		fmt.Println(err)
		return
	}
	// example_scale(x ptr, a f32, n u64): x[i] *= a.
	scale := func(l *hostkernel.Launch) error {
		n := l.Args.U64(2)
		x, err := hostkernel.View[float32](l, l.Args.Ptr(0), n)
		if err != nil {
			return err // an address outside live memory, as a GPU would fault
		}
		a := l.Args.F32(1)
		l.ParallelFor(n, func(lo, hi uint64) {
			for i := lo; i < hi; i++ {
				x[i] *= a
			}
		})
		return nil
	}
	if _, err := dev.RegisterHostKernel("example_scale", scale); err != nil {
		fmt.Println(err)
		return
	}
	mod, err := dev.LoadPTX(dev.PTXHeader() + `
.visible .entry example_scale(.param .u64 x, .param .f32 a, .param .u64 n)
{
	ret;
}
`)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer mod.Close()
	k, err := mod.Kernel("example_scale")
	if err != nil {
		fmt.Println(err)
		return
	}
	p, err := dev.Alloc(4 * 4)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer dev.Free(p)
	s := dev.DefaultStream()
	out := make([]float32, 4)
	err = device.Upload(s, p, []float32{1, 2, 3, 4})
	if err == nil {
		err = s.Launch(k, device.Linear(4, 128), p, float32(10), uint64(4))
	}
	if err == nil {
		err = device.Download(s, out, p)
	}
	fmt.Println(out, err)
	// Output: [10 20 30 40] <nil>
}
