// Command ddp measures data-parallel training (examples/ddp/dp: gradients
// all-reduced in buckets on a communication stream while the backward
// pass goes on) and all-reduce bus bandwidth, beside PyTorch DDP and
// torch.distributed (bench/peer/ddp_peers.py) on the same model and sizes:
//
//   - samples/s of a training step of a float32 multilayer perceptron
//     (-layers linear layers of -width × -width, no bias, ReLU between,
//     mean squared error, plain SGD, gradient buckets of 25 MiB as DDP's),
//     -rows samples per rank, so the global batch grows with the ranks;
//     -reps repetitions of -steps steps after -warmup, the median kept.
//     On an H100 the default step is about 8 ms of GPU work per rank;
//   - with two ranks or more, in-place float32 all-reduce at 1 MiB, 64 MiB
//     and 1 GiB: back-to-back calls after a barrier, time per call =
//     total / calls, busbw = bytes / time · 2(n−1)/n (NCCL's definition).
//
// Under a launcher (torchrun, mpirun, srun) it is one rank of the job
// (collective.Init) and rank 0 writes ddp-<launcher>-<ranks>.json (or
// -name). Without one it runs in one process over 1, 2, 4, … of the
// visible devices (collective.NewComm; -ranks lists others) and writes
// ddp.json.
//
//	go run ./bench/ddp -out bench/results
//	torchrun --nproc-per-node=4 --no-python ./ddp -out DIR
//
// On the host backend the sizes shrink (-width 64, -rows 32, 1 MiB
// all-reduces).
package main

import (
	"flag"
	"fmt"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gpuarr/gpuarr/bench/report"
	"github.com/gpuarr/gpuarr/collective"
	"github.com/gpuarr/gpuarr/device"
	"github.com/gpuarr/gpuarr/examples/ddp/dp"
	"github.com/gpuarr/gpuarr/gpuarr"
)

const mib = 1 << 20

type options struct {
	out, name, ranks                         string
	width, layers, rows, steps, warmup, reps int
	maxBytes                                 int
	allreduce                                bool
}

func main() {
	var o options
	flag.StringVar(&o.out, "out", "", "directory for the JSON report (none: print only)")
	flag.StringVar(&o.name, "name", "", "report name (default ddp, or ddp-<launcher>-<ranks> under a launcher)")
	flag.StringVar(&o.ranks, "ranks", "", "without a launcher: comma-separated rank counts (default 1, 2, 4, … up to the visible devices)")
	flag.IntVar(&o.width, "width", 0, "layer width (default 4096 on CUDA, 64 on the host)")
	flag.IntVar(&o.layers, "layers", 4, "linear layers")
	flag.IntVar(&o.rows, "rows", 0, "samples per rank and step (default 1024 on CUDA, 32 on the host)")
	flag.IntVar(&o.steps, "steps", 0, "timed steps per repetition (default 50 on CUDA, 3 on the host)")
	flag.IntVar(&o.warmup, "warmup", 0, "untimed steps first (default 10 on CUDA, 1 on the host)")
	flag.IntVar(&o.reps, "reps", 3, "repetitions (the median is reported)")
	flag.IntVar(&o.maxBytes, "max-bytes", 0, "largest all-reduce in bytes (default 1 GiB on CUDA, 1 MiB on the host)")
	flag.BoolVar(&o.allreduce, "allreduce", true, "measure all-reduce bus bandwidth too (two ranks or more)")
	flag.Parse()
	if err := run(o); err != nil {
		fmt.Fprintln(os.Stderr, "ddp:", err)
		os.Exit(1)
	}
}

func run(o options) error {
	job, err := collective.ReadJob(os.LookupEnv)
	if err != nil {
		return err
	}
	def, err := device.Default()
	if err != nil {
		return err
	}
	host := def.Backend() == "host"
	setDefaults(&o, host)
	if job.Launcher != collective.NoLauncher {
		return launched(o)
	}
	devs, err := device.Devices()
	if err != nil {
		return err
	}
	counts, err := rankCounts(o.ranks, len(devs))
	if err != nil {
		return err
	}
	rep := newReport(o, "ddp", devs[0])
	for _, k := range counts {
		comm, err := collective.NewComm(devs[:k])
		if err != nil {
			return err
		}
		err = measure(rep, o, comm, "in-process")
		if cerr := comm.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return fmt.Errorf("%d ranks: %w", k, err)
		}
	}
	addScaling(rep)
	return rep.WriteJSON(o.out)
}

func setDefaults(o *options, host bool) {
	pick := func(v *int, gpu, cpu int) {
		if *v == 0 {
			*v = gpu
			if host {
				*v = cpu
			}
		}
	}
	pick(&o.width, 4096, 64)
	pick(&o.rows, 1024, 32)
	pick(&o.steps, 50, 3)
	pick(&o.warmup, 10, 1)
	pick(&o.maxBytes, 1<<30, mib)
	o.reps = max(o.reps, 1)
}

// rankCounts parses -ranks, or makes 1, 2, 4, … up to n.
func rankCounts(s string, n int) ([]int, error) {
	if s == "" {
		var out []int
		for k := 1; k <= n; k *= 2 {
			out = append(out, k)
		}
		return out, nil
	}
	var out []int
	for _, f := range strings.Split(s, ",") {
		k, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || k < 1 || k > n {
			return nil, fmt.Errorf("-ranks %q: %q is not a rank count from 1 to the %d visible devices", s, f, n)
		}
		out = append(out, k)
	}
	return out, nil
}

// launched is one rank of a launched job; rank 0 writes the report.
func launched(o options) error {
	comm, job, err := collective.Init()
	if err != nil {
		return err
	}
	defer comm.Close()
	name := o.name
	if name == "" {
		name = fmt.Sprintf("ddp-%s-%d", job.Launcher, job.Size)
	}
	rep := newReport(o, name, comm.Device(0))
	if err := measure(rep, o, comm, string(job.Launcher)); err != nil {
		return fmt.Errorf("rank %d of %d: %w", job.Rank, job.Size, err)
	}
	if job.Rank != 0 {
		return nil
	}
	return rep.WriteJSON(o.out)
}

func newReport(o options, name string, dev *device.Device) *report.Report {
	rep := report.New(name, dev.Name(), dev.Backend(), dev.DriverVersion())
	if v, err := dev.CollectiveVersion(); err == nil {
		rep.Note("NCCL version code %d", v)
	}
	rep.Note("model: %d linear layers of %d×%d float32 (no bias, ReLU between, MSE, SGD), %d samples per rank and step, gradient buckets of %d MiB; %d repetitions of %d steps after %d, median",
		o.layers, o.width, o.width, o.rows, dp.DefaultBucketBytes/mib, o.reps, o.steps, o.warmup)
	return rep
}

// measure times training steps over comm's local ranks, then all-reduce
// bandwidth; every rank of the job calls it.
func measure(rep *report.Report, o options, comm *collective.Comm, mode string) error {
	widths := make([]int, o.layers+1)
	for i := range widths {
		widths[i] = o.width
	}
	tr, err := dp.NewTrainer[float32](comm, dp.Config{Widths: widths, LR: 1e-4, Seed: 1}, o.rows)
	if err != nil {
		return err
	}
	defer tr.Release()
	x := make([]*gpuarr.Array[float32], comm.Local())
	y := make([]*gpuarr.Array[float32], comm.Local())
	for k := range x {
		g := gpuarr.NewRNG(uint64(100 + comm.Rank(k)))
		on := gpuarr.OnDevice(comm.Device(k))
		if x[k], err = gpuarr.Eval(gpuarr.NormalExpr[float32](g, gpuarr.Shape{o.rows, o.width}), on); err != nil {
			return err
		}
		defer x[k].Release()
		if y[k], err = gpuarr.Eval(gpuarr.NormalExpr[float32](g, gpuarr.Shape{o.rows, o.width}), on); err != nil {
			return err
		}
		defer y[k].Release()
	}
	for range o.warmup {
		if err := tr.Step(x, y); err != nil {
			return err
		}
	}
	var secs []float64
	for range o.reps {
		if err := barrier(comm); err != nil {
			return err
		}
		t0 := time.Now()
		for range o.steps {
			if err := tr.Step(x, y); err != nil {
				return err
			}
		}
		if err := tr.Synchronize(); err != nil {
			return err
		}
		el, err := slowest(comm, time.Since(t0).Seconds())
		if err != nil {
			return err
		}
		secs = append(secs, el)
	}
	loss, err := tr.Loss()
	if err != nil {
		return err
	}
	if math.IsNaN(loss) || math.IsInf(loss, 0) {
		return fmt.Errorf("the loss is %v after %d steps", loss, o.warmup+o.reps*o.steps)
	}
	slices.Sort(secs)
	med := secs[len(secs)/2]
	n := comm.Size()
	samples := float64(o.rows*n*o.steps) / med
	fmt.Printf("%s, %d rank(s): %.0f samples/s, %.2f ms a step (%d buckets), loss %.4g\n",
		mode, n, samples, med/float64(o.steps)*1e3, tr.Buckets(), loss)
	all := make([]float64, len(secs))
	for i, s := range secs {
		all[i] = float64(o.rows*n*o.steps) / s
	}
	rep.Add("step", map[string]string{"ranks": strconv.Itoa(n), "mode": mode, "rows_per_rank": strconv.Itoa(o.rows), "width": strconv.Itoa(o.width), "layers": strconv.Itoa(o.layers)},
		map[string]float64{"samples_per_s": samples, "step_ms": med / float64(o.steps) * 1e3,
			"samples_per_s_min": slices.Min(all), "samples_per_s_max": slices.Max(all), "buckets": float64(tr.Buckets()), "final_loss": loss})
	if o.allreduce && n >= 2 {
		return bandwidth(rep, o, comm, mode)
	}
	return nil
}

// barrier is a one-element all-reduce every rank waits for.
func barrier(comm *collective.Comm) error {
	_, err := slowest(comm, 0)
	return err
}

// slowest is the largest v over the job's ranks (every rank passes its
// own and waits).
func slowest(comm *collective.Comm, v float64) (float64, error) {
	a := make([]*gpuarr.Array[float64], comm.Local())
	for k := range a {
		var err error
		if a[k], err = gpuarr.FromSlice([]float64{v}, gpuarr.Shape{1}, gpuarr.OnDevice(comm.Device(k))); err != nil {
			return 0, err
		}
		defer a[k].Release()
	}
	if err := collective.AllReduce(comm, a, nil, collective.Max); err != nil {
		return 0, err
	}
	out := 0.0
	for k := range a {
		w, err := a[k].Item()
		if err != nil {
			return 0, err
		}
		out = max(out, w)
	}
	return out, nil
}

// bandwidth measures in-place all-reduce at 1 MiB, 64 MiB and 1 GiB.
func bandwidth(rep *report.Report, o options, comm *collective.Comm, mode string) error {
	n := comm.Size()
	for _, b := range []int{mib, 64 * mib, 1 << 30} {
		if b > o.maxBytes {
			continue
		}
		iters := map[int]int{mib: 50, 64 * mib: 20, 1 << 30: 10}[b]
		a := make([]*gpuarr.Array[float32], comm.Local())
		for k := range a {
			var err error
			if a[k], err = gpuarr.Ones[float32](gpuarr.Shape{b / 4}, gpuarr.OnDevice(comm.Device(k))); err != nil {
				return err
			}
		}
		release := func() {
			for _, x := range a {
				if x != nil {
					_ = x.Release()
				}
			}
		}
		sync := func() error {
			for k := range a {
				if err := comm.Device(k).DefaultStream().Synchronize(); err != nil {
					return err
				}
			}
			return nil
		}
		for range 3 {
			if err := collective.AllReduce(comm, a, nil, collective.Sum); err != nil {
				release()
				return err
			}
		}
		if err := sync(); err != nil {
			release()
			return err
		}
		if err := barrier(comm); err != nil {
			release()
			return err
		}
		t0 := time.Now()
		for range iters {
			if err := collective.AllReduce(comm, a, nil, collective.Sum); err != nil {
				release()
				return err
			}
		}
		if err := sync(); err != nil {
			release()
			return err
		}
		el, err := slowest(comm, time.Since(t0).Seconds())
		release()
		if err != nil {
			return err
		}
		per := el / float64(iters)
		busbw := float64(b) / per * 2 * float64(n-1) / float64(n) / 1e9
		fmt.Printf("%s, %d ranks: all-reduce %5d MiB: %.1f µs, bus bandwidth %.1f GB/s\n", mode, n, b/mib, per*1e6, busbw)
		rep.Add("allreduce", map[string]string{"ranks": strconv.Itoa(n), "mode": mode, "bytes": strconv.Itoa(b)},
			map[string]float64{"time_us": per * 1e6, "busbw_GBps": busbw})
	}
	return nil
}

// addScaling adds each step row's samples/s over the one-rank row's.
func addScaling(rep *report.Report) {
	base := 0.0
	for _, r := range rep.Rows {
		if r.Name == "step" && r.Labels["ranks"] == "1" {
			base = r.Metrics["samples_per_s"]
		}
	}
	if base == 0 {
		return
	}
	for i := range rep.Rows {
		if r := &rep.Rows[i]; r.Name == "step" {
			r.Metrics["scaling"] = r.Metrics["samples_per_s"] / base
		}
	}
}
