// Command train is a linear-regression training loop under a device
// memory limit, in the style of the CUDA.jl 5.4 post on memory management:
// features of 1,000 × 300,000 float32 on the device, minibatches of 2,048
// samples, 100 epochs, with every batch's temporaries (a copy of the
// batch, predictions, errors, gradient) left to Go's garbage collector.
// Such code never runs out of memory: the model is in package linreg
// (examples/train/linreg), and bench/train measures it.
//
//	go run ./examples/train [-mode eager|disabled|release] [-epochs N] [-limit 4GiB]
//
// Modes:
//
//	eager     temporaries left to the GC; gcpressure collects early (default)
//	disabled  temporaries left to the GC; eager collection off: only the
//	          allocator's reclaim ladder collects, when memory runs out
//	release   every temporary released explicitly
//
// -gpumemprofile FILE writes a GPU memory profile at exit (go tool pprof
// FILE), -gpumemtrace FILE a memory trace (gpuarr memviz FILE >
// timeline.html draws it). The limit is GPUARR_HARD_MEMORY_LIMIT (-limit
// overrides it). On the host
// backend the sizes shrink (256 × 40,000 features, 20 epochs) and, without
// a limit in the environment, a 256 MiB hard limit applies so that the
// garbage still outgrows the limit several times.
//
// Each step is ŷ = Xb·w (cuBLAS on a GPU, gonum on the host), r = ŷ − yb,
// ∇ = Xbᵀ·r, w −= η/n·∇ (one fused kernel, in place) and the loss
// mean(r²) (a fused map-reduce); the data are generated on the device
// with gpuarr's random numbers. The loss printed each epoch falls toward
// the noise floor (1e-4).
package main

import (
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/gpuarr/gpuarr/device"
	"github.com/gpuarr/gpuarr/examples/train/linreg"
	"github.com/gpuarr/gpuarr/gcpressure"
	"github.com/gpuarr/gpuarr/memory"
)

func main() {
	o := options{}
	flag.StringVar((*string)(&o.mode), "mode", string(linreg.Eager), "eager, disabled or release")
	flag.IntVar(&o.epochs, "epochs", 0, "epochs (default 100 on a GPU, 20 on the host backend)")
	flag.IntVar(&o.features, "features", 0, "features per sample (default 1000 on a GPU, 256 on the host)")
	flag.IntVar(&o.samples, "samples", 0, "samples (default 300000 on a GPU, 40000 on the host)")
	flag.IntVar(&o.batch, "batch", 2048, "samples per minibatch")
	flag.StringVar(&o.limit, "limit", "", "hard memory limit (sets GPUARR_HARD_MEMORY_LIMIT; default: the environment's, or 256MiB on the host backend)")
	memProfile := flag.String("gpumemprofile", "", "write a GPU memory profile (go tool pprof) to this file at exit")
	memTrace := flag.String("gpumemtrace", "", "record a GPU memory trace and write it to this file at exit (gpuarr memviz draws it)")
	flag.Parse()
	finish := memory.RecordTo(*memProfile, *memTrace)
	exit := func(code int) {
		if err := finish(); err != nil {
			fmt.Fprintln(os.Stderr, "train:", err)
			code = max(code, 1)
		}
		os.Exit(code)
	}
	defer exit(0)
	if err := run(o); err != nil {
		fmt.Fprintln(os.Stderr, "train:", err)
		exit(1)
	}
}

type options struct {
	mode                             linreg.Mode
	epochs, features, samples, batch int
	limit                            string
}

// run sizes the problem for the device and trains, printing each epoch's
// loss.
func run(o options) error {
	switch o.mode {
	case linreg.Eager, linreg.Disabled, linreg.Release:
	default:
		return fmt.Errorf("-mode %q: want eager, disabled or release", o.mode)
	}
	if o.batch <= 0 {
		return fmt.Errorf("-batch %d: want a positive batch size", o.batch)
	}
	dev, err := device.Default()
	if err != nil {
		return err
	}
	gpu := dev.Backend() != "host"
	orDefault := func(v, onGPU, onHost int) int {
		switch {
		case v > 0:
			return v
		case gpu:
			return onGPU
		default:
			return onHost
		}
	}
	cfg := linreg.Config{
		Features: orDefault(o.features, 1000, 256),
		Samples:  orDefault(o.samples, 300000, 40000),
		Epochs:   orDefault(o.epochs, 100, 20),
		Batch:    o.batch,
		Mode:     o.mode,
	}

	// The limit must be in place before the device's memory resource is
	// built (at the first allocation).
	if o.limit == "" && os.Getenv(memory.EnvHardLimit) == "" && !gpu {
		o.limit = "256MiB"
	}
	if o.limit != "" {
		os.Setenv(memory.EnvHardLimit, o.limit)
	}
	// Eager collection: the GC runs before the device runs out of memory,
	// so temporaries left to it are freed in time.
	if err := gcpressure.Install(); err != nil {
		return err
	}
	gcpressure.SetEager(o.mode != linreg.Disabled)

	fmt.Printf("train: %s, mode %s: %d × %d float32 features, batches of %d, %d epochs\n",
		dev, o.mode, cfg.Samples, cfg.Features, cfg.Batch, cfg.Epochs)
	cfg.Epoch = func(epoch int, took time.Duration, loss float64) {
		fmt.Printf("epoch %3d/%d  %9v  loss %.3g\n", epoch, cfg.Epochs, took.Round(10*time.Microsecond), loss)
	}
	start := time.Now()
	if err := linreg.Train(dev, cfg); err != nil {
		return err
	}
	fmt.Printf("train: %d epochs in %v, no out-of-memory error\n", cfg.Epochs, time.Since(start).Round(time.Millisecond))
	return nil
}
