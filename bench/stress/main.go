// Command stress is the GPU correctness gate's randomized trial run: it
// provokes the three hazards that the array layer's stream tracking must
// order by itself, many thousands of times, over 8 streams from several
// goroutines, and checks every result exactly:
//
//   - producer-consumer: an array written on stream A (by a kernel, an
//     expression, a copy or a host upload, held back by a spin kernel) is
//     read on stream B from another goroutine with no synchronization of
//     the caller's;
//   - write-after-read: a read on B, held back so that it is still queued,
//     and an overwrite of the same array on A issued at once: the read sees
//     the old contents;
//   - free-then-reuse: an array released while a read on B is still queued,
//     and a new array of the same size (likely the same memory, from the
//     pool) written on a third stream: the read sees the released array's
//     contents.
//
// Contents are small integers (exact in uint32, float32 and int64, and in
// every partial sum), in two disjoint bands for the first and second
// generation, so a read of the wrong generation or of poisoned memory is
// caught. Each trial's choices come from its own generator (seed, index):
// a wrong trial is printed with everything needed to rerun it.
//
// It uses only the public API of gpuarr and device, plus the test kernels
// (internal/testkernels), on the default device (GPUARR_DEVICE=cuda on a
// GPU; the host backend otherwise, where GPUARR_HOST_CHECK=1 adds random
// delays and poisons freed memory). It prints "stress: N trials, W wrong",
// writes stress.json under -out, and exits 1 when any trial was wrong or
// failed:
//
//	go run ./bench/stress -out bench/results
//	GPUARR_HOST_CHECK=1 go run ./bench/stress -trials 1000
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
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
	if c.maxSpin < 0 || c.maxSpin > time.Second {
		errs = append(errs, fmt.Errorf("-max-spin %v: must lie in [0, 1s]", c.maxSpin))
	}
	return errors.Join(errs...)
}

// result is one run's outcome.
type result struct {
	trials, wrong, errs int
	seconds             float64
	device              string
	perKind             [numKinds][3]int // trials, wrong, errors
}

func main() {
	c := defaults()
	flag.IntVar(&c.trials, "trials", c.trials, "randomized trials in all (a third of each kind)")
	flag.IntVar(&c.streams, "streams", c.streams, "streams the trials pick from (at least 3)")
	flag.IntVar(&c.workers, "workers", c.workers, "worker goroutines (each with a partner goroutine that issues the reads)")
	flag.Uint64Var(&c.seed, "seed", c.seed, "seed of the trials' generators")
	flag.DurationVar(&c.maxSpin, "max-spin", c.maxSpin, "longest device-side delay put before a write or a read")
	flag.StringVar(&c.out, "out", "", "directory for stress.json (none: print only)")
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
	if res.wrong > 0 {
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
	e, err := setup(dev, c.streams)
	if err != nil {
		return res, err
	}
	defer func() { err = firstErr(err, e.close()) }()

	t := &tally{w: w}
	var next atomic.Int64
	start := time.Now()
	var wg sync.WaitGroup
	for range c.workers {
		wg.Go(func() {
			pt := newPartner()
			defer pt.stop()
			for {
				i := int(next.Add(1)) - 1
				if i >= c.trials {
					return
				}
				runTrial(e, t, pt, newPlan(c.seed, i, c.streams, uint64(c.maxSpin.Nanoseconds())))
			}
		})
	}
	wg.Wait()
	res.seconds = time.Since(start).Seconds()
	res.trials, res.wrong, res.errs = t.totals()
	res.device = dev.Name()
	for k := range numKinds {
		res.perKind[k] = [3]int{t.trials[k], t.wrong[k], t.errs[k]}
	}

	fmt.Fprintf(w, "stress: %d trials, %d wrong\n", res.trials, res.wrong)
	fmt.Fprintf(w, "stress: %.1f s on %s (%s); %d streams, %d worker goroutines each with a reader goroutine, seed %d, spins up to %v; %d failed with an error\n",
		res.seconds, dev, dev.Backend(), c.streams, c.workers, c.seed, c.maxSpin, res.errs)

	rep := report.New("stress", dev.Name(), dev.Backend(), dev.DriverVersion())
	rep.Add("all", map[string]string{"kind": "all"}, map[string]float64{
		"trials": float64(res.trials), "wrong": float64(res.wrong), "errors": float64(res.errs), "seconds": res.seconds,
	})
	for k := range numKinds {
		rep.Add(k.String(), map[string]string{"kind": k.String()}, map[string]float64{
			"trials": float64(res.perKind[k][0]), "wrong": float64(res.perKind[k][1]), "errors": float64(res.perKind[k][2]),
		})
	}
	rep.Note("%d randomized trials over %d streams from %d worker goroutines (each with a reader goroutine), seed %d, device-side spins up to %v; %s, GOMAXPROCS %d. Target: 0 wrong.",
		res.trials, c.streams, c.workers, c.seed, c.maxSpin, runtime.Version(), runtime.GOMAXPROCS(0))
	if res.wrong > 0 {
		rep.Note("%d of %d trials wrong (%d of them failed with an error): the gate fails.", res.wrong, res.trials, res.errs)
	}
	return res, rep.WriteJSON(c.out)
}

// setup loads the test kernels, makes the streams and the read-only
// 0, 1, 2, … arrays.
func setup(dev *device.Device, streams int) (*env, error) {
	ks, err := testkernels.Load(dev)
	if err != nil {
		return nil, err
	}
	e := &env{dev: dev, ks: ks}
	for range streams {
		s, err := dev.NewStream()
		if err != nil {
			return nil, firstErr(err, e.close())
		}
		e.streams = append(e.streams, s)
	}
	if e.iotaU32, err = newIota[uint32](); err == nil {
		if e.iotaF32, err = newIota[float32](); err == nil {
			e.iotaI64, err = newIota[int64]()
		}
	}
	if err != nil {
		return nil, firstErr(err, e.close())
	}
	return e, nil
}

// close releases the shared arrays, waits for the device and closes the
// streams and the module.
func (e *env) close() error {
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
