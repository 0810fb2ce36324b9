// Command multigpu trains a small linear-regression model data-parallel on
// every visible device: each step's batch is split across the devices,
// each computes the gradient of its share, the gradients are all-reduced
// (summed) with NCCL (goroutine ranks on the host backend), and every
// device applies the same update. The loss is checked against the same
// training on one device.
//
//	go run ./examples/multigpu [-mode inprocess|process] [-steps N] [-devices K]
//
// Modes:
//
//	inprocess  one process drives every device (collective.NewComm)
//	process    one process per device: the program re-executes itself once
//	           per rank with GPUARR_RANK, GPUARR_NRANKS and GPUARR_NCCL_ID
//	           (the unique id rank 0's launcher made) in the environment;
//	           each child joins with collective.JoinComm. It needs CUDA:
//	           host devices of different processes share no memory, so the
//	           host backend refuses this mode with an error saying so.
//
// The model: ŷ = X·w, loss mean((ŷ − y)²), ∇ = 2/B·Xᵀ(ŷ − y) over the
// batch of B rows, w −= η·∇. Data come from a fixed seed, so every run and
// every device count sees the same batches.
package main

import (
	"flag"
	"fmt"
	"math"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"

	"github.com/gpuarr/gpuarr/collective"
	"github.com/gpuarr/gpuarr/device"
	"github.com/gpuarr/gpuarr/memory"
)

// Environment of a child in process mode.
const (
	EnvRank   = "GPUARR_RANK"
	EnvNRanks = "GPUARR_NRANKS"
	EnvID     = "GPUARR_NCCL_ID"
)

func main() {
	mode := flag.String("mode", "inprocess", "inprocess or process")
	steps := flag.Int("steps", 50, "training steps")
	ndev := flag.Int("devices", 0, "devices to use (0: every visible one)")
	memProfile := flag.String("gpumemprofile", "", "write a GPU memory profile (go tool pprof) to this file at exit")
	memTrace := flag.String("gpumemtrace", "", "record a GPU memory trace and write it to this file at exit (gpuarr memviz draws it)")
	flag.Parse()
	finish := memory.RecordTo(*memProfile, *memTrace)
	exit := func(code int) {
		if err := finish(); err != nil {
			fmt.Fprintln(os.Stderr, "multigpu:", err)
			code = max(code, 1)
		}
		os.Exit(code)
	}
	defer exit(0)
	cfg := defaultConfig()
	cfg.steps = *steps
	var err error
	switch {
	case os.Getenv(EnvRank) != "":
		err = child(cfg)
	case *mode == "inprocess":
		err = inProcess(cfg, *ndev)
	case *mode == "process":
		err = launch(cfg, *ndev)
	default:
		err = fmt.Errorf("unknown -mode %q: want inprocess or process", *mode)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "multigpu:", err)
		exit(1)
	}
}

// pickDevices returns the first n devices of the default backend (all
// when n is 0).
func pickDevices(n int) ([]*device.Device, error) {
	devs, err := device.Devices()
	if err != nil {
		return nil, err
	}
	if n > len(devs) {
		return nil, fmt.Errorf("-devices %d: only %d visible", n, len(devs))
	}
	if n > 0 {
		devs = devs[:n]
	}
	return devs, nil
}

// near reports whether the data-parallel loss matches the one-device
// loss: the sums run in another order, so equal up to rounding.
func near(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(1, math.Abs(b)) }

func inProcess(cfg config, n int) error {
	devs, err := pickDevices(n)
	if err != nil {
		return err
	}
	if cfg.batch%len(devs) != 0 {
		return fmt.Errorf("batch %d does not split across %d devices", cfg.batch, len(devs))
	}
	res, err := trainInProcess(cfg, devs)
	if err != nil {
		return err
	}
	ref, err := trainInProcess(cfg, devs[:1])
	if err != nil {
		return err
	}
	fmt.Printf("%d device(s) (%s …): loss %.6g → %.6g over %d steps\n", len(devs), devs[0], res.losses[0], res.final(), cfg.steps)
	fmt.Printf("one device: loss %.6g → %.6g\n", ref.losses[0], ref.final())
	if !near(res.final(), ref.final()) {
		return fmt.Errorf("data-parallel loss %.12g differs from the one-device loss %.12g", res.final(), ref.final())
	}
	fmt.Println("losses match")
	return nil
}

// trainInProcess runs every rank in this process, one goroutine per
// device for the per-rank work; the collectives take all ranks at once.
func trainInProcess(cfg config, devs []*device.Device) (*result, error) {
	comm, err := collective.NewComm(devs)
	if err != nil {
		return nil, err
	}
	defer comm.Close()
	ranks := make([]*rank, len(devs))
	for i, d := range devs {
		if ranks[i], err = newRank(cfg, d, i, len(devs)); err != nil {
			return nil, err
		}
		defer ranks[i].release()
	}
	return train(cfg, comm, ranks)
}

// launch is process mode's parent: it makes the unique id and starts one
// child per device.
func launch(cfg config, n int) error {
	devs, err := pickDevices(n)
	if err != nil {
		return err
	}
	if devs[0].Backend() != "cuda" {
		return fmt.Errorf("-mode process needs CUDA devices: the ranks would be separate processes, and host devices " +
			"of different processes share no memory (use -mode inprocess on the host backend)")
	}
	id, err := collective.NewUniqueID(devs[0])
	if err != nil {
		return err
	}
	self, err := os.Executable()
	if err != nil {
		return err
	}
	outs := make([]strings.Builder, len(devs))
	errs := make([]error, len(devs))
	var wg sync.WaitGroup
	for r := range devs {
		cmd := exec.Command(self, "-steps", strconv.Itoa(cfg.steps))
		cmd.Env = append(os.Environ(), EnvRank+"="+strconv.Itoa(r), EnvNRanks+"="+strconv.Itoa(len(devs)), EnvID+"="+id.String())
		cmd.Stdout = &outs[r]
		cmd.Stderr = os.Stderr
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[r] = cmd.Run()
		}()
	}
	wg.Wait()
	for r, e := range errs {
		if e != nil {
			return fmt.Errorf("rank %d: %w", r, e)
		}
	}
	fmt.Print(outs[0].String())
	final, err := strconv.ParseFloat(strings.TrimSpace(lastField(outs[0].String())), 64)
	if err != nil {
		return fmt.Errorf("rank 0 printed no final loss: %q", outs[0].String())
	}
	ref, err := trainInProcess(cfg, devs[:1])
	if err != nil {
		return err
	}
	fmt.Printf("one device: loss %.6g → %.6g\n", ref.losses[0], ref.final())
	if !near(final, ref.final()) {
		return fmt.Errorf("%d-process loss %.12g differs from the one-device loss %.12g", len(devs), final, ref.final())
	}
	fmt.Println("losses match")
	return nil
}

func lastField(s string) string {
	f := strings.Fields(s)
	if len(f) == 0 {
		return ""
	}
	return f[len(f)-1]
}

// child is one rank of process mode: device GPUARR_RANK of the backend.
func child(cfg config) error {
	r, err1 := strconv.Atoi(os.Getenv(EnvRank))
	n, err2 := strconv.Atoi(os.Getenv(EnvNRanks))
	if err1 != nil || err2 != nil || n < 1 || r < 0 || r >= n {
		return fmt.Errorf("bad %s=%q or %s=%q", EnvRank, os.Getenv(EnvRank), EnvNRanks, os.Getenv(EnvNRanks))
	}
	id, err := collective.ParseID(os.Getenv(EnvID))
	if err != nil {
		return fmt.Errorf("%s: %w", EnvID, err)
	}
	devs, err := device.Devices()
	if err != nil {
		return err
	}
	if r >= len(devs) {
		return fmt.Errorf("rank %d: only %d devices visible", r, len(devs))
	}
	comm, err := collective.JoinComm(id, n, r, devs[r])
	if err != nil {
		return err
	}
	defer comm.Close()
	rk, err := newRank(cfg, devs[r], r, n)
	if err != nil {
		return err
	}
	defer rk.release()
	res, err := train(cfg, comm, []*rank{rk})
	if err != nil {
		return err
	}
	fmt.Printf("rank %d of %d on %s: loss %.6g → final loss %.17g\n", r, n, devs[r], res.losses[0], res.final())
	return nil
}
