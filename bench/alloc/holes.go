package main

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"

	"github.com/gpuarr/gpuarr/bench/report"
	"github.com/gpuarr/gpuarr/device"
	"github.com/gpuarr/gpuarr/memory"
)

// makeHoles leaves n free blocks (512 B … 4 KiB, some of them 1 KiB) in
// the pool's best-fit index, each between two live blocks so that they
// cannot merge, and returns the live blocks.
func makeHoles(pool *memory.CachingPool, s *device.Stream, n int) ([]*memory.Block, error) {
	rng := rand.New(rand.NewPCG(uint64(n), 11))
	var keep, holes []*memory.Block
	// Allocate every hole and its live neighbour first, then free the holes:
	// freeing each hole before the next allocation would let best fit
	// refill it, leaving almost no holes.
	for range n {
		h, err := pool.Alloc(s, 512*(1+rng.Uint64N(8)))
		if err != nil {
			return nil, err
		}
		k, err := pool.Alloc(s, 512)
		if err != nil {
			return nil, err
		}
		holes, keep = append(holes, h), append(keep, k)
	}
	for _, h := range holes {
		if err := pool.Free(h); err != nil {
			return nil, err
		}
	}
	// Moves the front caches into the index and checks stream progress;
	// with a keep this large it gives nothing back.
	return keep, pool.Trim(math.MaxUint64)
}

// benchHoles is benchmark 4.
func benchHoles(rep *report.Report, dev *device.Device, cfg config) error {
	s, err := dev.NewStream()
	if err != nil {
		return err
	}
	defer s.Close()
	for _, path := range []struct {
		name  string
		front int
	}{{"front cache", 0}, {"index only", -1}} {
		var base float64
		for _, holes := range []int{0, 4096, 65536} {
			pool := memory.Caching(memory.Direct(dev), memory.CachingOptions{FrontBlocks: path.front})
			keep, err := makeHoles(pool, s, holes)
			if err != nil {
				return err
			}
			free := pool.Stats().FreeBlocks
			// A hole at a segment's end merges with the segment's free tail.
			if free < uint64(holes)*99/100 {
				return fmt.Errorf("free holes: wanted about %d free blocks in the index, have %d", holes, free)
			}
			var opErr error
			op := func() {
				b, err := pool.Alloc(s, 1024)
				if err != nil {
					opErr = err
					return
				}
				if err := pool.Free(b); err != nil {
					opErr = err
				}
			}
			report.TimeBatches(3, cfg.hotBatch, op)
			runtime.GC() // not in the middle of the timing
			sum := report.Summarize(report.TimeBatches(cfg.hotBatches, cfg.hotBatch, op))
			if opErr != nil {
				return opErr
			}
			for _, k := range keep {
				if err := pool.Free(k); err != nil {
					return err
				}
			}
			if err := pool.EmptyCache(); err != nil {
				return err
			}
			m := map[string]float64{"p50_ns": sum.P50, "p99_ns": sum.P99, "min_ns": sum.Min, "free_blocks": float64(free)}
			if holes == 0 {
				base = sum.P50
			}
			m["over_0_holes"] = sum.P50 / base
			rep.Add("holes", map[string]string{"path": path.name, "holes": fmt.Sprint(holes)}, m).
				Judge("p50_ns", report.AtMost, targetHoleNs).Judge("over_0_holes", report.AtMost, targetHoleScaling)
		}
	}
	rep.Note("Holes: 1 KiB alloc+free on one stream with that many free blocks (512 B … 4 KiB, each between live blocks) in the best-fit index, %d batches of %d. \"front cache\" is the pool as shipped (the freed 1 KiB block is reused from the stream's front cache); \"index only\" turns front caches off, so each call is an exact-fit search, removal and reinsertion in the index. Target: p50 ≤ %d ns and ≤ %.1f× the 0-hole figure.",
		cfg.hotBatches, cfg.hotBatch, targetHoleNs, targetHoleScaling)
	return nil
}
