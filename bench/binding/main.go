// Command binding measures what the Go binding adds to driver calls:
// a trivial call (cuCtxGetCurrent) and a kernel launch (gpuarr_empty),
// each through the binding and in a C loop inside the shim, as per-call
// distributions and the ratio of medians.
//
//	go run ./bench/binding -out bench/results
//
// It needs a CUDA device; elsewhere it writes a report that says so.
package main

import (
	"flag"
	"fmt"
	"os"
	"runtime"

	"github.com/gpuarr/gpuarr/bench/report"
	"github.com/gpuarr/gpuarr/device"
	"github.com/gpuarr/gpuarr/device/cuda"
	"github.com/gpuarr/gpuarr/device/driver"
	"github.com/gpuarr/gpuarr/internal/testkernels"
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
var metricKeys = []string{"p50_ns", "p99_ns", "min_ns", "ratio_vs_c", "target"}

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
	if err := benchCtxGetCurrent(rep, batches, callBatch); err != nil {
		return err
	}
	if err := benchLaunch(rep, dev, batches, launchBatch); err != nil {
		return err
	}
	rep.Note("Per-call host time; each sample is one batch's mean (cuCtxGetCurrent: %d calls, launches: %d of gpuarr_empty, grid 1, block 1, stream drained between batches and not timed). %d batches each, the paths interleaved in rotating order; %s, GOMAXPROCS %d.",
		callBatch, launchBatch, batches, runtime.Version(), runtime.GOMAXPROCS(0))
	rep.Markdown(os.Stdout, labelKeys, metricKeys)
	return rep.WriteJSON(outDir)
}

func row(rep *report.Report, name, path string, samples []float64, cP50, target float64) float64 {
	s := report.Summarize(samples)
	m := map[string]float64{"p50_ns": s.P50, "p99_ns": s.P99, "min_ns": s.Min, "mean_ns": s.Mean}
	if cP50 > 0 {
		m["ratio_vs_c"] = s.P50 / cP50
		m["target"] = target
	}
	rep.Add(name, map[string]string{"path": path}, m)
	return s.P50
}

func benchCtxGetCurrent(rep *report.Report, batches, batch int) error {
	var callErr error
	op := func() {
		if _, err := cuda.CtxGetCurrent(); err != nil {
			callErr = err
		}
	}
	// Warm up both paths.
	report.TimeBatches(10, batch, op)
	if _, err := cuda.BenchCtxGetCurrentC(batch); err != nil {
		return err
	}
	var goNs, cNs, noopNs []float64
	for range batches {
		noopNs = append(noopNs, report.TimeBatches(1, batch, cuda.CgoNoop)...)
		goNs = append(goNs, report.TimeBatches(1, batch, op)...)
		ns, err := cuda.BenchCtxGetCurrentC(batch)
		if err != nil {
			return err
		}
		cNs = append(cNs, float64(ns)/float64(batch))
	}
	if callErr != nil {
		return callErr
	}
	cP50 := row(rep, "cuCtxGetCurrent", "C loop in the shim", cNs, 0, 0)
	goP50 := row(rep, "cuCtxGetCurrent", "Go binding (cuda.CtxGetCurrent)", goNs, cP50, targetCtxGetCurrent)
	floorP50 := row(rep, "empty cgo call", "Go → shim, no driver call (the floor)", noopNs, 0, 0)
	if r := goP50 / cP50; r > targetCtxGetCurrent {
		rep.Note("Missed: cuCtxGetCurrent through the binding is %.2f× the C loop (target ≤ %.2f×). The C call takes %.1f ns here, not the %.0f ns the issue assumed, and an empty cgo call alone costs %.1f ns (%.1f× the C call), so no cgo binding can meet this ratio; the binding adds %.1f ns to the call (%.2f× the issue's %.0f ns).",
			r, targetCtxGetCurrent, cP50, issueCtxGetCurrentNs, floorP50, floorP50/cP50, goP50-cP50, goP50/issueCtxGetCurrentNs, issueCtxGetCurrentNs)
	}
	return nil
}

func benchLaunch(rep *report.Report, dev *device.Device, batches, batch int) error {
	ks, err := testkernels.Load(dev)
	if err != nil {
		return err
	}
	defer ks.Module.Close()
	// The C loop needs the backend's function; load the same PTX once more
	// at the driver level (the device API does not expose it).
	mod, err := dev.Driver().LoadModule(testkernels.PTX(dev))
	if err != nil {
		return err
	}
	defer mod.Close()
	fn, err := mod.Function("gpuarr_empty")
	if err != nil {
		return err
	}
	s, err := dev.NewStream()
	if err != nil {
		return err
	}
	defer s.Close()

	cfg := device.LaunchConfig{Grid: device.Dim3{X: 1}, Block: device.Dim3{X: 1}}
	one := driver.Dim3{X: 1, Y: 1, Z: 1}
	var args driver.Args
	var launchErr error
	viaDevice := func() {
		if err := s.Launch(ks.Empty, cfg); err != nil {
			launchErr = err
		}
	}
	viaDriver := func() {
		if err := s.Driver().Launch(fn, one, one, 0, &args); err != nil {
			launchErr = err
		}
	}
	cBatch := func() (float64, error) {
		ns, err := cuda.BenchLaunchC(s.Driver(), fn, one, one, 0, &args, batch)
		return float64(ns) / float64(batch), err
	}

	// Warm up: JIT, first-launch setup, queue.
	for range 5 {
		report.TimeBatches(1, batch, viaDevice)
		if _, err := cBatch(); err != nil {
			return err
		}
		if err := s.Synchronize(); err != nil {
			return err
		}
	}
	var devNs, drvNs, cNs []float64
	paths := []func() error{
		func() error { devNs = append(devNs, report.TimeBatches(1, batch, viaDevice)...); return nil },
		func() error { drvNs = append(drvNs, report.TimeBatches(1, batch, viaDriver)...); return nil },
		func() error {
			c, err := cBatch()
			cNs = append(cNs, c)
			return err
		},
	}
	// Each round runs the three paths in a rotated order, each after a
	// drained stream, so no path always follows the same one.
	for i := range batches {
		for j := range paths {
			if err := paths[(i+j)%len(paths)](); err != nil {
				return err
			}
			if err := s.Synchronize(); err != nil {
				return err
			}
		}
	}
	if launchErr != nil {
		return launchErr
	}
	if diag {
		if err := launchDiag(rep, s, fn, batches, batch, viaDriver); err != nil {
			return err
		}
	}
	cP50 := row(rep, "launch gpuarr_empty", "C loop of cuLaunchKernel in the shim", cNs, 0, 0)
	row(rep, "launch gpuarr_empty", "Go backend (driver.Stream.Launch)", drvNs, cP50, targetLaunch)
	goP50 := row(rep, "launch gpuarr_empty", "Go user API (device.Stream.Launch)", devNs, cP50, targetLaunch)
	if r := goP50 / cP50; r > targetLaunch {
		rep.Note("Missed: a launch through device.Stream.Launch is %.3f× the C loop (target ≤ %.2f×).", r, targetLaunch)
	}
	rep.Note("A launch through the user API costs %.0f ns more than in the C loop at the median (%.0f ns more at the minimum).", goP50-cP50, report.Summarize(devNs).Min-report.Summarize(cNs).Min)
	return nil
}

// launchDiag measures what the launch cost depends on: C launches paced
// with a gap after each (cost inside cuLaunchKernel only), a Go launch with
// one more empty cgo call each, and a Go launch from a thread-locked
// goroutine.
func launchDiag(rep *report.Report, s *device.Stream, fn driver.Function, batches, batch int, viaDriver func()) error {
	for _, gap := range []int64{0, 50, 100, 200, 500, 1000} {
		var ns []float64
		for range batches {
			t, err := cuda.BenchLaunchSpacedC(s.Driver(), fn, batch, gap)
			if err != nil {
				return err
			}
			ns = append(ns, float64(t)/float64(batch))
			if err := s.Synchronize(); err != nil {
				return err
			}
		}
		row(rep, "diag: launch, paced", fmt.Sprintf("C, %d ns gap after each", gap), ns, 0, 0)
	}
	var extra, locked []float64
	withNoop := func() { viaDriver(); cuda.CgoNoop() }
	runtime.LockOSThread()
	for range batches {
		locked = append(locked, report.TimeBatches(1, batch, viaDriver)...)
		if err := s.Synchronize(); err != nil {
			return err
		}
	}
	runtime.UnlockOSThread()
	for range batches {
		extra = append(extra, report.TimeBatches(1, batch, withNoop)...)
		if err := s.Synchronize(); err != nil {
			return err
		}
	}
	row(rep, "diag: launch", "Go backend, goroutine locked to its thread", locked, 0, 0)
	row(rep, "diag: launch", "Go backend + one empty cgo call each", extra, 0, 0)
	return nil
}
