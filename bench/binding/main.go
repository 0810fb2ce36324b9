// Command binding measures what the Go binding adds to driver calls:
// a trivial call (cuCtxGetCurrent) and a kernel launch (gpuarr_empty),
// each through the binding and in a C loop inside the shim, as per-call
// distributions and the ratio of medians.
//
// It needs a CUDA device; elsewhere it writes a report that says so. The C
// loops are benchmark probes of the CUDA backend that exist only in builds
// with -tags gpuarrbench (make bench and the GPU bundle build it so):
//
//	go run -tags gpuarrbench ./bench/binding -out bench/results
package main

import (
	"flag"
	"fmt"
	"os"
	"runtime"

	"github.com/gpuarr/gpuarr/bench/report"
	"github.com/gpuarr/gpuarr/device"
)

// Targets, as ratios of the binding's median to C's.
const (
	targetCtxGetCurrent = 2.0
	targetLaunch        = 1.10

	// The C figure for cuCtxGetCurrent that the target was set against.
	issueCtxGetCurrentNs = 33.0
)

func main() {
	out := flag.String("out", "", "directory for binding.json (none: print only)")
	batches := flag.Int("batches", 200, "timed batches per case")
	callBatch := flag.Int("call-batch", 10000, "cuCtxGetCurrent calls per batch")
	launchBatch := flag.Int("launch-batch", 256, "launches per batch (the stream is drained between batches)")
	flag.BoolVar(&diag, "diag", false, "add diagnostic rows: launches paced with gaps, an extra cgo call per launch, a thread-locked goroutine")
	flag.Parse()
	if err := run(*out, *batches, *callBatch, *launchBatch); err != nil {
		fmt.Fprintln(os.Stderr, "binding:", err)
		os.Exit(1)
	}
}

var diag bool

var labelKeys = []string{"path"}
var metricKeys = []string{"p50_ns", "p99_ns", "min_ns", "ratio_vs_c"}

func run(outDir string, batches, callBatch, launchBatch int) error {
	dev, err := device.Default()
	if err != nil || dev.Backend() != "cuda" {
		name, backend, ver := "none", "none", 0
		reason := fmt.Sprint(err)
		if err == nil {
			name, backend, ver = dev.Name(), dev.Backend(), dev.DriverVersion()
			reason = "the default device is " + dev.String()
		}
		rep := report.New("binding", name, backend, ver)
		rep.Note("Not measured: the binding benchmark needs a CUDA GPU (%s).", reason)
		fmt.Printf("binding: needs a CUDA GPU; %s\n", reason)
		rep.Markdown(os.Stdout, labelKeys, metricKeys)
		return rep.WriteJSON(outDir)
	}

	rep := report.New("binding", dev.Name(), dev.Backend(), dev.DriverVersion())
	if err := measure(rep, dev, batches, callBatch, launchBatch); err != nil {
		return err
	}
	rep.Note("Per-call host time; each sample is one batch's mean (cuCtxGetCurrent: %d calls, launches: %d of gpuarr_empty, grid 1, block 1, stream drained between batches and not timed). %d batches each, the paths interleaved in rotating order; %s, GOMAXPROCS %d.",
		callBatch, launchBatch, batches, runtime.Version(), runtime.GOMAXPROCS(0))
	rep.Markdown(os.Stdout, labelKeys, metricKeys)
	return rep.WriteJSON(outDir)
}
