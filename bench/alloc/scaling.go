package main

import (
	"fmt"
	"runtime"
	"sync"
	"time"

	"github.com/gpuarr/gpuarr/bench/report"
	"github.com/gpuarr/gpuarr/device"
)

const scaleSize = 4 << 10

// benchScaling is benchmark 2: aggregate alloc+free throughput of 16
// goroutines, each with its own stream, against one goroutine.
func benchScaling(rep *report.Report, dev *device.Device, cfg config) error {
	for _, r := range resources(dev, false) {
		if r.name == "direct" {
			continue
		}
		ops := cfg.scaleOps
		if r.name != "caching" {
			ops /= 10
		}
		var base float64
		for _, g := range []int{1, 16} {
			res, err := r.make()
			if err != nil {
				return err
			}
			streams := make([]*device.Stream, g)
			for i := range streams {
				if streams[i], err = dev.NewStream(); err != nil {
					return err
				}
			}
			var ready, done sync.WaitGroup
			start := make(chan struct{})
			errs := make(chan error, g)
			for i := range g {
				ready.Add(1)
				done.Add(1)
				go func() {
					defer done.Done()
					s := streams[i]
					step := func() error {
						b, err := res.Alloc(s, scaleSize)
						if err != nil {
							return err
						}
						return res.Free(b)
					}
					for range 1000 { // warm up this stream's cache
						if err := step(); err != nil {
							errs <- err
							ready.Done()
							return
						}
					}
					ready.Done()
					<-start
					for range ops {
						if err := step(); err != nil {
							errs <- err
							return
						}
					}
				}()
			}
			ready.Wait()
			t := time.Now()
			close(start)
			done.Wait()
			elapsed := time.Since(t)
			close(errs)
			for err := range errs {
				return fmt.Errorf("%s, %d goroutines: %w", r.name, g, err)
			}
			for _, s := range streams {
				if err := s.Synchronize(); err != nil {
					return err
				}
				_ = s.Close()
			}
			if err := res.EmptyCache(); err != nil {
				return err
			}
			mops := float64(g*ops) / elapsed.Seconds() / 1e6
			m := map[string]float64{"mops_per_s": mops, "ns_per_op": 1e3 / mops}
			if g == 1 {
				base = mops
			} else {
				m["speedup"] = mops / base
			}
			row := rep.Add("scaling", map[string]string{"resource": r.name, "size": sizeLabel(scaleSize), "goroutines": fmt.Sprint(g)}, m)
			if g > 1 && r.name == "caching" {
				row.Judge("speedup", report.AtLeast, targetScaling)
				if runtime.GOMAXPROCS(0) < g {
					rep.Note("Scaling: GOMAXPROCS %d on %d CPUs, fewer than the %d goroutines, caps the speedup at the core count.",
						runtime.GOMAXPROCS(0), runtime.NumCPU(), g)
				}
			}
		}
	}
	rep.Note("Scaling: each goroutine has its own stream and does %d alloc+free pairs of %s (the driver pool a tenth of that) after a warm-up; throughput is all pairs over the wall time. Target: 16 goroutines ≥ %d× one.",
		cfg.scaleOps, sizeLabel(scaleSize), targetScaling)
	return nil
}
