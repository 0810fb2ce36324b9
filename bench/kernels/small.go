package main

import (
	"fmt"

	"github.com/gpuarr/gpuarr/bench/report"
	"github.com/gpuarr/gpuarr/device"
	"github.com/gpuarr/gpuarr/device/driver"
	"github.com/gpuarr/gpuarr/gpuarr"
	"github.com/gpuarr/gpuarr/internal/testkernels"
)

const (
	caseSmall    = "small a + b, float32, host time per op"
	caseOverhead = "host overhead of a cached expression beyond the raw launch"
)

// benchSmall times c = a + b on cfg.smallN elements from the host's side:
// batches of launches with no synchronization inside a batch and the
// stream drained (untimed) between batches, so each figure is what the
// call costs the calling goroutine. The reference is the raw
// cuLaunchKernel of the test kernel gpuarr_vadd_f32 (same arguments: three
// pointers and a count) in a C loop, measured in the same run.
func benchSmall(rep *report.Report, dev *device.Device, cfg config) error {
	s := dev.DefaultStream()
	n := cfg.smallN
	size := fmt.Sprint(n)
	arrs, raw, done, err := operands(s, gpuarr.Shape{n}, 1, 2)
	if err != nil {
		return err
	}
	defer done()
	a, b, c := arrs[0], arrs[1], arrs[2]
	ks, err := testkernels.Load(dev)
	if err != nil {
		return err
	}
	defer ks.Module.Close()
	lc := device.Linear(uint64(n), 256)

	var opErr error
	keep := func(err error) {
		if err != nil && opErr == nil {
			opErr = err
		}
	}
	pre := gpuarr.Add(a, b)
	paths := []struct {
		name string
		op   func()
		ns   []float64
	}{
		{name: "gpuarr.EvalInto(c, Add(a, b))", op: func() { keep(gpuarr.EvalInto(c, gpuarr.Add(a, b))) }},
		{name: "gpuarr.EvalInto(c, e), e built once", op: func() { keep(gpuarr.EvalInto(c, pre)) }},
		{name: "gpuarr.Eval(Add(a, b)) + Release", op: func() {
			r, err := gpuarr.Eval(gpuarr.Add(a, b))
			keep(err)
			if err == nil {
				keep(r.Release())
			}
		}},
		{name: "device.Stream.Launch gpuarr_vadd_f32 (Go, raw pointers)", op: func() {
			keep(s.Launch(ks.VAdd, lc, raw[0], raw[1], raw[2], uint64(n)))
		}},
	}

	// The C loop needs the backend's function (see bench/binding), and a
	// backend that offers the launch probe (builds with -tags gpuarrbench).
	var cBatch func() (float64, error)
	if loop := launchLoop(s); loop != nil && dev.Backend() == "cuda" {
		rv, err := loadRawVAdd(dev)
		if err != nil {
			return err
		}
		defer rv.mod.Close()
		var args driver.Args
		for _, p := range raw {
			args.Append(driver.ArgPtr, uint64(p))
		}
		args.Append(driver.ArgU64, uint64(n))
		cBatch = func() (float64, error) {
			ns, err := loop(rv.fn, lc.Grid, lc.Block, 0, &args, cfg.launchOps)
			return float64(ns) / float64(cfg.launchOps), err
		}
	}

	for range 5 { // warm up: compile, first launches, the pool
		for _, p := range paths {
			report.TimeBatches(1, cfg.launchOps, p.op)
		}
		if cBatch != nil {
			if _, err := cBatch(); err != nil {
				return err
			}
		}
		keep(s.Synchronize())
	}
	if opErr != nil {
		return opErr
	}
	fns := make([]func() error, 0, len(paths)+1)
	for i := range paths {
		p := &paths[i]
		fns = append(fns, func() error {
			p.ns = append(p.ns, report.TimeBatches(1, cfg.launchOps, p.op)...)
			return opErr
		})
	}
	var cNs []float64
	if cBatch != nil {
		fns = append(fns, func() error {
			v, err := cBatch()
			cNs = append(cNs, v)
			return err
		})
	}
	if err := interleave(cfg.batches, s.Synchronize, fns...); err != nil {
		return err
	}
	if err := checkHead("small a + b", c, n, 3); err != nil {
		return err
	}

	var ref report.Summary
	refName := "C loop of cuLaunchKernel gpuarr_vadd_f32 (device/cuda.BenchLaunchC)"
	if cBatch != nil {
		ref = add(rep, caseSmall, refName, size, cNs, nil)
	} else {
		last := paths[len(paths)-1]
		ref = report.Summarize(append([]float64(nil), last.ns...))
		rep.Note("No C launch loop on the %s backend (or a build without -tags gpuarrbench): vs_ref in the per-op case is against device.Stream.Launch of the test kernel.", dev.Backend())
	}
	var into report.Summary
	for i, p := range paths {
		sm := add(rep, caseSmall, p.name, size, p.ns, map[string]float64{})
		rep.Last().Metrics["vs_ref"] = sm.P50 / ref.P50
		if i == 0 {
			rep.Last().Judge("vs_ref", report.AtMost, targetSmallVsRaw)
			into = sm
		}
	}
	over := into.P50 - ref.P50
	rep.Add(caseOverhead, map[string]string{"path": "EvalInto(c, Add(a, b)) − raw launch", "size": size},
		map[string]float64{"p50_ns": over, "min_ns": into.Min - ref.Min}).Judge("p50_ns", report.AtMost, targetLookupNs)
	rep.Note("Per-op host time: building the expression, lowering it, the kernel-cache lookup (hit), argument marshalling, the arrays' tracking and the launch. gpuarr exposes no way to time the lowering and lookup alone, so the overhead row (EvalInto − the raw launch of a kernel with the same arguments) is an upper bound for the cache-hit lookup. PyTorch's torch.add(a, b, out=c) per op from Python is in kernels_peers.json.")
	return nil
}
