// Command train is a linear-regression training loop under a device
// memory limit, in the style of the CUDA.jl 5.4 post on memory management:
// features of 1,000 × 300,000 float32 on the device, minibatches of 2,048
// samples, 100 epochs, with every batch's temporaries (a copy of the
// batch, predictions, errors, gradient) left to Go's garbage collector.
// It shows that such code never runs out of memory, and what eager
// collection buys over collecting only when the allocator runs dry.
//
//	go run ./examples/train [-mode eager|disabled|release] [-epochs N] [-out DIR]
//
// Modes:
//
//	eager     temporaries left to the GC; gcpressure collects early (default)
//	disabled  temporaries left to the GC; eager collection off (the
//	          default under GPUARR_GC_EARLY=false): only the allocator's
//	          reclaim ladder collects, when memory runs out
//	release   every temporary released explicitly: the baseline
//
// An explicit -mode overrides GPUARR_GC_EARLY.
//
// It prints each epoch's time and what the GC did, then a summary; with
// -out it writes bench/report JSON (train-<mode>.json): total time,
// epochs/s, collections, GC time, longest pause, reclaim ladder runs and
// OOMs. The limit is GPUARR_HARD_MEMORY_LIMIT (-limit overrides it).
//
// On the host backend the sizes shrink (256 × 40,000 features, 20 epochs)
// and, without a limit in the environment, a 256 MiB hard limit applies
// so that the garbage still outgrows the limit several times.
//
// Each step is ŷ = Xb·w (cuBLAS on a GPU, gonum on the host), r = ŷ − yb,
// ∇ = Xbᵀ·r, w −= η/n·∇ (one fused kernel, in place) and the loss
// mean(r²) (a fused map-reduce); the data are generated on the device
// with gpuarr's random numbers. The loss printed each epoch falls toward
// the noise floor (1e-4).
package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/gpuarr/gpuarr/device"
	"github.com/gpuarr/gpuarr/gcpressure"
	"github.com/gpuarr/gpuarr/memory"
)

func main() {
	mode := flag.String("mode", "", "eager, disabled or release (default: eager, or disabled under GPUARR_GC_EARLY=false)")
	epochs := flag.Int("epochs", 0, "epochs (default 100 on a GPU, 20 on the host backend)")
	features := flag.Int("features", 0, "features per sample (default 1000 on a GPU, 256 on the host)")
	samples := flag.Int("samples", 0, "samples (default 300000 on a GPU, 40000 on the host)")
	batch := flag.Int("batch", 2048, "samples per minibatch")
	limit := flag.String("limit", "", "hard memory limit (sets GPUARR_HARD_MEMORY_LIMIT; default: the environment's, or 256MiB on the host backend)")
	out := flag.String("out", "", "write train-<mode>.json (bench/report) into this folder")
	quiet := flag.Bool("q", false, "print only the summary")
	flag.Parse()

	if _, err := run(options{
		mode: Mode(*mode), epochs: *epochs, features: *features, samples: *samples, batch: *batch,
		limit: *limit, out: *out, quiet: *quiet,
	}); err != nil {
		fmt.Fprintln(os.Stderr, "train:", err)
		os.Exit(1)
	}
}

type options struct {
	mode                             Mode
	epochs, features, samples, batch int
	limit, out                       string
	quiet                            bool
}

// run sizes the problem for the device, trains, and reports.
func run(o options) (summary, error) {
	if o.mode == "" {
		o.mode = Eager
		if cfg, err := gcpressure.DefaultConfig(); err != nil {
			return summary{}, err
		} else if !cfg.Enabled {
			o.mode = Disabled
		}
	}
	switch o.mode {
	case Eager, Disabled, Release:
	default:
		return summary{}, fmt.Errorf("-mode %q: want eager, disabled or release", o.mode)
	}
	dev, err := device.Default()
	if err != nil {
		return summary{}, err
	}
	gpu := dev.Backend() != "host"
	def := func(v *int, onGPU, onHost int) {
		if *v <= 0 {
			*v = onHost
			if gpu {
				*v = onGPU
			}
		}
	}
	def(&o.epochs, 100, 20)
	def(&o.features, 1000, 256)
	def(&o.samples, 300000, 40000)
	if o.batch <= 0 {
		return summary{}, fmt.Errorf("-batch %d: want a positive batch size", o.batch)
	}
	// The limit must be in place before the device's memory resource is
	// built (at the first allocation).
	if o.limit == "" && os.Getenv(memory.EnvHardLimit) == "" && !gpu {
		o.limit = "256MiB"
	}
	if o.limit != "" {
		os.Setenv(memory.EnvHardLimit, o.limit)
	}
	if err := gcpressure.Install(); err != nil {
		return summary{}, err
	}
	gcpressure.SetEager(o.mode != Disabled)

	res, err := memory.Default(dev)
	if err != nil {
		return summary{}, err
	}
	cfg := Config{Features: o.features, Samples: o.samples, Batch: o.batch, Epochs: o.epochs, Mode: o.mode}
	fmt.Printf("train: %s, mode %s: %d × %d float32 features (%s), batches of %d, %d epochs; hard limit %s\n",
		dev, o.mode, cfg.Samples, cfg.Features, memory.FormatBytes(uint64(cfg.Samples*cfg.Features*4)),
		cfg.Batch, cfg.Epochs, limitString(res.Stats().HardLimit))

	gcpressure.WaitIdle() // counters start after any earlier run's collections
	m := newMeter(res)
	cfg.Epoch = func(epoch int, took time.Duration, loss float64) {
		d := m.epoch(took)
		m.loss = loss
		if !o.quiet {
			fmt.Printf("epoch %3d/%d  %9v  loss %.3g  %s\n", epoch, cfg.Epochs, took.Round(10*time.Microsecond), loss, d)
		}
	}
	start := time.Now()
	trainErr := train(dev, cfg)
	total := time.Since(start)
	gcpressure.WaitIdle() // count the background collections still running

	sum := m.summary(total, trainErr)
	fmt.Print(sum.text(o.mode))
	if o.out != "" {
		if err := sum.report(dev, cfg).WriteJSON(o.out); err != nil {
			return sum, errors.Join(trainErr, err)
		}
	}
	return sum, trainErr
}

func limitString(n uint64) string {
	if n == 0 {
		return "none"
	}
	return memory.FormatBytes(n)
}
