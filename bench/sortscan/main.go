// Command sortscan measures gpuarr's sorting, scanning, indexing and
// joining (issue 29) on the default device, in device time (timing events
// around batches of operations, results released as they come):
//
//  1. Sort and Argsort of 2²⁶ float32 keys;
//  2. Sort of 2¹⁶ rows × 1024 float32 along the rows (the segmented sort);
//  3. Cumsum of 2²⁸ float32;
//  4. Take of 2²⁶ random int64 indices from 2²⁸ float32;
//  5. IndexAdd of 2²⁶ float32 at random int64 indices into 2²⁸;
//  6. Concatenate of 8 arrays of 2²⁵ float32 (2²⁸ in all) along axis 0,
//     next to one device-to-device copy of 2²⁸ float32 (the target:
//     ≥ 0.9× that copy's bandwidth, judged here);
//  7. MaskedSelect of 2²⁸ uniform float32 where x > 0.5 (50% density);
//  8. TopK(100) of 2²⁴ float32.
//
// bench/peer/sortscan_peers.py times PyTorch's sort, sort(dim=1), cumsum,
// index_select, index_add_, cat, masked_select and topk at the sizes this
// program used (read from sortscan.json in the same --out folder) and
// judges the targets against these rows.
//
//	go run ./bench/sortscan -out bench/results
//	go run ./bench/sortscan -quick            (small sizes, a smoke test)
//
// On the host backend it uses small sizes automatically and says so.
//
// GPUARR_SORT_ONESWEEP in the environment picks how one long row (Sort
// and Argsort of 2²⁶) sorts, so one bundle can time the paths side by
// side: 0 takes the reduce-then-scan radix passes (an upsweep, a scan and
// a downsweep per digit) instead of the one-sweep sort; ITEMS/BLOCKS
// (e.g. 16/3) sets the one-sweep passes' elements per thread and blocks
// per multiprocessor.
package main

import (
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"runtime"
	"time"

	"github.com/gpuarr/gpuarr/bench/report"
	"github.com/gpuarr/gpuarr/device"
	"github.com/gpuarr/gpuarr/gpuarr"
	"github.com/gpuarr/gpuarr/internal/kernels"
)

// Row names sortscan_peers.py matches against.
const (
	caseSort      = "sort, float32"
	caseSegSort   = "segmented sort, float32"
	caseCumsum    = "cumsum, float32"
	caseTake      = "take, float32"
	caseIndexAdd  = "index add, float32"
	caseConcat    = "concatenate 8 arrays, float32"
	caseMasked    = "masked select 50%, float32"
	caseTopK      = "topk 100, float32"
	caseSizes     = "sizes"
	targetConcat  = 0.9 // Concatenate GB/s / device copy GB/s
	topK          = 100
	concatArrays  = 8
	segmentedCols = 1024
)

type config struct {
	sortN, segRows, scanN, takeN, takeFrom, topN int
	samples, batch                               int
}

func main() {
	out := flag.String("out", "", "directory for sortscan.json (none: print only)")
	quick := flag.Bool("quick", false, "small sizes and few samples (a smoke test)")
	cfg := config{sortN: 1 << 26, segRows: 1 << 16, scanN: 1 << 28, takeN: 1 << 26, takeFrom: 1 << 28, topN: 1 << 24, samples: 15, batch: 3}
	flag.IntVar(&cfg.samples, "samples", cfg.samples, "device-timed samples per path")
	flag.IntVar(&cfg.batch, "batch", cfg.batch, "operations per sample")
	flag.Parse()
	if err := sortPath(os.Getenv("GPUARR_SORT_ONESWEEP")); err != nil {
		fmt.Fprintln(os.Stderr, "sortscan:", err)
		os.Exit(2)
	}
	if err := run(*out, cfg, *quick); err != nil {
		fmt.Fprintln(os.Stderr, "sortscan:", err)
		os.Exit(1)
	}
}

func run(outDir string, cfg config, quick bool) error {
	dev, err := device.Default()
	if err != nil {
		return err
	}
	small := quick || dev.Backend() != "cuda"
	if small {
		cfg = config{sortN: 1 << 16, segRows: 1 << 6, scanN: 1 << 18, takeN: 1 << 16, takeFrom: 1 << 18, topN: 1 << 16,
			samples: 4, batch: 2}
	}
	rep := report.New("sortscan", dev.Name(), dev.Backend(), dev.DriverVersion())
	// The sizes, for sortscan_peers.py.
	rep.Add(caseSizes, nil, map[string]float64{"sort_n": float64(cfg.sortN), "seg_rows": float64(cfg.segRows),
		"seg_cols": segmentedCols, "scan_n": float64(cfg.scanN), "take_n": float64(cfg.takeN),
		"take_from": float64(cfg.takeFrom), "top_n": float64(cfg.topN), "top_k": topK, "concat_arrays": concatArrays})
	s := dev.DefaultStream()
	t, err := newTimer(s)
	if err != nil {
		return err
	}
	defer t.Close()
	cases := []struct {
		name string
		fn   func(*report.Report, *device.Stream, *timer, config) error
	}{
		{"sort", benchSort}, {"segmented sort", benchSegmented}, {"cumsum", benchCumsum}, {"take", benchTake},
		{"index add", benchIndexAdd}, {"concatenate", benchConcat}, {"masked select", benchMasked}, {"topk", benchTopK},
	}
	for _, c := range cases {
		start := time.Now()
		if err := c.fn(rep, s, t, cfg); err != nil {
			return fmt.Errorf("%s: %w", c.name, err)
		}
		fmt.Fprintf(os.Stderr, "sortscan: %s done in %.1fs\n", c.name, time.Since(start).Seconds())
	}
	rep.Note("Device time from timing events recorded around %d operations per sample, %d samples per path after warm-up, paths interleaved; each operation's result is released as it comes (as PyTorch frees its results). %s, GOMAXPROCS %d, device %s.",
		cfg.batch, cfg.samples, runtime.Version(), runtime.GOMAXPROCS(0), dev)
	rep.Note("PyTorch runs the same cases at the same sizes in bench/peer/sortscan_peers.py (sortscan_peers.json), which judges the issue's targets against these rows; the Concatenate target (≥ %.1f× the device copy's bandwidth) is judged here.", targetConcat)
	if small {
		rep.Note("Measured at small sizes (%s backend or -quick): the figures show that the program runs, not what a GPU does.", dev.Backend())
	}
	rep.Markdown(os.Stdout, []string{"path", "size"}, []string{"p50_ns", "p99_ns", "gbps", "ratio"})
	return rep.WriteJSON(outDir)
}

// timer measures device time on one stream with a pair of timing events.
type timer struct {
	s          *device.Stream
	start, end *device.Event
}

func newTimer(s *device.Stream) (*timer, error) {
	start, err := s.Device().NewTimingEvent()
	if err != nil {
		return nil, err
	}
	end, err := s.Device().NewTimingEvent()
	if err != nil {
		start.Close()
		return nil, err
	}
	return &timer{s: s, start: start, end: end}, nil
}

func (t *timer) Close() {
	t.start.Close()
	t.end.Close()
}

// times warms each op up and returns, per op, samples of the device
// nanoseconds per operation (batches between two events, ops interleaved).
func (t *timer) times(cfg config, ops ...func() error) ([][]float64, error) {
	for _, op := range ops {
		for range 2 {
			if err := op(); err != nil {
				return nil, err
			}
		}
	}
	if err := t.s.Synchronize(); err != nil {
		return nil, err
	}
	got := make([][]float64, len(ops))
	for i := range cfg.samples {
		for j := range ops {
			k := (i + j) % len(ops)
			if err := t.s.Record(t.start); err != nil {
				return nil, err
			}
			for range cfg.batch {
				if err := ops[k](); err != nil {
					return nil, err
				}
			}
			if err := t.s.Record(t.end); err != nil {
				return nil, err
			}
			if err := t.end.Synchronize(); err != nil {
				return nil, err
			}
			d, err := device.Elapsed(t.start, t.end)
			if err != nil {
				return nil, err
			}
			got[k] = append(got[k], float64(d.Nanoseconds())/float64(cfg.batch))
		}
	}
	return got, nil
}

// add records a row: the samples' summary, the bytes it moves (gbps) and
// other metrics.
func add(rep *report.Report, name, path, size string, samples []float64, bytes float64) *report.Row {
	sm := report.Summarize(samples)
	m := map[string]float64{"p50_ns": sm.P50, "p99_ns": sm.P99, "min_ns": sm.Min, "mean_ns": sm.Mean}
	if bytes > 0 && sm.P50 > 0 {
		m["gbps"], m["bytes_per_op"] = bytes/sm.P50, bytes
	}
	return rep.Add(name, map[string]string{"path": path, "size": size}, m)
}

func sizeLabel(n int) string {
	if n > 0 && n&(n-1) == 0 {
		k := 0
		for 1<<k < n {
			k++
		}
		return fmt.Sprintf("2^%d", k)
	}
	return fmt.Sprint(n)
}

// releasing runs f and releases its result.
func releasing[T gpuarr.Numeric](f func() (*gpuarr.Array[T], error)) func() error {
	return func() error {
		a, err := f()
		if err != nil {
			return err
		}
		return a.Release()
	}
}

// uniform is n float32 in [0, 1) on s.
func uniform(s *device.Stream, n int, seed uint64) (*gpuarr.Array[float32], error) {
	rng := gpuarr.NewRNG(seed)
	return gpuarr.Eval(gpuarr.UniformExpr[float32](rng, gpuarr.Shape{n}), gpuarr.On(s))
}

// randomIndices is n int64 in [0, max) made on the host.
func randomIndices(s *device.Stream, n, max int, seed uint64) (*gpuarr.Array[int64], error) {
	rng := rand.New(rand.NewPCG(seed, seed+1))
	idx := make([]int64, n)
	for i := range idx {
		idx[i] = rng.Int64N(int64(max))
	}
	return gpuarr.FromSlice(idx, gpuarr.Shape{n}, gpuarr.On(s))
}

func benchSort(rep *report.Report, s *device.Stream, t *timer, cfg config) error {
	x, err := uniform(s, cfg.sortN, 1)
	if err != nil {
		return err
	}
	defer x.Release()
	got, err := t.times(cfg,
		releasing(func() (*gpuarr.Array[float32], error) { return gpuarr.Sort(x, gpuarr.On(s)) }),
		releasing(func() (*gpuarr.Array[int64], error) { return gpuarr.Argsort(x, gpuarr.On(s)) }))
	if err != nil {
		return err
	}
	n := float64(cfg.sortN)
	add(rep, caseSort, "gpuarr.Sort(x)", sizeLabel(cfg.sortN), got[0], 8*n)
	add(rep, caseSort, "gpuarr.Argsort(x)", sizeLabel(cfg.sortN), got[1], 12*n)
	// The result is sorted (a check, not timed).
	y, err := gpuarr.Sort(x, gpuarr.On(s))
	if err != nil {
		return err
	}
	defer y.Release()
	v, err := y.ToSlice()
	if err != nil {
		return err
	}
	for i := 1; i < len(v); i++ {
		if v[i] < v[i-1] {
			return fmt.Errorf("Sort: element %d (%v) is below element %d (%v)", i, v[i], i-1, v[i-1])
		}
	}
	return nil
}

func benchSegmented(rep *report.Report, s *device.Stream, t *timer, cfg config) error {
	x, err := uniform(s, cfg.segRows*segmentedCols, 2)
	if err != nil {
		return err
	}
	defer x.Release()
	m, err := x.Reshape(gpuarr.Shape{cfg.segRows, segmentedCols})
	if err != nil {
		return err
	}
	defer m.Release()
	got, err := t.times(cfg,
		releasing(func() (*gpuarr.Array[float32], error) { return gpuarr.Sort(m, gpuarr.On(s)) }),
		releasing(func() (*gpuarr.Array[int64], error) { return gpuarr.Argsort(m, gpuarr.On(s)) }))
	if err != nil {
		return err
	}
	size := fmt.Sprintf("%d×%d", cfg.segRows, segmentedCols)
	n := float64(cfg.segRows * segmentedCols)
	add(rep, caseSegSort, "gpuarr.Sort(x, Axis(-1))", size, got[0], 8*n)
	add(rep, caseSegSort, "gpuarr.Argsort(x, Axis(-1))", size, got[1], 12*n)
	return nil
}

func benchCumsum(rep *report.Report, s *device.Stream, t *timer, cfg config) error {
	x, err := gpuarr.Full(gpuarr.Shape{cfg.scanN}, float32(0.5), gpuarr.On(s))
	if err != nil {
		return err
	}
	defer x.Release()
	got, err := t.times(cfg, releasing(func() (*gpuarr.Array[float32], error) { return gpuarr.Cumsum(x, gpuarr.On(s)) }))
	if err != nil {
		return err
	}
	add(rep, caseCumsum, "gpuarr.Cumsum(x)", sizeLabel(cfg.scanN), got[0], 8*float64(cfg.scanN))
	c, err := gpuarr.Cumsum(x, gpuarr.On(s))
	if err != nil {
		return err
	}
	defer c.Release()
	last, err := c.Slice(cfg.scanN-1, cfg.scanN)
	if err != nil {
		return err
	}
	defer last.Release()
	v, err := last.ToSlice()
	if err != nil {
		return err
	}
	if want := float32(0.5 * float64(cfg.scanN)); v[0] != want {
		return fmt.Errorf("Cumsum: the last element is %v, want %v", v[0], want)
	}
	return nil
}

func benchTake(rep *report.Report, s *device.Stream, t *timer, cfg config) error {
	x, err := uniform(s, cfg.takeFrom, 3)
	if err != nil {
		return err
	}
	defer x.Release()
	idx, err := randomIndices(s, cfg.takeN, cfg.takeFrom, 4)
	if err != nil {
		return err
	}
	defer idx.Release()
	got, err := t.times(cfg, releasing(func() (*gpuarr.Array[float32], error) { return gpuarr.Take(x, idx, gpuarr.On(s)) }))
	if err != nil {
		return err
	}
	add(rep, caseTake, "gpuarr.Take(x, idx)", sizeLabel(cfg.takeN)+" of "+sizeLabel(cfg.takeFrom), got[0], 16*float64(cfg.takeN))
	return gpuarr.Synchronize(gpuarr.On(s)) // no index error
}

func benchIndexAdd(rep *report.Report, s *device.Stream, t *timer, cfg config) error {
	x, err := gpuarr.Zeros[float32](gpuarr.Shape{cfg.takeFrom}, gpuarr.On(s))
	if err != nil {
		return err
	}
	defer x.Release()
	src, err := uniform(s, cfg.takeN, 5)
	if err != nil {
		return err
	}
	defer src.Release()
	idx, err := randomIndices(s, cfg.takeN, cfg.takeFrom, 6)
	if err != nil {
		return err
	}
	defer idx.Release()
	got, err := t.times(cfg, func() error { return gpuarr.IndexAdd(x, idx, src, gpuarr.On(s)) })
	if err != nil {
		return err
	}
	add(rep, caseIndexAdd, "gpuarr.IndexAdd(x, idx, src)", sizeLabel(cfg.takeN)+" into "+sizeLabel(cfg.takeFrom), got[0], 16*float64(cfg.takeN))
	return gpuarr.Synchronize(gpuarr.On(s))
}

func benchConcat(rep *report.Report, s *device.Stream, t *timer, cfg config) error {
	part := cfg.scanN / concatArrays
	xs := make([]*gpuarr.Array[float32], concatArrays)
	for i := range xs {
		var err error
		if xs[i], err = gpuarr.Full(gpuarr.Shape{part}, float32(i), gpuarr.On(s)); err != nil {
			return err
		}
		defer xs[i].Release()
	}
	whole, err := gpuarr.Zeros[float32](gpuarr.Shape{cfg.scanN}, gpuarr.On(s))
	if err != nil {
		return err
	}
	defer whole.Release()
	dst, err := gpuarr.Zeros[float32](gpuarr.Shape{cfg.scanN}, gpuarr.On(s))
	if err != nil {
		return err
	}
	defer dst.Release()
	got, err := t.times(cfg,
		releasing(func() (*gpuarr.Array[float32], error) { return gpuarr.Concatenate(xs, gpuarr.On(s)) }),
		func() error { return gpuarr.Copy(dst, whole, gpuarr.On(s)) })
	if err != nil {
		return err
	}
	size := fmt.Sprintf("%d × %s", concatArrays, sizeLabel(part))
	bytes := 8 * float64(cfg.scanN)
	add(rep, caseConcat, "device copy of the same n float32 (gpuarr.Copy: the memory system)", sizeLabel(cfg.scanN), got[1], bytes)
	row := add(rep, caseConcat, "gpuarr.Concatenate(xs)", size, got[0], bytes)
	cp := report.Summarize(got[1]).P50
	row.Metrics["ratio"] = cp / report.Summarize(got[0]).P50
	row.Judge("ratio", report.AtLeast, targetConcat)
	return nil
}

func benchMasked(rep *report.Report, s *device.Stream, t *timer, cfg config) error {
	x, err := uniform(s, cfg.scanN, 7)
	if err != nil {
		return err
	}
	defer x.Release()
	half := gpuarr.Scalar[float32](0.5)
	got, err := t.times(cfg, releasing(func() (*gpuarr.Array[float32], error) {
		return gpuarr.MaskedSelect(x, gpuarr.Greater(x, half), gpuarr.On(s))
	}))
	if err != nil {
		return err
	}
	add(rep, caseMasked, "gpuarr.MaskedSelect(x, Greater(x, 0.5))", sizeLabel(cfg.scanN), got[0], 6*float64(cfg.scanN))
	return nil
}

func benchTopK(rep *report.Report, s *device.Stream, t *timer, cfg config) error {
	x, err := uniform(s, cfg.topN, 8)
	if err != nil {
		return err
	}
	defer x.Release()
	got, err := t.times(cfg, func() error {
		v, i, err := gpuarr.TopK(x, topK, gpuarr.On(s))
		if err != nil {
			return err
		}
		_, _ = v.Release(), i.Release()
		return nil
	})
	if err != nil {
		return err
	}
	add(rep, caseTopK, "gpuarr.TopK(x, 100)", sizeLabel(cfg.topN), got[0], 4*float64(cfg.topN))
	return nil
}

// sortPath applies GPUARR_SORT_ONESWEEP's value v (see the command's doc).
func sortPath(v string) error {
	switch {
	case v == "":
		return nil
	case v == "0":
		kernels.SortOnesweep = false
		fmt.Println("sortscan: GPUARR_SORT_ONESWEEP=0: long rows sort with the reduce-then-scan radix passes")
		return nil
	}
	var items, perSM int
	if _, err := fmt.Sscanf(v, "%d/%d", &items, &perSM); err != nil || items <= 0 || items > 16 || items&(items-1) != 0 || perSM <= 0 {
		return fmt.Errorf("GPUARR_SORT_ONESWEEP=%q: want 0, or ITEMS/BLOCKS with ITEMS 1, 2, 4, 8 or 16 and BLOCKS > 0", v)
	}
	kernels.SortOnesweepItems, kernels.SortOnesweepBlocksPerSM = items, perSM
	fmt.Printf("sortscan: GPUARR_SORT_ONESWEEP=%s: one-sweep passes of %d elements per thread, %d blocks per multiprocessor\n", v, items, perSM)
	return nil
}
