// Command alloc measures the allocators of package memory on the
// default device, in one run:
//
//  1. hot path: alloc+free of a cached block on one stream, 512 B … 64 MiB,
//     caching pool vs the driver's pool (DriverPool) vs cuMemAlloc (Direct);
//  2. scaling: 16 goroutines, each with its own stream, against one;
//  3. RMM-style random allocations: total time, and peak reserved over
//     peak requested;
//  4. free holes: 1 KiB alloc+free with 0, 4,096 and 65,536 free blocks in
//     the pool.
//
// Every resource is reached through the same binding (package device), so
// the ratios compare allocators, not bindings. Benchmark 5 (PyTorch, CuPy)
// is bench/peer/alloc_peers.py.
//
//	go run ./bench/alloc -out bench/results
//
// On the host backend it runs with smaller counts (-quick defaults to true
// there); those figures only show that the program works.
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"time"

	"github.com/gpuarr/gpuarr/bench/report"
	"github.com/gpuarr/gpuarr/device"
	"github.com/gpuarr/gpuarr/memory"
)

// The targets each figure is held to.
const (
	targetP50Ns       = 100  // hot path p50
	targetP99Ns       = 1000 // hot path p99
	targetVsDriver    = 10   // hot path: DriverPool p50 / ours
	targetScaling     = 8    // 16 goroutines' throughput / one's
	targetHoleNs      = 200  // 1 KiB alloc+free p50 with holes
	targetHoleScaling = 1.5  // ... over the 0-hole figure
)

type config struct {
	quick      bool
	hotBatches int // batches per hot-path case
	hotBatch   int // alloc+free pairs per batch (caching pool)
	steps      []int
	maxSizes   []uint64 // MiB
	maxUsage   uint64
	directCap  time.Duration // Direct's time budget per random case
	scaleOps   int
}

func main() {
	out := flag.String("out", "", "directory for alloc.json and alloc.md (none: print only)")
	quick := flag.String("quick", "auto", "small counts: true, false, or auto (true on the host backend)")
	flag.Parse()
	if err := run(*out, *quick); err != nil {
		fmt.Fprintln(os.Stderr, "alloc:", err)
		os.Exit(1)
	}
}

func run(outDir, quick string) error {
	dev, err := device.Default()
	if err != nil {
		return err
	}
	cfg := config{
		quick:      quick == "true" || quick == "auto" && dev.Backend() != "cuda",
		hotBatches: 200, hotBatch: 1000,
		steps:     []int{10_000, 100_000},
		maxSizes:  []uint64{1, 64, 256},
		directCap: 2500 * time.Millisecond,
		scaleOps:  200_000,
	}
	free, _, err := dev.MemInfo()
	if err != nil {
		return err
	}
	// RMM's benchmark caps live bytes at 16,000 MiB; keep well inside the
	// device, since the caching pool may also cache.
	cfg.maxUsage = min(16000<<20, free/3)
	if cfg.quick {
		cfg.hotBatches, cfg.hotBatch = 50, 500
		cfg.steps = []int{10_000}
		cfg.directCap = time.Second
		cfg.scaleOps = 50_000
	}

	rep := report.New("alloc", dev.Name(), dev.Backend(), dev.DriverVersion())
	start := time.Now()
	if err := benchHot(rep, dev, cfg); err != nil {
		return fmt.Errorf("hot path: %w", err)
	}
	if err := benchScaling(rep, dev, cfg); err != nil {
		return fmt.Errorf("scaling: %w", err)
	}
	if err := benchRandom(rep, dev, cfg); err != nil {
		return fmt.Errorf("random allocations: %w", err)
	}
	if err := benchHoles(rep, dev, cfg); err != nil {
		return fmt.Errorf("free holes: %w", err)
	}
	rep.Note("Device %s (%s, driver %d); %s, GOMAXPROCS %d, %d CPUs; quick=%v; the whole run took %.1f s.",
		dev, dev.Backend(), dev.DriverVersion(), runtime.Version(), runtime.GOMAXPROCS(0), runtime.NumCPU(), cfg.quick, time.Since(start).Seconds())

	md := markdown(rep)
	fmt.Print(md)
	if outDir == "" {
		return nil
	}
	if err := rep.WriteJSON(outDir); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(outDir, "alloc.md"), []byte(md), 0o644)
}

// tables says which rows and columns make each of the four tables.
var tables = []struct {
	bench          string
	labels, metric []string
}{
	{"hot", []string{"resource", "size"}, []string{"p50_ns", "p99_ns", "driver_over_ours"}},
	{"scaling", []string{"resource", "size", "goroutines"}, []string{"mops_per_s", "speedup"}},
	{"random", []string{"resource", "steps", "max_mib"}, []string{"total_ms", "ns_per_op", "peak_reserved_over_requested", "failed_allocs", "ours_vs"}},
	{"holes", []string{"path", "holes"}, []string{"p50_ns", "p99_ns", "over_0_holes"}},
}

// markdown renders the report as four tables (the JSON keeps one list of
// rows; each row's name is its benchmark).
func markdown(rep *report.Report) string {
	var b []byte
	w := &byteWriter{&b}
	for i, t := range tables {
		sub := *rep
		sub.Benchmark = "alloc: " + t.bench
		sub.Rows = slices.DeleteFunc(slices.Clone(rep.Rows), func(r report.Row) bool { return r.Name != t.bench })
		sub.Notes = nil
		if i == len(tables)-1 {
			sub.Notes = rep.Notes
		}
		sub.Markdown(w, t.labels, t.metric)
	}
	return string(b)
}

type byteWriter struct{ b *[]byte }

func (w *byteWriter) Write(p []byte) (int, error) { *w.b = append(*w.b, p...); return len(p), nil }

// resources are the allocators compared, made fresh for each case.
type resource struct {
	name string
	make func() (memory.Resource, error)
}

func resources(dev *device.Device, withIndex bool) []resource {
	rs := []resource{{"caching", func() (memory.Resource, error) {
		return memory.Caching(memory.Direct(dev), memory.CachingOptions{}), nil
	}}}
	if withIndex {
		rs = append(rs, resource{"caching (index only)", func() (memory.Resource, error) {
			return memory.Caching(memory.Direct(dev), memory.CachingOptions{FrontBlocks: -1}), nil
		}})
	}
	if dev.Info().MemoryPools {
		rs = append(rs, resource{"driver pool", func() (memory.Resource, error) {
			return memory.DriverPool(dev, memory.DriverPoolOptions{})
		}})
	}
	rs = append(rs, resource{"direct", func() (memory.Resource, error) { return memory.Direct(dev), nil }})
	return rs
}

func sizeLabel(n uint64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d B", n)
}
