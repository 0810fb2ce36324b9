package main

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/gpuarr/gpuarr/bench/report"
	"github.com/gpuarr/gpuarr/device"
	"github.com/gpuarr/gpuarr/memory"
)

// randomResult is one run of RMM's random_allocations loop.
type randomResult struct {
	elapsed       time.Duration
	iterations    int // loop iterations run (2 per allocation requested)
	completed     bool
	failed        int    // allocations refused (the loop frees instead)
	peakRequested uint64 // most bytes live at once, as requested
	peakReserved  uint64 // when sampled
}

// randomRun is RMM's random_allocations benchmark: 2*allocs iterations; an
// iteration allocates (uniform 1 … maxSize bytes) with probability 73% while
// fewer than allocs allocations were made and the live total stays below
// maxUsage, else frees a random live allocation. Whatever is live at the end
// is freed too. With sample, the resource's reserved bytes are read after
// every allocation (an untimed pass); with a deadline, the loop stops there.
func randomRun(res memory.Resource, s *device.Stream, allocs int, maxSize, maxUsage uint64, seed uint64, sample bool, deadline time.Duration) (randomResult, error) {
	rng := rand.New(rand.NewPCG(seed, 73))
	var r randomResult
	var live []*memory.Block
	var liveBytes uint64
	count := 0
	t := time.Now()
	for i := range 2 * allocs {
		if deadline > 0 && i%64 == 0 && time.Since(t) > deadline {
			break
		}
		r.iterations = i + 1
		size := 1 + rng.Uint64N(maxSize)
		alloc := true
		if len(live) > 0 {
			alloc = rng.IntN(100) < 73 && count < allocs && liveBytes+size < maxUsage
		}
		if alloc {
			b, err := res.Alloc(s, size)
			switch {
			case err == nil:
				live = append(live, b)
				liveBytes += size
				count++
				r.peakRequested = max(r.peakRequested, liveBytes)
				if sample {
					r.peakReserved = max(r.peakReserved, res.Stats().ReservedBytes.Current)
				}
				continue
			case errors.Is(err, device.ErrOutOfMemory):
				r.failed++
			default:
				return r, err
			}
		}
		if len(live) > 0 {
			j := rng.IntN(len(live))
			b := live[j]
			live[j] = live[len(live)-1]
			live = live[:len(live)-1]
			liveBytes -= b.Size()
			if err := res.Free(b); err != nil {
				return r, err
			}
		}
	}
	for _, b := range live {
		if err := res.Free(b); err != nil {
			return r, err
		}
	}
	if err := s.Synchronize(); err != nil {
		return r, err
	}
	r.elapsed = time.Since(t)
	r.completed = r.iterations == 2*allocs
	return r, nil
}

// directSteps is the largest step count Direct runs (a driver allocation
// per block costs tens of µs to ms).
const directSteps = 10_000

// benchRandom is benchmark 3.
func benchRandom(rep *report.Report, dev *device.Device, cfg config) error {
	s, err := dev.NewStream()
	if err != nil {
		return err
	}
	defer s.Close()
	for _, steps := range cfg.steps {
		for _, maxMiB := range cfg.maxSizes {
			maxSize := maxMiB << 20
			seed := uint64(steps)*1000 + maxMiB
			times := map[string]float64{}
			var rows []map[string]float64
			var names []string
			for _, r := range resources(dev, false) {
				if r.name == "direct" && steps > directSteps {
					continue // about 10× its figure at directSteps; not worth the GPU time
				}
				res, err := r.make()
				if err != nil {
					return err
				}
				var deadline time.Duration
				if r.name == "direct" {
					deadline = cfg.directCap
				}
				got, err := randomRun(res, s, steps, maxSize, cfg.maxUsage, seed, false, deadline)
				if err != nil {
					return fmt.Errorf("%s, %d steps, max %d MiB: %w", r.name, steps, maxMiB, err)
				}
				st := res.Stats()
				if err := res.EmptyCache(); err != nil {
					return err
				}
				total := got.elapsed.Seconds() * 1e3
				if !got.completed {
					// Extrapolate from the share of the loop that ran.
					total *= float64(2*steps) / float64(max(got.iterations, 1))
					rep.Note("Random, %s, %d steps, max %d MiB: stopped after %d of %d iterations (%.1f s budget); total time extrapolated.",
						r.name, steps, maxMiB, got.iterations, 2*steps, cfg.directCap.Seconds())
				}
				m := map[string]float64{"total_ms": total, "ns_per_op": total * 1e6 / float64(2*steps), "failed_allocs": float64(got.failed),
					"peak_requested_mib": float64(got.peakRequested) / (1 << 20)}
				switch r.name {
				case "caching":
					m["peak_reserved_mib"] = float64(st.ReservedBytes.Peak) / (1 << 20)
					m["peak_allocated_mib"] = float64(st.AllocatedBytes.Peak) / (1 << 20)
				case "driver pool":
					// The pool's reserve is read by a second, untimed pass.
					res2, err := r.make()
					if err != nil {
						return err
					}
					again, err := randomRun(res2, s, steps, maxSize, cfg.maxUsage, seed, true, 0)
					if err != nil {
						return err
					}
					_ = res2.EmptyCache()
					m["peak_reserved_mib"] = float64(again.peakReserved) / (1 << 20)
				case "direct":
					m["peak_reserved_mib"] = m["peak_requested_mib"] // one allocation per block (driver granularity aside)
				}
				if got.peakRequested > 0 {
					m["peak_reserved_over_requested"] = m["peak_reserved_mib"] / m["peak_requested_mib"]
				}
				times[r.name] = total
				rows = append(rows, m)
				names = append(names, r.name)
			}
			for i, m := range rows {
				if names[i] == "caching" {
					if t, ok := times["driver pool"]; ok {
						m["driver_over_ours"] = t / m["total_ms"]
					}
					if t, ok := times["direct"]; ok {
						m["direct_over_ours"] = t / m["total_ms"]
					}
					m["ours_vs"] = m["driver_over_ours"]
				}
				rep.Add("random", map[string]string{"resource": names[i], "steps": fmt.Sprint(steps), "max_mib": fmt.Sprint(maxMiB)}, m)
			}
		}
	}
	rep.Note("Random: RMM's random_allocations loop (2×steps iterations; allocate uniform 1 B … max with probability 73%% while the live total stays under %d MiB, else free a random live block), one stream. total_ms includes freeing what is left. peak_reserved_over_requested: the resource's peak reserved memory over the peak of live requested bytes (caching: its statistics; driver pool: its reserve read after every allocation in a second, untimed pass; direct: 1 by construction). ours_vs: the driver pool's total time over the caching pool's. Direct runs only at %d steps, within a %.1f s budget per case (beyond it the total is extrapolated).",
		cfg.maxUsage>>20, directSteps, cfg.directCap.Seconds())
	return nil
}
