// Command unified is a program ported halfway to the GPU: the GPU computes
// a field of values, and a histogram — CPU code with no GPU version —
// iterates the result in place through a unified (managed) array, with no
// copy and no manual synchronization. The histogram is checked against
// one computed from the same values on the CPU alone.
//
//	go run ./examples/unified [-n elements] [-bins k]
//
// It runs on a GPU when one is usable and on the host backend otherwise.
package main

import (
	"flag"
	"fmt"
	"github.com/gpuarr/gpuarr/memory"
	"math"
	"os"
	"slices"

	"github.com/gpuarr/gpuarr/gpuarr"
	"github.com/gpuarr/gpuarr/unified"
)

func main() {
	n := flag.Int("n", 1<<20, "number of elements")
	bins := flag.Int("bins", 16, "histogram bins")
	memProfile := flag.String("gpumemprofile", "", "write a GPU memory profile (go tool pprof) to this file at exit")
	memTrace := flag.String("gpumemtrace", "", "record a GPU memory trace and write it to this file at exit (gpuarr memviz draws it)")
	flag.Parse()
	finish := memory.RecordTo(*memProfile, *memTrace)
	exit := func(code int) {
		if err := finish(); err != nil {
			fmt.Fprintln(os.Stderr, "unified:", err)
			code = max(code, 1)
		}
		os.Exit(code)
	}
	defer exit(0)
	res, err := run(*n, *bins)
	if err != nil {
		fmt.Fprintln(os.Stderr, "unified:", err)
		exit(1)
	}
	fmt.Printf("unified: %d values on %s, histogram %v: OK\n", *n, res.Device, res.Hist)
}

type result struct {
	Device string
	Hist   []int
}

// run computes y = x*x/n on the GPU into a unified array (x = 0..n-1
// uploaded from the CPU), then bins y on the CPU in place.
func run(n, bins int) (result, error) {
	if n <= 0 || bins <= 0 {
		return result{}, fmt.Errorf("n=%d, bins=%d: both must be positive", n, bins)
	}
	xs := make([]float32, n)
	for i := range xs {
		xs[i] = float32(i)
	}
	x, err := gpuarr.FromSlice(xs, gpuarr.Shape{n})
	if err != nil {
		return result{}, err
	}
	defer x.Release()
	y, err := unified.Empty[float32](gpuarr.Shape{n})
	if err != nil {
		return result{}, err
	}
	defer y.Release()
	scale := gpuarr.Scalar(1 / float32(n))
	if err := gpuarr.EvalInto(y, gpuarr.Mul[float32](gpuarr.Mul[float32](x, x), scale)); err != nil {
		return result{}, err
	}

	// The CPU half: a histogram straight over the GPU's result.
	vals, err := unified.Values(y)
	if err != nil {
		return result{}, err
	}
	hist := histogram(vals, float32(n), bins)

	// The check: the same computation on the CPU alone.
	want := make([]float32, n)
	for i, v := range xs {
		want[i] = v * v * (1 / float32(n))
	}
	if ref := histogram(slices.Values(want), float32(n), bins); !slices.Equal(hist, ref) {
		return result{}, fmt.Errorf("histogram %v, want %v", hist, ref)
	}
	return result{Device: y.Device().String(), Hist: hist}, nil
}

// histogram counts values of [0, hi) in k equal bins.
func histogram(vals func(func(float32) bool), hi float32, k int) []int {
	h := make([]int, k)
	for v := range vals {
		b := int(math.Floor(float64(v) / float64(hi) * float64(k)))
		h[min(max(b, 0), k-1)]++
	}
	return h
}
