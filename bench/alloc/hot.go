package main

import (
	"fmt"
	"runtime"

	"github.com/gpuarr/gpuarr/bench/report"
	"github.com/gpuarr/gpuarr/device"
)

var hotSizes = []uint64{512, 64 << 10, 1 << 20, 16 << 20, 64 << 20}

// benchHot is benchmark 1: alloc+free of a block the resource has cached
// (after a warm-up) on one stream.
func benchHot(rep *report.Report, dev *device.Device, cfg config) error {
	s, err := dev.NewStream()
	if err != nil {
		return err
	}
	defer s.Close()
	type key struct {
		res  string
		size uint64
	}
	p50 := map[key]float64{}
	rows := map[key]int{} // index in rep.Rows
	for _, r := range resources(dev, true) {
		res, err := r.make()
		if err != nil {
			return err
		}
		for _, size := range hotSizes {
			batches, batch := cfg.hotBatches, cfg.hotBatch
			switch r.name {
			case "driver pool":
				batch = max(cfg.hotBatch/10, 20)
			case "direct":
				batches, batch = min(cfg.hotBatches, 20), 5
			}
			var opErr error
			op := func() {
				b, err := res.Alloc(s, size)
				if err != nil {
					opErr = err
					return
				}
				if err := res.Free(b); err != nil {
					opErr = err
				}
			}
			report.TimeBatches(3, batch, op) // warm up: the block is cached from here on
			runtime.GC()                     // not in the middle of the timing
			samples := report.TimeBatches(batches, batch, op)
			if opErr != nil {
				return fmt.Errorf("%s, %s: %w", r.name, sizeLabel(size), opErr)
			}
			if err := s.Synchronize(); err != nil {
				return err
			}
			sum := report.Summarize(samples)
			m := map[string]float64{"p50_ns": sum.P50, "p99_ns": sum.P99, "min_ns": sum.Min, "mean_ns": sum.Mean}
			rows[key{r.name, size}] = len(rep.Rows)
			rep.Add("hot", map[string]string{"resource": r.name, "size": sizeLabel(size)}, m)
			p50[key{r.name, size}] = sum.P50
		}
		if err := res.EmptyCache(); err != nil {
			return err
		}
	}
	for _, size := range hotSizes {
		row := &rep.Rows[rows[key{"caching", size}]]
		m := row.Metrics
		drv, haveDrv := p50[key{"driver pool", size}]
		if haveDrv {
			m["driver_over_ours"] = drv / m["p50_ns"]
			rep.Rows[rows[key{"caching (index only)", size}]].Metrics["driver_over_ours"] = drv / p50[key{"caching (index only)", size}]
		}
		m["direct_over_ours"] = p50[key{"direct", size}] / m["p50_ns"]
		row.Judge("p50_ns", report.AtMost, targetP50Ns).Judge("p99_ns", report.AtMost, targetP99Ns)
		if haveDrv {
			row.Judge("driver_over_ours", report.AtLeast, targetVsDriver)
		}
	}
	rep.Note("Hot path: per alloc+free pair on one stream, after a warm-up, each sample one batch's mean (caching: %d batches of %d; driver pool: batches of %d; direct: at most 20 of 5). Target: p50 ≤ %d ns, p99 ≤ %d ns, ≥ %d× faster than the driver pool. \"caching (index only)\" turns the per-stream front caches off: every call goes through the pool lock and the best-fit index.",
		cfg.hotBatches, cfg.hotBatch, max(cfg.hotBatch/10, 20), targetP50Ns, targetP99Ns, targetVsDriver)
	if !dev.Info().MemoryPools {
		rep.Note("Hot path: %s has no stream-ordered pools; the driver-pool comparison is missing.", dev)
	}
	return nil
}
