// Command stress is the GPU correctness gate's randomized trial run: it
// provokes the hazards that the array layer's stream tracking must order
// by itself, many thousands of times, over 8 streams from several
// goroutines, and checks every result exactly. Each kind of trial
// exercises one tracking path (the report gives the trials per path):
//
//   - producer-consumer: an array written on stream A (by a kernel, an
//     expression, a copy or a host upload, held back by a spin kernel) is
//     read on stream B from another goroutine with no synchronization of
//     the caller's (the writer's event recorded and waited for in one call);
//   - write-after-read: a read on B, held back so that it is still queued,
//     and an overwrite of the same array on A issued at once: the read sees
//     the old contents;
//   - free-reuse: an array released while a read on B is still queued,
//     and a new array of the same size (likely the same memory, from the
//     pool) written on a third stream: the read sees the released array's
//     contents;
//   - fan-out: an array written on A and read on B, then on C: C waits on
//     the event B's read recorded (the stream wait in gpuarr's waitOn);
//   - multi-free: an array read on B and C (both queued) and released, and
//     a new array written at once on A, the stream its memory belongs to
//     (frees after multi-stream use: the pool must wait for B and C);
//   - graph-replay: a captured graph (with a temporary from its private
//     pool) replayed on B between a write of its input on A and a read of
//     its output on C, its input overwritten at once, the graph closed
//     while the replay is queued;
//   - unified: a unified array written on A, read through a CPU view,
//     written by the CPU, read on B, released while that read is queued;
//     on some trials a view outlives its dropped array across a collection;
//   - collective: an all-reduce over every device between each rank's
//     write and read on other streams, the arrays released while read.
//
// Contents are small integers (exact in uint32, float32 and int64, and in
// every partial sum), in two disjoint bands for the first and second
// generation, so a read of the wrong generation or of poisoned memory is
// caught. Each trial's choices come from its own generator (seed, index):
// a wrong trial is printed with everything needed to rerun it.
//
// It uses only the public API of gpuarr, unified, collective and device,
// plus the test kernels (internal/testkernels) and the cleanup wait
// (internal/cleanups), on the default device and, for the collective,
// every device of its backend (GPUARR_DEVICE=cuda on a GPU; the host
// backend otherwise, where GPUARR_HOST_CHECK=1 adds random delays and
// poisons freed memory, and GPUARR_HOST_DEVICES=2 gives the collective two
// ranks). It prints "stress: N trials, W wrong" and a line per kind,
// writes stress.json under -out, and exits 1 when any trial was wrong or
// failed, or a kind ran no trial for another reason than the machine
// lacking the feature (no NCCL, no managed memory: printed as "not run"):
//
//	go run ./bench/stress -out bench/results
//	GPUARR_HOST_CHECK=1 GPUARR_HOST_DEVICES=2 go run ./bench/stress -trials 1000
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gpuarr/gpuarr/bench/report"
	"github.com/gpuarr/gpuarr/device"
	"github.com/gpuarr/gpuarr/internal/testkernels"
)

type config struct {
	trials  int
	streams int
	workers int
	seed    uint64
	maxSpin time.Duration
	out     string
	skip    [numKinds]bool // kinds left out (-skip)
}

func defaults() config {
	return config{trials: 10_000, streams: 8, workers: 4, seed: 1, maxSpin: 100 * time.Microsecond}
}

// check says what is wrong with a configuration.
func (c config) check() error {
	var errs []error
	if c.trials < 1 {
		errs = append(errs, fmt.Errorf("-trials %d: need at least 1", c.trials))
	}
	if c.streams < 3 {
		errs = append(errs, fmt.Errorf("-streams %d: need at least 3 (free-then-reuse uses three different streams)", c.streams))
	}
	if c.workers < 1 {
		errs = append(errs, fmt.Errorf("-workers %d: need at least 1", c.workers))
	}
	if c.left() == 0 {
		errs = append(errs, errors.New("-skip leaves no kind to run"))
	}
	if c.maxSpin < 0 || c.maxSpin > time.Second {
		errs = append(errs, fmt.Errorf("-max-spin %v: must lie in [0, 1s]", c.maxSpin))
	}
	return errors.Join(errs...)
}

// left counts the kinds -skip leaves to run.
func (c config) left() int {
	n := 0
	for _, s := range c.skip {
		if !s {
			n++
		}
	}
	return n
}

// skipKinds parses -skip: a comma-separated list of kind names.
func (c *config) skipKinds(v string) error {
	for _, name := range strings.Split(v, ",") {
		if name = strings.TrimSpace(name); name == "" {
			continue
		}
		i := slices.Index(kindNames[:], name)
		if i < 0 {
			return fmt.Errorf("unknown kind %q: want one of %s", name, strings.Join(kindNames[:], ", "))
		}
		c.skip[i] = true
	}
	return nil
}

// result is one run's outcome.
type result struct {
	trials, wrong, errs int
	seconds             float64
	device              string
	ranks               int
	perKind             [numKinds][4]int // trials, wrong, errors, not run
	why                 [numKinds]string // why a kind was not run
}

// failed reports why the run fails the gate ("" when it passes): a wrong
// trial, or a kind that ran no trial although the machine could run it.
func (r result) failed() string {
	if r.wrong > 0 {
		return fmt.Sprintf("%d of %d trials wrong (%d of them failed with an error)", r.wrong, r.trials, r.errs)
	}
	for k := range numKinds {
		if r.perKind[k][0] == 0 && r.why[k] == "" {
			return fmt.Sprintf("no %s trial ran: give at least %d trials", kind(k), numKinds)
		}
	}
	return ""
}

func main() {
	c := defaults()
	flag.IntVar(&c.trials, "trials", c.trials, fmt.Sprintf("randomized trials in all (the kinds take turns: %d)", numKinds))
	flag.IntVar(&c.streams, "streams", c.streams, "streams the trials pick from (at least 3)")
	flag.IntVar(&c.workers, "workers", c.workers, "worker goroutines (each with a partner goroutine that issues the reads)")
	flag.Uint64Var(&c.seed, "seed", c.seed, "seed of the trials' generators")
	flag.DurationVar(&c.maxSpin, "max-spin", c.maxSpin, "longest device-side delay put before a write or a read")
	flag.StringVar(&c.out, "out", "", "directory for stress.json (none: print only)")
	flag.Func("skip", "comma-separated kinds to leave out (to tell which kind's work disturbs the others)", c.skipKinds)
	flag.Parse()
	if err := c.check(); err != nil {
		fmt.Fprintln(os.Stderr, "stress:", err)
		os.Exit(2)
	}
	res, err := run(c, os.Stdout)
	if err != nil {
		fmt.Fprintln(os.Stderr, "stress:", err)
		os.Exit(1)
	}
	if res.failed() != "" {
		os.Exit(1)
	}
}

// run does the trials and reports them on w (and in c.out).
func run(c config, w io.Writer) (res result, err error) {
	if err := c.check(); err != nil {
		return res, err
	}
	dev, err := device.Default()
	if err != nil {
		return res, err
	}
	e, err := setup(dev, c)
	if err != nil {
		return res, err
	}
	defer func() { err = firstErr(err, e.close()) }()

	t := &tally{w: w}
	var next atomic.Int64
	start := time.Now()
	var wg sync.WaitGroup
	for i := range c.workers {
		wg.Go(func() {
			wk := &worker{pt: newPartner(), capture: e.capture[i]}
			defer wk.pt.stop()
			for {
				i := int(next.Add(1)) - 1
				if i >= c.trials {
					return
				}
				p := newPlan(c.seed, i, c.streams, len(e.devs), uint64(c.maxSpin.Nanoseconds()))
				if c.skip[p.kind] {
					t.notRun(p)
					continue
				}
				runTrial(e, t, wk, p)
			}
		})
	}
	wg.Wait()
	res.seconds = time.Since(start).Seconds()
	res.trials, res.wrong, res.errs = t.totals()
	res.device = dev.Name()
	res.ranks = len(e.devs)
	for k := range numKinds {
		res.perKind[k] = [4]int{t.trials[k], t.wrong[k], t.errs[k], t.skip[k]}
	}
	res.why[unifiedArray], res.why[collectiveOp] = e.unified.why, e.coll.why
	for k := range numKinds {
		if c.skip[k] {
			res.why[k] = "left out by -skip"
		}
	}

	fmt.Fprintf(w, "stress: %d trials, %d wrong\n", res.trials, res.wrong)
	for k := range numKinds {
		pk := res.perKind[k]
		if pk[3] > 0 {
			fmt.Fprintf(w, "stress:   %-17s not run (%d trials): %s\n", kind(k), pk[3], res.why[k])
			continue
		}
		fmt.Fprintf(w, "stress:   %-17s %5d trials, %d wrong, %d errors: %s\n", kind(k), pk[0], pk[1], pk[2], paths[k])
	}
	fmt.Fprintf(w, "stress: %.1f s on %s (%s); %d streams, %d worker goroutines each with a reader goroutine, seed %d, spins up to %v; collectives over %d device(s); %d failed with an error\n",
		res.seconds, dev, dev.Backend(), c.streams, c.workers, c.seed, c.maxSpin, res.ranks, res.errs)
	why := res.failed()
	if why != "" {
		fmt.Fprintf(w, "stress: FAILED: %s\n", why)
	}

	rep := report.New("stress", dev.Name(), dev.Backend(), dev.DriverVersion())
	rep.Add("all", map[string]string{"kind": "all"}, map[string]float64{
		"trials": float64(res.trials), "wrong": float64(res.wrong), "errors": float64(res.errs), "seconds": res.seconds,
	}).Judge("wrong", report.AtMost, 0)
	for k := range numKinds {
		pk := res.perKind[k]
		row := rep.Add(kind(k).String(), map[string]string{"kind": kind(k).String(), "path": paths[k]}, map[string]float64{
			"trials": float64(pk[0]), "wrong": float64(pk[1]), "errors": float64(pk[2]), "not_run": float64(pk[3]),
		})
		if pk[3] > 0 {
			rep.Note("%s: not run (%d trials): %s.", kind(k), pk[3], res.why[k])
			continue
		}
		row.Judge("wrong", report.AtMost, 0)
	}
	rep.Note("%d randomized trials over %d streams from %d worker goroutines (each with a reader goroutine), seed %d, device-side spins up to %v; collectives over %d device(s); %s, GOMAXPROCS %d.",
		res.trials, c.streams, c.workers, c.seed, c.maxSpin, res.ranks, runtime.Version(), runtime.GOMAXPROCS(0))
	if why != "" {
		rep.Note("The gate fails: %s.", why)
	}
	return res, rep.WriteJSON(c.out)
}

// setup loads the test kernels, makes the streams and the read-only
// 0, 1, 2, … arrays on dev and on every other device of its backend (up
// to maxRanks, for the collective), a capture stream per worker, the
// communicator, and finds out whether unified arrays work.
func setup(dev *device.Device, c config) (*env, error) {
	e := &env{}
	devs := []*device.Device{dev}
	all, err := device.Devices()
	if err != nil {
		return nil, err
	}
	for _, d := range all {
		if d != dev && len(devs) < maxRanks && d.Backend() == dev.Backend() {
			devs = append(devs, d)
		}
	}
	for _, d := range devs {
		de, err := setupDevice(d, c.streams)
		if de != nil {
			e.devs = append(e.devs, de)
		}
		if err != nil {
			return nil, firstErr(err, e.close())
		}
	}
	for range c.workers {
		s, err := dev.NewStream()
		if err != nil {
			return nil, firstErr(err, e.close())
		}
		e.capture = append(e.capture, s)
	}
	if e.unified, err = unifiedAvailable(dev); err == nil {
		err = setupCollective(e)
	}
	if err != nil {
		return nil, firstErr(err, e.close())
	}
	return e, nil
}

// setupDevice makes dev's share of the environment (returned, for closing,
// even with an error).
func setupDevice(dev *device.Device, streams int) (*devEnv, error) {
	ks, err := testkernels.Load(dev)
	if err != nil {
		return nil, err
	}
	e := &devEnv{dev: dev, ks: ks}
	for range streams {
		s, err := dev.NewStream()
		if err != nil {
			return e, err
		}
		e.streams = append(e.streams, s)
	}
	if e.iotaU32, err = newIota[uint32](dev); err == nil {
		if e.iotaF32, err = newIota[float32](dev); err == nil {
			e.iotaI64, err = newIota[int64](dev)
		}
	}
	return e, err
}

// close closes the communicator, every device's share and the capture
// streams.
func (e *env) close() error {
	errs := []error{e.coll.close()}
	for _, d := range e.devs {
		errs = append(errs, d.close())
	}
	for _, s := range e.capture {
		errs = append(errs, s.Close())
	}
	return errors.Join(errs...)
}

// close releases the shared arrays, waits for the device and closes the
// streams and the module.
func (e *devEnv) close() error {
	var errs []error
	if e.iotaU32 != nil {
		errs = append(errs, e.iotaU32.Release())
	}
	if e.iotaF32 != nil {
		errs = append(errs, e.iotaF32.Release())
	}
	if e.iotaI64 != nil {
		errs = append(errs, e.iotaI64.Release())
	}
	errs = append(errs, e.dev.Synchronize())
	for _, s := range e.streams {
		errs = append(errs, s.Close())
	}
	errs = append(errs, e.ks.Module.Close())
	return errors.Join(errs...)
}
