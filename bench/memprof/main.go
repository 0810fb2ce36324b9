// Command memprof measures what seeing GPU memory costs, side by side in
// one run (issue 28):
//
//  1. the caching pool's hot path, alloc+free of a cached block on one
//     stream (bench/alloc's, 512 B … 64 MiB), with the profile off, at its
//     default rate (GPUARR_MEMPROFILE_RATE, 16 GiB; -rate) and with full tracing
//     with stacks (a Tracer around the pool, the profile off), rounds
//     interleaved; targets: the profile ≤ 3 % over off, tracing ≤ 2× off;
//
//  2. the training loop of examples/train (eager mode, a hard limit: 4 GiB
//     on a GPU, 256 MiB on the host) with the profile off and at its
//     default rate, rounds interleaved and their order alternating; the
//     median epoch of each mode (every epoch of every round pooled: the
//     loop's time, not the setup); target ≤ 2 %;
//
//  3. the timeline page of a synthetic trace of 10⁶ events (an hour of
//     500,000 allocations and their frees, from 24 stacks, with GC, eager
//     collection and ladder marks) loaded from a file in headless
//     Chromium: the time from navigation to the end of its first draw, as
//     the page measures it; target ≤ 3 s. Skipped without a browser.
//
//     go run ./bench/memprof -out bench/results
//
// On the host backend it runs with smaller counts (-quick defaults to true
// there); the hot-path and training figures then only show that the
// program works, while the page's figure is a real one (it is the
// browser's time).
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"time"

	"github.com/gpuarr/gpuarr/bench/report"
	"github.com/gpuarr/gpuarr/device"
	"github.com/gpuarr/gpuarr/examples/train/linreg"
	"github.com/gpuarr/gpuarr/gcpressure"
	"github.com/gpuarr/gpuarr/internal/headless"
	"github.com/gpuarr/gpuarr/memory"
	"github.com/gpuarr/gpuarr/memory/memviz"
)

// The targets.
const (
	targetProfilePct = 3    // hot path: profile at the default rate over off, %
	targetTraceRatio = 2    // hot path: full tracing with stacks / off
	targetTrainPct   = 2    // training loop: profile at the default rate over off, %
	targetRenderMs   = 3000 // the 10⁶-event page in headless Chromium
)

type config struct {
	quick                bool
	rounds               int
	batches, batch       int
	trainRounds, epochs  int
	features, samples    int
	limit                string
	renderEvents         int
	skipRender, skipHost bool
	rate                 int // the profile mode's sampling rate (-rate)
}

func main() {
	out := flag.String("out", "", "directory for memprof.json and memprof.md (none: print only)")
	quick := flag.String("quick", "auto", "small counts: true, false, or auto (true on the host backend)")
	events := flag.Int("events", 1_000_000, "events in the page's synthetic trace")
	only := flag.String("only", "", "run only this part: hot, train or render")
	rate := flag.Int("rate", memory.DefaultProfileRate, "sampling rate of the profile mode, bytes (default: memory.DefaultProfileRate)")
	flag.Parse()
	if *rate < 1 {
		fmt.Fprintln(os.Stderr, "memprof: -rate must be at least 1")
		os.Exit(2)
	}
	if err := run(*out, *quick, *events, *only, *rate); err != nil {
		fmt.Fprintln(os.Stderr, "memprof:", err)
		os.Exit(1)
	}
}

func run(outDir, quick string, events int, only string, rate int) error {
	dev, err := device.Default()
	if err != nil {
		return err
	}
	gpu := dev.Backend() == "cuda"
	cfg := config{
		quick:  quick == "true" || quick == "auto" && !gpu,
		rounds: 25, batches: 40, batch: 2000,
		trainRounds: 30, epochs: 20, features: 1000, samples: 300000, limit: "4GiB",
		renderEvents: events, rate: rate,
	}
	if cfg.quick {
		cfg.rounds, cfg.batches, cfg.batch = 5, 30, 1000
		cfg.trainRounds, cfg.epochs, cfg.features, cfg.samples, cfg.limit = 3, 10, 256, 40000, "256MiB"
	}
	if os.Getenv(memory.EnvHardLimit) == "" {
		os.Setenv(memory.EnvHardLimit, cfg.limit)
	}
	rep := report.New("memprof", dev.Name(), dev.Backend(), dev.DriverVersion())
	start := time.Now()
	if only == "" || only == "hot" {
		if err := benchHot(rep, dev, cfg); err != nil {
			return fmt.Errorf("hot path: %w", err)
		}
	}
	if only == "" || only == "train" {
		if err := benchTrain(rep, dev, cfg); err != nil {
			return fmt.Errorf("training loop: %w", err)
		}
	}
	if only == "" || only == "render" {
		if err := benchRender(rep, cfg); err != nil {
			return fmt.Errorf("page: %w", err)
		}
	}
	rep.Note("Device %s (%s, driver %d); %s, GOMAXPROCS %d, %d CPUs; quick=%v; the whole run took %.1f s.",
		dev, dev.Backend(), dev.DriverVersion(), runtime.Version(), runtime.GOMAXPROCS(0), runtime.NumCPU(), cfg.quick, time.Since(start).Seconds())

	var md []byte
	w := &byteWriter{&md}
	rep.Markdown(w, []string{"part", "size", "mode"}, []string{"p50_ns", "loop_ms", "epoch_p50_ms", "overhead_pct", "overhead_mean_pct", "ratio_vs_off", "render_ms", "browser_wall_ms", "page_mib"})
	fmt.Print(string(md))
	if outDir == "" {
		return nil
	}
	if err := rep.WriteJSON(outDir); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(outDir, "memprof.md"), md, 0o644)
}

type byteWriter struct{ b *[]byte }

func (w *byteWriter) Write(p []byte) (int, error) { *w.b = append(*w.b, p...); return len(p), nil }

var hotSizes = []uint64{512, 64 << 10, 1 << 20, 16 << 20, 64 << 20}

func sizeLabel(n uint64) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d B", n)
}

// benchHot is part 1: per size, rounds of (off, profile, trace), each a
// set of timed batches; p50 and p99 of the modes' samples pooled across
// rounds, and each mode's figure the median of its per-round ratios to off.
func benchHot(rep *report.Report, dev *device.Device, cfg config) error {
	s, err := dev.NewStream()
	if err != nil {
		return err
	}
	defer s.Close()
	prev := memory.SetProfileRate(0)
	defer memory.SetProfileRate(prev)
	modes := []string{"off", "profile", "trace"}
	for _, size := range hotSizes {
		pool := memory.Caching(memory.Direct(dev), memory.CachingOptions{})
		traced, tr := memory.Trace(pool, 1<<16)
		samples := map[string][]float64{}
		roundP50 := map[string][]float64{} // each round's p50, by mode
		var opErr error
		for r := range cfg.rounds {
			for k := range modes {
				// The order rotates by round, so that no mode always
				// follows the same other one.
				mode := modes[(r+k)%len(modes)]
				res := memory.Resource(pool)
				rate := 0
				switch mode {
				case "profile":
					rate = cfg.rate
				case "trace":
					res = traced
				}
				memory.SetProfileRate(rate)
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
				// Warm up: the block is cached, and the stream's countdown
				// has been redrawn at this rate (the first sample after a
				// change).
				report.TimeBatches(2, max(cfg.batch, int(32<<20/size)+1), op)
				runtime.GC()
				got := report.TimeBatches(cfg.batches, cfg.batch, op)
				samples[mode] = append(samples[mode], got...)
				roundP50[mode] = append(roundP50[mode], report.Summarize(slices.Clone(got)).P50)
			}
		}
		if opErr != nil {
			return fmt.Errorf("%s: %w", sizeLabel(size), opErr)
		}
		_ = tr
		// A mode's figure against off is the median over rounds of the
		// round's ratio of p50s: a round's level (the core it ran on, the
		// clock) is common to its modes and cancels.
		paired := func(mode string) float64 {
			ratios := make([]float64, len(roundP50[mode]))
			for i, v := range roundP50[mode] {
				ratios[i] = v / roundP50["off"][i]
			}
			return report.Summarize(ratios).P50
		}
		for _, mode := range modes {
			sum := report.Summarize(samples[mode])
			m := map[string]float64{"p50_ns": sum.P50, "p99_ns": sum.P99}
			row := rep.Add("hot", map[string]string{"part": "hot path", "size": sizeLabel(size), "mode": mode}, m)
			switch mode {
			case "profile":
				m["overhead_pct"] = 100 * (paired(mode) - 1)
				row.Judge("overhead_pct", report.AtMost, targetProfilePct)
			case "trace":
				m["ratio_vs_off"] = paired(mode)
				row.Judge("ratio_vs_off", report.AtMost, targetTraceRatio)
			}
		}
		if err := pool.EmptyCache(); err != nil {
			return err
		}
	}
	rep.Note("Hot path: alloc+free of a cached block on one stream, %d rounds × %d batches of %d pairs per mode, the modes interleaved by round, their order rotating; p50_ns pools a mode's batches, overhead_pct and ratio_vs_off are the median over rounds of the round's p50 over off's p50 in the same round. off: GPUARR_MEMPROFILE_RATE=0; profile: the default rate (%d bytes: an allocation of s bytes is sampled with probability 1 − exp(−s/rate), blocks of several times the rate nearly always; each sample a walk of the frame pointers and a lookup); trace: a Tracer around the pool, every alloc with its stack. Targets: profile ≤ %d %% over off, trace ≤ %d× off.",
		cfg.rounds, cfg.batches, cfg.batch, cfg.rate, targetProfilePct, targetTraceRatio)
	return nil
}

// benchTrain is part 2: the training loop, alternating profile off and on.
func benchTrain(rep *report.Report, dev *device.Device, cfg config) error {
	if err := gcpressure.Install(); err != nil {
		return err
	}
	gcpressure.SetEager(true)
	prev := memory.SetProfileRate(0)
	defer memory.SetProfileRate(prev)
	loops := map[string][]float64{}  // per round: the loop's milliseconds
	epochs := map[string][]float64{} // every epoch's milliseconds, pooled
	modes := []string{"off", "profile"}
	for r := range cfg.trainRounds + 1 {
		for k := range modes {
			// The order alternates by round, so that neither mode always
			// runs first (after the other's garbage).
			mode := modes[(r+k)%len(modes)]
			rate := 0
			if mode == "profile" {
				rate = cfg.rate
			}
			memory.SetProfileRate(rate)
			var loop time.Duration
			var took []float64
			tc := linreg.Config{Features: cfg.features, Samples: cfg.samples, Batch: 2048, Epochs: cfg.epochs, Mode: linreg.Eager,
				Epoch: func(_ int, d time.Duration, _ float64) {
					loop += d
					took = append(took, float64(d.Nanoseconds())/1e6)
				}}
			if err := linreg.Train(dev, tc); err != nil {
				return err
			}
			if r > 0 { // round 0 warms up (cuBLAS, kernels, the pool)
				loops[mode] = append(loops[mode], float64(loop.Nanoseconds())/1e6)
				epochs[mode] = append(epochs[mode], took...)
			}
		}
	}
	offEpoch := report.Summarize(slices.Clone(epochs["off"]))
	offMean := mean(loops["off"])
	for _, mode := range modes {
		sum := report.Summarize(slices.Clone(loops[mode]))
		ep := report.Summarize(slices.Clone(epochs[mode]))
		m := map[string]float64{"loop_ms": sum.P50, "epoch_p50_ms": ep.P50, "epoch_p99_ms": ep.P99}
		row := rep.Add("train", map[string]string{"part": "training loop", "mode": mode}, m)
		if mode == "profile" {
			m["overhead_pct"] = 100 * (ep.P50/offEpoch.P50 - 1)
			m["overhead_mean_pct"] = 100 * (mean(loops[mode])/offMean - 1)
			row.Judge("overhead_pct", report.AtMost, targetTrainPct)
		}
	}
	rep.Note("Training loop: examples/train's linreg in eager mode, %d × %d features, batches of 2048, %d epochs, under a %s hard limit; %d rounds per mode after a warm-up round, the modes alternating and their order alternating by round. overhead_pct: the median epoch with the profile on over the median epoch with it off (every epoch of every round pooled); overhead_mean_pct: the same for the mean loop time. Target: profile ≤ %d %% over off.",
		cfg.samples, cfg.features, cfg.epochs, os.Getenv(memory.EnvHardLimit), cfg.trainRounds, targetTrainPct)
	return nil
}

func mean(xs []float64) float64 {
	s := 0.0
	for _, x := range xs {
		s += x
	}
	return s / float64(max(len(xs), 1))
}

// syntheticTrace is an hour of allocations: n/2 allocations and their
// frees, sizes from 512 B to 64 MiB, 24 stacks, four streams, with a GC
// cycle every 2 s, an eager collection every 10 s and a ladder step every
// 60 s.
func syntheticTrace(n int) *memory.TraceFile {
	const hour = int64(time.Hour)
	f := &memory.TraceFile{Capacity: n, Devices: map[int]string{0: "synthetic:0"}, Stacks: map[uint32][]memory.Frame{}}
	for i := uint32(1); i <= 24; i++ {
		f.Stacks[i] = []memory.Frame{{Func: fmt.Sprintf("main.layer%02d", i), File: "/src/model.go", Line: int(10 * i)}, {Func: "main.train", File: "/src/train.go", Line: 40}, {Func: "main.main", File: "/src/main.go", Line: 12}}
	}
	pairs := n / 2
	dt := hour / int64(n)
	type live struct {
		ptr, size uint64
		end       int
	}
	var lives []live
	ptr := uint64(1 << 40)
	rng := uint64(88172645463325252)
	next := func() uint64 { rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17; return rng }
	t := int64(0)
	f.Events = append(f.Events, memory.TraceEvent{T: 0, Op: memory.OpAlloc, Level: memory.TraceSegment, Ptr: 1 << 39, Size: 24 << 30})
	for i := 0; i < pairs; i++ {
		t += dt
		size := uint64(512) << (next() % 18)
		ptr += size
		f.Events = append(f.Events, memory.TraceEvent{T: t, Op: memory.OpAlloc, Level: memory.TraceBlock, Ptr: ptr, Size: size, Stream: 1 + next()%4, Stack: uint32(1 + next()%24)})
		lives = append(lives, live{ptr, size, i + 1 + int(next()%200)})
		t += dt
		// Free the oldest block whose time has come.
		for j := 0; j < len(lives); j++ {
			if lives[j].end <= i || j == len(lives)-1 && len(lives) > 400 {
				f.Events = append(f.Events, memory.TraceEvent{T: t, Op: memory.OpFree, Level: memory.TraceBlock, Ptr: lives[j].ptr, Size: lives[j].size})
				lives = append(lives[:j], lives[j+1:]...)
				break
			}
		}
	}
	for m := int64(0); m < hour; m += int64(2 * time.Second) {
		f.Events = append(f.Events, memory.TraceEvent{T: m, Op: memory.OpGC, Device: -1, Note: "cycle"})
		if m%int64(10*time.Second) == 0 {
			f.Events = append(f.Events, memory.TraceEvent{T: m + 1, Op: memory.OpEagerGC, Device: -1, Size: 1 << 30, Dur: int64(time.Millisecond), Note: "in the background at pressure 0.91"})
		}
		if m%int64(60*time.Second) == 0 {
			f.Events = append(f.Events, memory.TraceEvent{T: m + 2, Op: memory.OpReclaim, Device: 0, Note: "level 1 (collect)"})
		}
	}
	slices.SortStableFunc(f.Events, func(a, b memory.TraceEvent) int { return int(a.T - b.T) })
	return f
}

// benchRender is part 3: the page of a synthetic trace of n events in
// headless Chromium.
func benchRender(rep *report.Report, cfg config) error {
	browser, err := headless.Find()
	if err != nil {
		rep.Note("Page: not measured: %v.", err)
		return nil
	}
	f := syntheticTrace(cfg.renderEvents)
	dir, err := os.MkdirTemp("", "memprof-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	page := filepath.Join(dir, "timeline.html")
	out, err := os.Create(page)
	if err != nil {
		return err
	}
	if err := memviz.Write(out, f, "synthetic hour"); err != nil {
		out.Close()
		return err
	}
	if err := out.Close(); err != nil {
		return err
	}
	st, err := os.Stat(page)
	if err != nil {
		return err
	}
	re := regexp.MustCompile(`data-render-ms="(\d+)"`)
	var renders, walls []float64
	for range 3 {
		t := time.Now()
		dom, err := headless.DumpDOM(browser, page, 5*time.Minute)
		if err != nil {
			return err
		}
		walls = append(walls, float64(time.Since(t).Milliseconds()))
		m := re.FindStringSubmatch(dom)
		if m == nil {
			return fmt.Errorf("the page did not finish drawing (no data-render-ms in the DOM)")
		}
		v, _ := strconv.ParseFloat(m[1], 64)
		renders = append(renders, v)
	}
	rs, ws := report.Summarize(renders), report.Summarize(walls)
	rep.Add("render", map[string]string{"part": "page", "size": fmt.Sprintf("%d events", len(f.Events))},
		map[string]float64{"render_ms": rs.P50, "browser_wall_ms": ws.P50, "page_mib": float64(st.Size()) / (1 << 20)}).
		Judge("render_ms", report.AtMost, targetRenderMs)
	rep.Note("Page: a synthetic hour of %d events loaded from a file in headless %s (--dump-dom), median of 3 loads: render_ms is the page's own performance.now() at the end of its first draw (navigation, parsing the inline data, aggregating, drawing); browser_wall_ms the whole browser process, start-up included. Target: render ≤ %d ms.",
		len(f.Events), filepath.Base(browser), targetRenderMs)
	return nil
}
