// Command array measures what the array layer adds on the
// default device, in one run:
//
//  1. Empty[float32](Shape{1}) + Release, per call (p50, p99), next to the
//     caching pool's own alloc+free of the same size;
//  2. tracking overhead: a same-stream launch of gpuarr_vadd_f32 through
//     gpuarr.Launch (three arrays) against device.Stream.Launch of the same
//     kernel with raw pointers;
//  3. a cross-stream hand-off: a producer stream writes an array that a
//     consumer stream reads, against the same two launches on one stream;
//     with -tags gpuarrbench on the CUDA backend, the same round in C
//     against the driver too (driver.HandoffProbe), the driver's floor;
//  4. a host read of a clean array (no GPU work pending): CopyToHost against
//     the raw synchronous copy of the same bytes, and CopyToHost of an
//     empty array (everything but the copy).
//
// The reference for case 1 on the Python side, torch.empty(1) + del, is
// timed by bench/peer/alloc_peers.py in the same GPU run.
//
//	go run ./bench/array -out bench/results
//
// It runs on the host backend too; those figures only show that it works.
package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"runtime"

	"github.com/gpuarr/gpuarr/bench/report"
	"github.com/gpuarr/gpuarr/device"
)

// The targets each figure is held to.
const (
	targetEmptyP50Ns     = 300  // Empty[float32](1) + Release
	targetEmptyOverNs    = 200  // Empty+Release over the same run's pool alloc+free, at the median
	targetLaunchRatio    = 1.10 // tracked same-stream launch / raw launch
	targetHandoffNs      = 500  // cross-stream minus same-stream, per hand-off
	targetHandoffOverCNs = 150  // a hand-off over the same run's C event floor, at the median
	targetHostReadNs     = 50   // clean host read beyond the copy
)

var (
	labelKeys  = []string{"path"}
	metricKeys = []string{"p50_ns", "p99_ns", "min_ns", "vs_ref"}
)

type config struct {
	batches      int // timed batches per case
	allocBatches int // timed batches of the Empty+Release case
	allocBatch   int // Empty+Release pairs per batch
	launchBatch  int // launches per batch (streams drained between batches)
	readBatch    int // host reads per batch
}

func main() {
	out := flag.String("out", "", "directory for array.json (none: print only)")
	cfg := config{}
	flag.IntVar(&cfg.batches, "batches", 200, "timed batches per case")
	flag.IntVar(&cfg.allocBatches, "alloc-batches", 1000, "timed batches of the Empty+Release case (they span many GC cycles, between which its cost moves)")
	flag.IntVar(&cfg.allocBatch, "alloc-batch", 1000, "Empty+Release pairs per batch")
	flag.IntVar(&cfg.launchBatch, "launch-batch", 256, "launches per batch")
	flag.IntVar(&cfg.readBatch, "read-batch", 200, "host reads per batch")
	cpuProfile := flag.String("cpuprofile", "", "write a CPU profile of the whole run to this file (go tool pprof)")
	flag.Parse()
	stop, err := report.StartProfiles(*cpuProfile, "")
	if err == nil {
		err = errors.Join(run(*out, cfg), stop())
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "array:", err)
		os.Exit(1)
	}
}

func run(outDir string, cfg config) error {
	dev, err := device.Default()
	if err != nil {
		return err
	}
	rep := report.New("array", dev.Name(), dev.Backend(), dev.DriverVersion())
	for _, c := range []func(*report.Report, *device.Device, config) error{benchEmpty, benchLaunch, benchHandoff, benchHostRead} {
		if err := c(rep, dev, cfg); err != nil {
			return err
		}
	}
	rep.Note("Per-call host time; each sample is one batch's mean (%d batches per case, %d for Empty+Release; Empty+Release: %d per batch; launches: %d per batch with the streams drained, untimed, between batches; host reads: %d per batch); paths interleaved in rotating order. %s, GOMAXPROCS %d, device %s.",
		cfg.batches, cfg.allocBatches, cfg.allocBatch, cfg.launchBatch, cfg.readBatch, runtime.Version(), runtime.GOMAXPROCS(0), dev)
	if dev.Backend() != "cuda" {
		rep.Note("Measured on the %s backend: the figures show that the program runs, not what a GPU does.", dev.Backend())
	}
	rep.Markdown(os.Stdout, labelKeys, metricKeys)
	return rep.WriteJSON(outDir)
}

// add writes a row; ref > 0 adds the ratio (or difference, see diff) to it.
func add(rep *report.Report, name, path string, samples []float64, metrics map[string]float64) report.Summary {
	s := report.Summarize(samples)
	m := map[string]float64{"p50_ns": s.P50, "p99_ns": s.P99, "min_ns": s.Min, "mean_ns": s.Mean}
	for k, v := range metrics {
		m[k] = v
	}
	rep.Add(name, map[string]string{"path": path}, m)
	return s
}

// interleave runs each path's batch in rotating order, rounds times, with
// after (untimed) between batches.
func interleave(rounds int, after func() error, paths ...func()) error {
	for i := range rounds {
		for j := range paths {
			paths[(i+j)%len(paths)]()
			if after != nil {
				if err := after(); err != nil {
					return err
				}
			}
		}
	}
	return nil
}
