// Command kernels measures gpuarr's fused kernels on the default
// device, in one run:
//
//  1. a + b, float32, 2²⁸ elements, EvalInto a preallocated array: GB/s
//     (3 arrays × 4 B × n per op), next to a device-to-device copy and the
//     hand-written test kernel gpuarr_vadd_f32 on the same memory;
//  2. a*b + c fused: EvalInto of Add(Mul(a, b), c) (what a user writes)
//     and of FMA(a, b, c); and the 3-op chain Sin(a*b + c) in one kernel;
//     2b. every elementwise function of issue 27's list (sin … pow,
//     FloorDiv, Mod, Rem, IsNaN/IsInf/IsFinite, Minimum/Maximum,
//     Fmin/Fmax, Clamp; bitwise and shifts of int32) at n float32 (int32)
//     elements on operands in its domain: GB/s;
//     2c. float16 and bfloat16 a + b at n elements, and their Matmul at
//     the matmul size (cuBLAS GemmEx, float32 accumulation);
//  3. Sum of 2²⁸ float32: device time per Sum (+ Release of its result),
//     and host wall time with the device synchronized after each batch;
//  4. Matmul of two 8192×8192 float32 matrices (cuBLAS SGEMM, no TF32):
//     TFLOP/s; and of two stacks of 512 256×256 matrices (one
//     strided-batched SGEMM);
//     4b. Var and Std of a 4096×4096×16 float32 array, and Sum and Var over
//     its first two axes: device time, GB/s;
//  5. a + b on 1,024 elements, host time per op (EvalInto a preallocated
//     array, and Eval + Release), batches of launches not synchronized
//     inside a batch, against the raw cuLaunchKernel of gpuarr_vadd_f32 in
//     a C loop (the CUDA backend's driver.LaunchProbe, built with -tags
//     gpuarrbench) measured in the same run;
//  6. first-use JIT compile time of fresh expression shapes, and the host
//     overhead of a cached expression beyond the raw launch.
//
// Cases 1–4b (2b, 2c too) use device timing events around batches of operations; cases
// 5 and 6 host wall-clock time. The PyTorch and CuPy figures for cases 1–5
// come from bench/peer/kernels_peers.py in the same GPU run; that script
// reads this program's kernels.json from its --out folder and adds the
// ratios against the targets.
//
//	go run ./bench/kernels -out bench/results
//	go run ./bench/kernels -quick            (small sizes, a few seconds)
//	go run ./bench/kernels -only 'float16/bfloat16 matmul' -out DIR
//
// -only runs the named cases alone: kernels_peers.py runs the 16-bit
// matmul case that way, in rounds alternated with torch.matmul's.
//
// On the host backend it uses small sizes (2²⁰ elements, matmul 256²)
// automatically and says so in the JSON: those figures only show that the
// program runs.
package main

import (
	"flag"
	"fmt"
	"os"
	"runtime"
	"time"

	"github.com/gpuarr/gpuarr/bench/report"
	"github.com/gpuarr/gpuarr/device"
)

// The targets each figure is held to.
const (
	targetAddVsTorch        = 0.95 // a+b throughput / torch.add(out=)'s
	targetFusedSpeedup      = 1.3  // torch eager a*b+c time / fused EvalInto time
	targetSumVsTorch        = 0.90 // torch.sum time / gpuarr.Sum time
	targetMatmulVsTorch     = 0.95 // gpuarr TFLOP/s / torch.matmul's
	targetBmmVsTorch        = 0.95 // gpuarr batched TFLOP/s / torch.bmm's
	targetStatsVsTorch      = 0.90 // torch.var/std/sum(dim=(0,1)) time / gpuarr's
	targetMathVsTorch       = 0.95 // each elementwise function's throughput / the torch function's (out=)
	targetChainSpeedup      = 1.3  // torch eager sin(a*b+c) time / fused EvalInto time
	targetHalfAddVsTorch    = 0.95 // float16, bfloat16 a+b throughput / torch.add(out=)'s
	targetHalfMatmulVsTorch = 0.95 // float16, bfloat16 Matmul TFLOP/s / torch.matmul's
	targetSmallVsRaw        = 1.2  // EvalInto(1,024) host time / raw cuLaunchKernel
	targetLookupNs          = 1000 // cache-hit overhead (EvalInto − raw launch)
)

var (
	labelKeys  = []string{"path", "size"}
	metricKeys = []string{"p50_ns", "p99_ns", "min_ns", "gbps", "tflops", "vs_ref"}
)

type config struct {
	n           int   // elements of the bandwidth cases
	matN        int   // matmul size
	bmmBatch    int   // batched matmul: matrices per stack
	bmmN        int   // batched matmul: matrix size
	stat        []int // Var, Std, two-axis Sum: the array's shape
	smallN      int   // elements of the per-op case
	samples     int   // timed samples per bandwidth/matmul path
	mathSamples int   // timed samples per elementwise function
	opBatch     int   // operations per device-timed sample (bandwidth cases)
	batches     int   // timed batches per per-op path
	launchOps   int   // launches per batch (per-op case)
	freshExprs  int   // fresh expression shapes compiled in case 6
	seed        int64
	only        string        // comma-separated case names to run; empty: all
	matmulWarm  time.Duration // 16-bit matmul: least time of warm-up matmuls before the samples
}

func main() {
	out := flag.String("out", "", "directory for kernels.json (none: print only)")
	quick := flag.Bool("quick", false, "small sizes and few samples (a smoke test)")
	cfg := config{}
	flag.IntVar(&cfg.n, "n", 1<<28, "elements of the a+b, a*b+c and Sum cases (2²⁰ on the host backend)")
	flag.IntVar(&cfg.matN, "matmul", 8192, "matmul size (256 on the host backend)")
	flag.IntVar(&cfg.bmmBatch, "bmm-batch", 512, "batched matmul: matrices per stack (8 on the host backend)")
	flag.IntVar(&cfg.bmmN, "bmm", 256, "batched matmul: matrix size (32 on the host backend)")
	cfg.stat = []int{4096, 4096, 16}
	flag.IntVar(&cfg.smallN, "small", 1024, "elements of the per-op case")
	flag.IntVar(&cfg.samples, "samples", 30, "device-timed samples per bandwidth or matmul path")
	flag.IntVar(&cfg.mathSamples, "math-samples", 7, "device-timed samples per elementwise function")
	flag.IntVar(&cfg.opBatch, "op-batch", 10, "operations per device-timed sample")
	flag.IntVar(&cfg.batches, "batches", 200, "timed batches per per-op path")
	flag.IntVar(&cfg.launchOps, "launch-batch", 256, "launches per batch in the per-op case")
	flag.IntVar(&cfg.freshExprs, "fresh", 8, "fresh expression shapes compiled in the JIT case")
	flag.Int64Var(&cfg.seed, "seed", 0, "seed of the fresh expression shapes (0: from the clock)")
	flag.DurationVar(&cfg.matmulWarm, "matmul-warm", 0, "float16/bfloat16 matmul: run matmuls for at least this long before timing (0: two per path)")
	flag.StringVar(&cfg.only, "only", "", "comma-separated names of the cases to run (default: all; a wrong name lists them)")
	flag.Parse()
	set := map[string]bool{}
	flag.Visit(func(f *flag.Flag) { set[f.Name] = true })
	if cfg.seed == 0 {
		cfg.seed = time.Now().UnixNano()
	}
	if err := run(*out, cfg, *quick, set); err != nil {
		fmt.Fprintln(os.Stderr, "kernels:", err)
		os.Exit(1)
	}
}

func run(outDir string, cfg config, quick bool, set map[string]bool) error {
	cases, err := selectCases(cfg.only)
	if err != nil {
		return err
	}
	dev, err := device.Default()
	if err != nil {
		return err
	}
	small := quick || dev.Backend() != "cuda"
	if small {
		// Sizes the host backend (or a smoke test) gets through in seconds;
		// flags given explicitly win.
		def := func(name string, p *int, v int) {
			if !set[name] {
				*p = v
			}
		}
		def("n", &cfg.n, 1<<20)
		def("matmul", &cfg.matN, 256)
		def("samples", &cfg.samples, 10)
		def("math-samples", &cfg.mathSamples, 3)
		def("op-batch", &cfg.opBatch, 2)
		def("batches", &cfg.batches, 40)
		def("launch-batch", &cfg.launchOps, 64)
		def("fresh", &cfg.freshExprs, 4)
		def("bmm-batch", &cfg.bmmBatch, 8)
		def("bmm", &cfg.bmmN, 32)
		cfg.stat = []int{128, 64, 16}
	}
	rep := report.New("kernels", dev.Name(), dev.Backend(), dev.DriverVersion())
	for _, c := range cases {
		t := time.Now()
		if err := c.fn(rep, dev, cfg); err != nil {
			return fmt.Errorf("%s: %w", c.name, err)
		}
		fmt.Fprintf(os.Stderr, "kernels: %s done in %.1fs\n", c.name, time.Since(t).Seconds())
	}
	rep.Note("Cases a+b, a*b+c, Sum and Matmul: device time from timing events recorded on the stream around %d operations per sample, %d samples per path (after warm-up), paths interleaved; gbps and tflops are computed from the median. The per-op and JIT cases: host wall-clock, %d batches of %d launches with the stream synchronized (untimed) between batches. %s, GOMAXPROCS %d, device %s.",
		cfg.opBatch, cfg.samples, cfg.batches, cfg.launchOps, runtime.Version(), runtime.GOMAXPROCS(0), dev)
	rep.Note("PyTorch and CuPy run the same cases at the same sizes in bench/peer/kernels_peers.py (kernels_peers.json), which computes the ratios against these rows and the targets.")
	if dev.Backend() != "cuda" {
		rep.Note("Measured on the %s backend at small sizes (n = %d, matmul %d²): the figures show that the program runs, not what a GPU does.", dev.Backend(), cfg.n, cfg.matN)
	} else if quick {
		rep.Note("Run with -quick: small sizes (n = %d, matmul %d²), not the issue's.", cfg.n, cfg.matN)
	}
	rep.Markdown(os.Stdout, labelKeys, metricKeys)
	return rep.WriteJSON(outDir)
}

// add writes a row of a time distribution (ns per op) with extra metrics.
func add(rep *report.Report, name, path, size string, samples []float64, metrics map[string]float64) report.Summary {
	s := report.Summarize(samples)
	m := map[string]float64{"p50_ns": s.P50, "p99_ns": s.P99, "min_ns": s.Min, "mean_ns": s.Mean}
	for k, v := range metrics {
		m[k] = v
	}
	rep.Add(name, map[string]string{"path": path, "size": size}, m)
	return s
}

// interleave runs each path's batch in rotating order, rounds times, with
// after (untimed) between batches; it stops at the first error.
func interleave(rounds int, after func() error, paths ...func() error) error {
	for i := range rounds {
		for j := range paths {
			if err := paths[(i+j)%len(paths)](); err != nil {
				return err
			}
			if after != nil {
				if err := after(); err != nil {
					return err
				}
			}
		}
	}
	return nil
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

// sample runs op batch times between two events and returns the device
// nanoseconds per op.
func (t *timer) sample(batch int, op func() error) (float64, error) {
	if err := t.s.Record(t.start); err != nil {
		return 0, err
	}
	for range batch {
		if err := op(); err != nil {
			return 0, err
		}
	}
	if err := t.s.Record(t.end); err != nil {
		return 0, err
	}
	if err := t.end.Synchronize(); err != nil {
		return 0, err
	}
	d, err := device.Elapsed(t.start, t.end)
	if err != nil {
		return 0, err
	}
	return float64(d.Nanoseconds()) / float64(batch), nil
}

// path is one way of doing a case's operation, and its samples.
type path struct {
	op  func() error
	got []float64
}

// deviceTimes warms every path up (warm samples each) and then collects
// cfg.samples device-timed samples of cfg.opBatch operations per path,
// interleaved.
func deviceTimes(t *timer, cfg config, warm int, paths ...*path) error {
	for _, p := range paths {
		for range warm {
			if _, err := t.sample(1, p.op); err != nil {
				return err
			}
		}
	}
	fns := make([]func() error, len(paths))
	for i, p := range paths {
		fns[i] = func() error {
			ns, err := t.sample(cfg.opBatch, p.op)
			p.got = append(p.got, ns)
			return err
		}
	}
	return interleave(cfg.samples, nil, fns...)
}

// warmFor runs op in batches of 8, the stream synchronized after each
// batch, until at least d has passed: the device reaches the clocks it
// holds under a sustained load before the samples are timed.
func warmFor(s *device.Stream, d time.Duration, op func() error) error {
	for start := time.Now(); time.Since(start) < d; {
		for range 8 {
			if err := op(); err != nil {
				return err
			}
		}
		if err := s.Synchronize(); err != nil {
			return err
		}
	}
	return nil
}

// sizeLabel writes n as a power of two when it is one.
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

// gbps is bytes per op over ns per op.
func gbps(bytes float64, ns float64) float64 {
	if ns <= 0 {
		return 0
	}
	return bytes / ns
}
