package gpuarr_test

import (
	"fmt"

	"github.com/gpuarr/gpuarr/device"
	"github.com/gpuarr/gpuarr/device/hostkernel"
	"github.com/gpuarr/gpuarr/gpuarr"
)

// scalePTX is a kernel of your own, y[i] = a*x[i] over float32, as the
// PTX a GPU runs: a grid-stride loop with 64-bit indices, so any grid
// covers any n. The driver JIT-compiles it; the device's header
// (.version, .target, .address_size) goes in front. Name entries after
// your package, since entry names are shared process-wide.
const scalePTX = `
.visible .entry example_scale_f32(
	.param .u64 scale_x,
	.param .u64 scale_y,
	.param .f32 scale_a,
	.param .u64 scale_n
)
{
	.reg .pred %p<2>;
	.reg .b32 %r<5>;
	.reg .f32 %f<4>;
	.reg .b64 %rd<10>;

	ld.param.u64 %rd1, [scale_x];
	ld.param.u64 %rd2, [scale_y];
	ld.param.f32 %f1, [scale_a];
	ld.param.u64 %rd3, [scale_n];
	cvta.to.global.u64 %rd1, %rd1;
	cvta.to.global.u64 %rd2, %rd2;
	mov.u32 %r1, %ctaid.x;
	mov.u32 %r2, %ntid.x;
	mov.u32 %r3, %tid.x;
	mov.u32 %r4, %nctaid.x;
	mul.wide.u32 %rd4, %r1, %r2;
	cvt.u64.u32 %rd5, %r3;
	add.u64 %rd4, %rd4, %rd5;
	mul.wide.u32 %rd6, %r4, %r2;
	setp.ge.u64 %p1, %rd4, %rd3;
	@%p1 bra SCALE_DONE;
SCALE_LOOP:
	shl.b64 %rd7, %rd4, 2;
	add.u64 %rd8, %rd1, %rd7;
	add.u64 %rd9, %rd2, %rd7;
	ld.global.f32 %f2, [%rd8];
	mul.rn.f32 %f3, %f2, %f1;
	st.global.f32 [%rd9], %f3;
	add.u64 %rd4, %rd4, %rd6;
	setp.lt.u64 %p1, %rd4, %rd3;
	@%p1 bra SCALE_LOOP;
SCALE_DONE:
	ret;
}
`

// scaleHost is the same kernel in Go, for the host backend, which cannot
// run PTX: it takes the same arguments (x, y, a, n) and does the work of
// the whole launch, reaching device memory through checked views.
func scaleHost(l *hostkernel.Launch) error {
	n := l.Args.U64(3)
	x, err := hostkernel.View[float32](l, l.Args.Ptr(0), n)
	if err != nil {
		return err
	}
	y, err := hostkernel.View[float32](l, l.Args.Ptr(1), n)
	if err != nil {
		return err
	}
	a := l.Args.F32(2)
	l.ParallelFor(n, func(lo, hi uint64) {
		for i := lo; i < hi; i++ {
			y[i] = a * x[i]
		}
	})
	return nil
}

// A kernel of your own on arrays: its PTX for a GPU and, for the host
// backend, the same kernel in Go bound to the PTX entry's name. Launch
// passes In and Out arrays as device addresses and orders the kernel
// with other work on the arrays like any operation.
func ExampleLaunch() {
	dev, err := device.Default()
	if err != nil {
		fmt.Println(err)
		return
	}
	if dev.RunsHostKernels() { // the host backend: bind the Go kernel first
		if _, err := dev.RegisterHostKernel("example_scale_f32", scaleHost); err != nil {
			fmt.Println(err)
			return
		}
	}
	mod, err := dev.LoadPTX(dev.PTXHeader() + scalePTX)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer mod.Close()
	scale, err := mod.Kernel("example_scale_f32")
	if err != nil {
		fmt.Println(err)
		return
	}

	x, _ := gpuarr.FromSlice([]float32{1, 2, 3, 4, 5}, gpuarr.Shape{5})
	defer x.Release()
	y, _ := gpuarr.Empty[float32](gpuarr.Shape{5})
	defer y.Release()
	n := uint64(x.Len())
	if err := gpuarr.Launch(scale, device.Linear(n, 256), gpuarr.In(x), gpuarr.Out(y), float32(0.5), n); err != nil {
		fmt.Println(err)
		return
	}
	vals, _ := y.ToSlice()
	fmt.Println(vals)
	// Output:
	// [0.5 1 1.5 2 2.5]
}
