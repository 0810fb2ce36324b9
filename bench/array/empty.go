package main

import (
	"github.com/gpuarr/gpuarr/bench/report"
	"github.com/gpuarr/gpuarr/device"
	"github.com/gpuarr/gpuarr/gpuarr"
	"github.com/gpuarr/gpuarr/memory"
)

// benchEmpty times Empty[float32](Shape{1}) + Release against the pool's
// own alloc+free of 4 bytes on the same stream: the difference is the
// array object, its cleanup registration and the tracking state. Both
// costs move from one GC cycle to the next (where the Go heap places what
// the loop touches), so the batches span many cycles (cfg.allocBatches).
func benchEmpty(rep *report.Report, dev *device.Device, cfg config) error {
	res, err := memory.Default(dev)
	if err != nil {
		return err
	}
	s := dev.DefaultStream()
	var opErr error
	keep := func(err error) {
		if err != nil && opErr == nil {
			opErr = err
		}
	}
	viaArray := func() {
		a, err := gpuarr.Empty[float32](gpuarr.Shape{1})
		keep(err)
		if err == nil {
			keep(a.Release())
		}
	}
	viaPool := func() {
		b, err := res.Alloc(s, 4)
		keep(err)
		if err == nil {
			keep(res.Free(b))
		}
	}
	report.TimeBatches(20, cfg.allocBatch, viaArray)
	report.TimeBatches(20, cfg.allocBatch, viaPool)
	var arr, pool []float64
	err = interleave(cfg.allocBatches, nil,
		func() { arr = append(arr, report.TimeBatches(1, cfg.allocBatch, viaArray)...) },
		func() { pool = append(pool, report.TimeBatches(1, cfg.allocBatch, viaPool)...) })
	if err != nil {
		return err
	}
	if opErr != nil {
		return opErr
	}
	p := add(rep, "Empty[float32](1) + Release", "memory.Default Alloc(4) + Free (the floor)", pool, nil)
	a := add(rep, "Empty[float32](1) + Release", "gpuarr.Empty + Release", arr, nil)
	rep.Last().Metrics["vs_ref"] = a.P50 / p.P50
	rep.Last().Judge("p50_ns", report.AtMost, targetEmptyP50Ns)
	rep.Add("Empty[float32](1) + Release over the pool", map[string]string{"path": "gpuarr.Empty + Release − memory.Default Alloc(4) + Free, same run"},
		map[string]float64{"p50_ns": a.P50 - p.P50, "min_ns": a.Min - p.Min}).Judge("p50_ns", report.AtMost, targetEmptyOverNs)
	rep.Note("Empty+Release costs %.0f ns over the pool's alloc+free at the median (the handle, its one Go allocation; the buffer object, reused with its memory block; the GC gauge; the cleanup registrar's list; the reference count and the handle's state). CUDA.jl publishes 824 ns for its constructor; torch.empty(1) is in alloc_peers' table.", a.P50-p.P50)
	return nil
}
