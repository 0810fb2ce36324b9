// Command vecadd is gpuarr's first demo: it adds two vectors of float32 on
// the default device with a PTX kernel and checks the sum against the CPU's,
// bit for bit.
//
// It runs on a GPU when a CUDA driver and a GPU are usable and on the host
// backend otherwise; GPUARR_DEVICE=host|cuda|cuda:N picks one explicitly.
//
//	go run ./examples/vecadd [-n elements]
//
// The program uses only the raw driver layer (package device) and its own
// kernel, vaddPTX below: hand-written PTX that the driver JIT-compiles for
// the GPU at hand. Arrays, pools, fused expressions and the GC integration
// come from package gpuarr.
//
// The host backend cannot run PTX: it runs a Go implementation registered
// under the entry's name (vaddHost below, through
// device.Device.RegisterHostKernel), after checking the PTX as a JIT would.
package main

import (
	"errors"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"time"

	"github.com/gpuarr/gpuarr/device"
	"github.com/gpuarr/gpuarr/device/hostkernel"
	"github.com/gpuarr/gpuarr/memory"
)

// vaddPTX is the kernel: c[i] = a[i] + b[i] for i < n, over float32, in a
// grid-stride loop (i starts at ctaid.x*ntid.x + tid.x and steps by
// nctaid.x*ntid.x) with 64-bit indices, so any grid covers any n. The
// device's header (.version, .target, .address_size) goes in front.
const vaddPTX = `
.visible .entry vecadd_f32(
	.param .u64 vadd_a,
	.param .u64 vadd_b,
	.param .u64 vadd_c,
	.param .u64 vadd_n
)
{
	.reg .pred %p<2>;
	.reg .b32 %r<5>;
	.reg .f32 %f<4>;
	.reg .b64 %rd<14>;

	ld.param.u64 %rd1, [vadd_a];
	ld.param.u64 %rd2, [vadd_b];
	ld.param.u64 %rd3, [vadd_c];
	ld.param.u64 %rd4, [vadd_n];
	cvta.to.global.u64 %rd1, %rd1;
	cvta.to.global.u64 %rd2, %rd2;
	cvta.to.global.u64 %rd3, %rd3;
	mov.u32 %r1, %ctaid.x;
	mov.u32 %r2, %ntid.x;
	mov.u32 %r3, %tid.x;
	mov.u32 %r4, %nctaid.x;
	mul.wide.u32 %rd5, %r1, %r2;
	cvt.u64.u32 %rd6, %r3;
	add.u64 %rd5, %rd5, %rd6;
	mul.wide.u32 %rd7, %r4, %r2;
	setp.ge.u64 %p1, %rd5, %rd4;
	@%p1 bra VADD_DONE;
VADD_LOOP:
	shl.b64 %rd8, %rd5, 2;
	add.u64 %rd9, %rd1, %rd8;
	add.u64 %rd10, %rd2, %rd8;
	add.u64 %rd11, %rd3, %rd8;
	ld.global.f32 %f1, [%rd9];
	ld.global.f32 %f2, [%rd10];
	add.rn.f32 %f3, %f1, %f2;
	st.global.f32 [%rd11], %f3;
	add.u64 %rd5, %rd5, %rd7;
	setp.lt.u64 %p1, %rd5, %rd4;
	@%p1 bra VADD_LOOP;
VADD_DONE:
	ret;
}
`

func main() {
	n := flag.Int("n", 1<<20, "number of float32 elements")
	memProfile := flag.String("gpumemprofile", "", "write a GPU memory profile (go tool pprof) to this file at exit")
	memTrace := flag.String("gpumemtrace", "", "record a GPU memory trace and write it to this file at exit (gpuarr memviz draws it)")
	flag.Parse()
	finish := memory.RecordTo(*memProfile, *memTrace)
	exit := func(code int) {
		if err := finish(); err != nil {
			fmt.Fprintln(os.Stderr, "vecadd:", err)
			code = max(code, 1)
		}
		os.Exit(code)
	}
	defer exit(0)

	dev, err := device.Default()
	if err != nil {
		fmt.Fprintln(os.Stderr, "vecadd:", err)
		exit(1)
	}
	fmt.Printf("vecadd: device %s\n", dev)

	res, err := vecAdd(dev, *n, rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		fmt.Fprintf(os.Stderr, "vecadd: %d elements on %s: FAILED: %v\n", *n, dev, err)
		exit(1)
	}
	fmt.Printf("vecadd: %d elements on %s: OK (max error %g)\n", *n, dev, res.MaxError)
	bw := "-"
	if res.Kernel > 0 {
		// The kernel reads a and b and writes c.
		bw = fmt.Sprintf("%.1f GB/s", float64(3*4*(*n))/res.Kernel.Seconds()/1e9)
	}
	fmt.Printf("vecadd: upload %v, kernel %v (%s), download %v, total %v\n",
		res.Upload.Round(time.Microsecond), res.Kernel.Round(time.Microsecond), bw,
		res.Download.Round(time.Microsecond), res.Total.Round(time.Microsecond))
}

// vaddHost is the kernel in Go, for the host backend: the same arguments
// (a, b, c, n) as vaddPTX, read through checked views of device memory.
func vaddHost(l *hostkernel.Launch) error {
	n := l.Args.U64(3)
	var views [3][]float32
	for i := range views {
		v, err := hostkernel.View[float32](l, l.Args.Ptr(i), n)
		if err != nil {
			return err
		}
		views[i] = v
	}
	a, b, c := views[0], views[1], views[2]
	l.ParallelFor(n, func(lo, hi uint64) {
		for i := lo; i < hi; i++ {
			c[i] = a[i] + b[i]
		}
	})
	return nil
}

// Result is a checked vector add and where its time went: Upload, Kernel
// and Download are measured with timing events on the device's stream,
// Total with the wall clock around the whole round trip.
type Result struct {
	MaxError                 float64
	Upload, Kernel, Download time.Duration
	Total                    time.Duration
}

// vecAdd computes c = a + b for n random float32 on dev and compares c with
// the CPU's sum. Any difference is an error: IEEE addition is exact to the
// last bit on both sides.
func vecAdd(dev *device.Device, n int, rng *rand.Rand) (res Result, err error) {
	if n <= 0 {
		return res, fmt.Errorf("need a positive element count, got %d", n)
	}
	if dev.RunsHostKernels() {
		if _, err := dev.RegisterHostKernel("vecadd_f32", vaddHost); err != nil {
			return res, err
		}
	}
	mod, err := dev.LoadPTX(dev.PTXHeader() + vaddPTX)
	if err != nil {
		return res, fmt.Errorf("loading the kernel: %w", err)
	}
	defer func() { err = errors.Join(err, mod.Close()) }()
	vadd, err := mod.Kernel("vecadd_f32")
	if err != nil {
		return res, err
	}

	size := uint64(n) * 4
	var bufs [3]device.Ptr
	for i := range bufs {
		if bufs[i], err = dev.Alloc(size); err != nil {
			return res, fmt.Errorf("allocating %d bytes: %w", size, err)
		}
		p := bufs[i]
		defer func() { err = errors.Join(err, dev.Free(p)) }()
	}
	a, b, c := bufs[0], bufs[1], bufs[2]

	var events [4]*device.Event
	for i := range events {
		if events[i], err = dev.NewTimingEvent(); err != nil {
			return res, err
		}
		e := events[i]
		defer func() { err = errors.Join(err, e.Close()) }()
	}

	x, y := make([]float32, n), make([]float32, n)
	for i := range x {
		x[i] = rng.Float32()*2 - 1
		y[i] = rng.Float32()*2 - 1
	}
	got := make([]float32, n)

	s := dev.DefaultStream()
	start := time.Now()
	steps := []func() error{
		func() error { return s.Record(events[0]) },
		func() error { return device.Upload(s, a, x) },
		func() error { return device.Upload(s, b, y) },
		// A quiet NaN in every word of c: a kernel that skips an element
		// cannot pass the check by luck.
		func() error { return s.Memset32(c, 0x7fc00000, uint64(n)) },
		func() error { return s.Record(events[1]) },
		func() error { return s.Launch(vadd, device.Linear(uint64(n), 256), a, b, c, uint64(n)) },
		func() error { return s.Record(events[2]) },
		func() error { return device.Download(s, got, c) },
		func() error { return s.Record(events[3]) },
		func() error { return events[3].Synchronize() },
	}
	for _, step := range steps {
		if err = step(); err != nil {
			return res, err
		}
	}
	res.Total = time.Since(start)
	for i, d := range []*time.Duration{&res.Upload, &res.Kernel, &res.Download} {
		if *d, err = device.Elapsed(events[i], events[i+1]); err != nil {
			return res, err
		}
	}

	res.MaxError, err = check(x, y, got)
	return res, err
}

// check compares got with the CPU's x + y element by element and returns the
// largest absolute difference (+Inf for NaN) and an error naming the first
// difference, if any.
func check(x, y, got []float32) (maxError float64, err error) {
	mismatches, first := 0, -1
	for i := range got {
		want := x[i] + y[i]
		if got[i] == want {
			continue
		}
		mismatches++
		if first < 0 {
			first = i
		}
		diff := math.Abs(float64(got[i]) - float64(want))
		if math.IsNaN(diff) {
			diff = math.Inf(1)
		}
		maxError = max(maxError, diff)
	}
	if mismatches > 0 {
		return maxError, fmt.Errorf("%d of %d elements differ from the CPU sum (first c[%d] = %g, want %g; max error %g)",
			mismatches, len(got), first, got[first], x[first]+y[first], maxError)
	}
	return 0, nil
}
