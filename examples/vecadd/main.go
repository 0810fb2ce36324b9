// Command vecadd is gpuarr's first demo: it adds two vectors of float32 on
// the default device with a PTX kernel and checks the sum against the CPU's,
// bit for bit.
//
// It runs on a GPU when a CUDA driver and a GPU are usable and on the host
// backend otherwise; GPUARR_DEVICE=host|cuda|cuda:N picks one explicitly.
//
//	go run ./examples/vecadd [-n elements]
//
// The program uses only the raw driver layer (package device) and the test
// kernels; arrays, pools and the GC integration come from later packages.
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
	"github.com/gpuarr/gpuarr/internal/testkernels"
)

func main() {
	n := flag.Int("n", 1<<20, "number of float32 elements")
	flag.Parse()

	dev, err := device.Default()
	if err != nil {
		fmt.Fprintln(os.Stderr, "vecadd:", err)
		os.Exit(1)
	}
	fmt.Printf("vecadd: device %s\n", dev)

	res, err := vecAdd(dev, *n, rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		fmt.Fprintf(os.Stderr, "vecadd: %d elements on %s: FAILED: %v\n", *n, dev, err)
		os.Exit(1)
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
	ks, err := testkernels.Load(dev)
	if err != nil {
		return res, fmt.Errorf("loading the test kernels: %w", err)
	}
	defer func() { err = errors.Join(err, ks.Module.Close()) }()

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
		func() error { return s.Launch(ks.VAdd, device.Linear(uint64(n), 256), a, b, c, uint64(n)) },
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
