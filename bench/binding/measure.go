//go:build gpuarrbench

package main

import (
	"fmt"
	"runtime"

	"github.com/gpuarr/gpuarr/bench/report"
	"github.com/gpuarr/gpuarr/device"
	"github.com/gpuarr/gpuarr/device/driver"
	"github.com/gpuarr/gpuarr/internal/testkernels"
)

// row adds a row of samples; with a C figure (cP50 > 0) its ratio to it,
// judged against target (≤) when target > 0.
func row(rep *report.Report, name, path string, samples []float64, cP50, target float64) float64 {
	s := report.Summarize(samples)
	m := map[string]float64{"p50_ns": s.P50, "p99_ns": s.P99, "min_ns": s.Min, "mean_ns": s.Mean}
	r := rep.Add(name, map[string]string{"path": path}, m)
	if cP50 > 0 {
		m["ratio_vs_c"] = s.P50 / cP50
		if target > 0 {
			r.Judge("ratio_vs_c", report.AtMost, target)
		}
	}
	return s.P50
}

// measure adds the rows: the device's backend must offer the probes.
func measure(rep *report.Report, dev *device.Device, batches, callBatch, launchBatch int) error {
	probe, ok := dev.Driver().(driver.CallProbe)
	if !ok {
		return fmt.Errorf("the %s backend offers no binding probes", dev.Backend())
	}
	if err := benchCtxGetCurrent(rep, probe, batches, callBatch); err != nil {
		return err
	}
	return benchLaunch(rep, dev, probe, batches, launchBatch)
}

func benchCtxGetCurrent(rep *report.Report, probe driver.CallProbe, batches, batch int) error {
	var callErr error
	op := func() {
		if _, err := probe.CtxGetCurrent(); err != nil {
			callErr = err
		}
	}
	// Warm up both paths.
	report.TimeBatches(10, batch, op)
	if _, err := probe.BenchCtxGetCurrentC(batch); err != nil {
		return err
	}
	var goNs, cNs, noopNs []float64
	for range batches {
		noopNs = append(noopNs, report.TimeBatches(1, batch, probe.CgoNoop)...)
		goNs = append(goNs, report.TimeBatches(1, batch, op)...)
		ns, err := probe.BenchCtxGetCurrentC(batch)
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
		rep.Note("cuCtxGetCurrent through the binding is %.2f× the C loop (target ≤ %.2f×): the C call takes %.1f ns here, not the %.0f ns the issue assumed, and an empty cgo call alone costs %.1f ns (%.1f× the C call), so no cgo binding can meet this ratio; the binding adds %.1f ns to the call (%.2f× the issue's %.0f ns).",
			r, targetCtxGetCurrent, cP50, issueCtxGetCurrentNs, floorP50, floorP50/cP50, goP50-cP50, goP50/issueCtxGetCurrentNs, issueCtxGetCurrentNs)
	}
	return nil
}

func benchLaunch(rep *report.Report, dev *device.Device, probe driver.CallProbe, batches, batch int) error {
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
	lp, ok := s.Driver().(driver.LaunchProbe)
	if !ok {
		return fmt.Errorf("the %s backend's streams offer no launch probes", dev.Backend())
	}

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
		ns, err := lp.BenchLaunchC(fn, one, one, 0, &args, batch)
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
		if err := launchDiag(rep, s, lp, probe, fn, batches, batch, viaDriver); err != nil {
			return err
		}
	}
	cP50 := row(rep, "launch gpuarr_empty", "C loop of cuLaunchKernel in the shim", cNs, 0, 0)
	row(rep, "launch gpuarr_empty", "Go backend (driver.Stream.Launch)", drvNs, cP50, targetLaunch)
	goP50 := row(rep, "launch gpuarr_empty", "Go user API (device.Stream.Launch)", devNs, cP50, targetLaunch)
	rep.Note("A launch through the user API costs %.0f ns more than in the C loop at the median (%.0f ns more at the minimum).", goP50-cP50, report.Summarize(devNs).Min-report.Summarize(cNs).Min)
	return nil
}

// launchDiag measures what the launch cost depends on: C launches paced
// with a gap after each (cost inside cuLaunchKernel only), a Go launch with
// one more empty cgo call each, and a Go launch from a thread-locked
// goroutine.
func launchDiag(rep *report.Report, s *device.Stream, lp driver.LaunchProbe, probe driver.CallProbe, fn driver.Function, batches, batch int, viaDriver func()) error {
	// The gaps take turns batch by batch, in rotating order, so that a
	// drift of the machine over the run does not pass for an effect of
	// the gap.
	gaps := []int64{0, 50, 100, 200, 500, 1000}
	ns := make([][]float64, len(gaps))
	for b := range batches {
		for k := range gaps {
			i := (b + k) % len(gaps)
			t, err := lp.BenchLaunchSpacedC(fn, batch, gaps[i])
			if err != nil {
				return err
			}
			ns[i] = append(ns[i], float64(t)/float64(batch))
			if err := s.Synchronize(); err != nil {
				return err
			}
		}
	}
	for i, gap := range gaps {
		row(rep, "diag: launch, paced", fmt.Sprintf("C, %d ns gap after each", gap), ns[i], 0, 0)
	}
	var extra, locked []float64
	withNoop := func() { viaDriver(); probe.CgoNoop() }
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
