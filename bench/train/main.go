// Command train is the training benchmark: it runs the model of
// examples/train (package linreg: linear regression under a device memory
// limit, every batch's temporaries left to Go's garbage collector or
// released) and measures what each way of treating temporaries costs:
// features of 1,000 × 300,000 float32 on the device, minibatches of 2,048
// samples, 100 epochs.
//
//	go run ./bench/train [-mode eager|disabled|release] [-epochs N] [-out DIR]
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
// -cpuprofile and -trace write a CPU profile and a Go execution trace
// of the training loop (go tool pprof, go tool trace).
//
// Timings on shared machines vary from run to run by more than the
// differences between modes, so the benchmark runs each mode several times,
// interleaved, with -tag naming each run (train-<mode>-<tag>.json), and
// then -summarize DIR combines them: the median and p99 of each mode's
// total time (setup included: generating the data, loading cuBLAS) and of
// the loop alone (the epochs), the ratios between modes, and the worst
// GC figures, in train-summary.json and a Markdown table. bench/gpu/run.sh
// runs those rounds.
//
// It prints each epoch's time and what the GC did, then a summary; with
// -out it writes bench/report JSON (train-<mode>.json): total time,
// epochs/s, collections, GC time, longest pause, reclaim ladder runs and
// OOMs. The limit is GPUARR_HARD_MEMORY_LIMIT (-limit overrides it).
//
// On the host backend the sizes shrink (256 × 40,000 features, 20 epochs)
// and, without a limit in the environment, a 256 MiB hard limit applies
// so that the garbage still outgrows the limit several times.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"runtime/pprof"
	"time"

	"github.com/gpuarr/gpuarr/bench/report"
	"github.com/gpuarr/gpuarr/device"
	"github.com/gpuarr/gpuarr/gcpressure"
	"github.com/gpuarr/gpuarr/gpuarr"
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
	tag := flag.String("tag", "", "name this run among repeats: -out writes train-<mode>-<tag>.json")
	variant := flag.String("variant", "", "name a setting beside the mode (e.g. an environment variable) for -summarize to keep apart: train-<mode>-<variant>-<tag>.json")
	summarize := flag.String("summarize", "", "instead of training, combine the train-*.json in this folder into train-summary.json (medians, ratios) and print its table")
	cpuProfile := flag.String("cpuprofile", "", "write a CPU profile of the training loop to this file")
	traceFile := flag.String("trace", "", "write a Go execution trace of the training loop to this file")
	flag.Parse()

	if *summarize != "" {
		if err := summarizeRuns(*summarize, os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, "train:", err)
			os.Exit(1)
		}
		return
	}
	if _, err := run(options{
		mode: Mode(*mode), epochs: *epochs, features: *features, samples: *samples, batch: *batch,
		limit: *limit, out: *out, tag: *tag, variant: *variant, quiet: *quiet, cpuProfile: *cpuProfile, trace: *traceFile,
	}); err != nil {
		fmt.Fprintln(os.Stderr, "train:", err)
		os.Exit(1)
	}
}

type options struct {
	mode                             Mode
	epochs, features, samples, batch int
	limit, out, tag, variant         string
	quiet                            bool
	cpuProfile, trace                string // files for the loop's profile and execution trace
}

// run sizes the problem for the device, trains, and reports.
func run(o options) (summary, error) {
	if o.mode == "" {
		if err := gcpressure.Install(); err != nil {
			return summary{}, err
		}
		o.mode = Eager
		if !gcpressure.Eager() {
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
	if m, err := gpuarr.DefaultMemory(dev); err != nil {
		return summary{}, err
	} else if m == gpuarr.UnifiedMemory {
		// GPUARR_DEFAULT_MEMORY=unified: the arrays' memory is the
		// device's managed memory; the meter watches it.
		if res, err = memory.DefaultManaged(dev); err != nil {
			return summary{}, err
		}
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
	stop, err := report.StartProfiles(o.cpuProfile, o.trace)
	if err != nil {
		return summary{}, err
	}
	start := time.Now()
	var trainErr error
	// The label tells the loop's own samples from the GC's and the
	// cleanups' in the CPU profile (go tool pprof -tagfocus=loop=train).
	pprof.Do(context.Background(), pprof.Labels("loop", "train"), func(context.Context) {
		trainErr = train(dev, cfg)
	})
	total := time.Since(start)
	gcpressure.WaitIdle() // count the background collections still running
	if err := stop(); err != nil {
		trainErr = errors.Join(trainErr, err)
	}

	sum := m.summary(total, trainErr)
	fmt.Print(sum.text(o.mode))
	if o.out != "" {
		if err := sum.report(dev, cfg, o.variant, o.tag).WriteJSON(o.out); err != nil {
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
