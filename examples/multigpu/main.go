// Command multigpu trains a small linear-regression model data-parallel:
// each step's batch is split across the ranks, each computes the gradient
// of its share, the gradients are all-reduced (summed) with NCCL
// (goroutine ranks on the host backend), and every rank applies the same
// update. The loss is checked against the same training on one device.
//
// Under a launcher it is one rank of the job the launcher started, which
// it reads from the launcher's environment (collective.Init):
//
//	torchrun --nproc-per-node=4 --no-python ./multigpu
//	torchrun --nnodes=2 --node-rank=N --nproc-per-node=2 --master-addr=HOST --master-port=29500 --no-python ./multigpu
//	mpirun -np 4 ./multigpu                    (as root: --allow-run-as-root)
//	srun -N 2 --ntasks-per-node=4 --gpus-per-node=4 ./multigpu
//
// Otherwise:
//
//	go run ./examples/multigpu [-mode inprocess|process] [-steps N] [-devices K] [-result FILE]
//
//	inprocess  one process drives every device (collective.NewComm)
//	process    one process per device: the program starts itself once per
//	           rank with the variables torchrun would set (RANK, WORLD_SIZE,
//	           LOCAL_RANK, LOCAL_WORLD_SIZE, MASTER_ADDR, MASTER_PORT), so
//	           each child takes the launcher path. It needs CUDA: host
//	           devices of different processes share no memory, so the host
//	           backend refuses this mode with an error saying so.
//
// Rank 0 (or the single process) trains on one device afterwards for the
// reference and exits 1 when the losses differ; -result writes its final
// loss, the reference's and the verdict as JSON.
//
// The model: ŷ = X·w, loss mean((ŷ − y)²), ∇ = 2/B·Xᵀ(ŷ − y) over the
// batch of B rows, w −= η·∇. Data come from a fixed seed, so every run and
// every rank count sees the same batches.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"

	"github.com/gpuarr/gpuarr/collective"
	"github.com/gpuarr/gpuarr/device"
	"github.com/gpuarr/gpuarr/memory"
)

func main() {
	mode := flag.String("mode", "inprocess", "without a launcher: inprocess or process")
	steps := flag.Int("steps", 50, "training steps")
	ndev := flag.Int("devices", 0, "without a launcher: devices to use (0: every visible one)")
	resultFile := flag.String("result", "", "write the final losses and the verdict as JSON to this file (rank 0)")
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
	job, err := collective.ReadJob(os.LookupEnv)
	switch {
	case err != nil:
	case job.Launcher != collective.NoLauncher:
		err = launched(cfg, *resultFile)
	case *mode == "inprocess":
		err = inProcess(cfg, *ndev, *resultFile)
	case *mode == "process":
		err = launch(cfg, *ndev, *resultFile)
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

// outcome is what -result writes.
type outcome struct {
	Program   string  `json:"program"`
	Launcher  string  `json:"launcher"`
	Ranks     int     `json:"ranks"`
	Steps     int     `json:"steps"`
	Final     float64 `json:"final_loss"`
	Reference float64 `json:"reference_final_loss"`
	Match     bool    `json:"match"`
}

// check compares a run's final loss with the one-device run on dev,
// prints both, and writes file when one is named.
func check(cfg config, launcher string, ranks int, final float64, dev *device.Device, file string) error {
	ref, err := trainInProcess(cfg, []*device.Device{dev})
	if err != nil {
		return fmt.Errorf("one-device reference: %w", err)
	}
	fmt.Printf("one device: loss %.6g → %.6g\n", ref.losses[0], ref.final())
	ok := near(final, ref.final())
	if file != "" {
		b, err := json.MarshalIndent(outcome{Program: "multigpu", Launcher: launcher, Ranks: ranks, Steps: cfg.steps,
			Final: final, Reference: ref.final(), Match: ok}, "", "  ")
		if err != nil {
			return err
		}
		if err := os.WriteFile(file, append(b, '\n'), 0o644); err != nil {
			return err
		}
	}
	if !ok {
		return fmt.Errorf("the %d-rank loss %.12g differs from the one-device loss %.12g", ranks, final, ref.final())
	}
	fmt.Println("losses match")
	return nil
}

func inProcess(cfg config, n int, file string) error {
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
	fmt.Printf("%d device(s) (%s …): loss %.6g → %.6g over %d steps\n", len(devs), devs[0], res.losses[0], res.final(), cfg.steps)
	return check(cfg, "in-process", len(devs), res.final(), devs[0], file)
}

// trainInProcess runs every rank in this process; the collectives take
// all ranks at once.
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

// launched is one rank of a job a launcher started.
func launched(cfg config, file string) error {
	comm, job, err := collective.Init()
	if err != nil {
		return err
	}
	defer comm.Close()
	dev := comm.Device(0)
	rk, err := newRank(cfg, dev, job.Rank, job.Size)
	if err != nil {
		return err
	}
	defer rk.release()
	res, err := train(cfg, comm, []*rank{rk})
	if err != nil {
		return err
	}
	fmt.Printf("rank %d of %d (%s) on %s: loss %.6g → final loss %.17g\n", job.Rank, job.Size, job.Launcher, dev, res.losses[0], res.final())
	if job.Rank != 0 {
		return nil
	}
	return check(cfg, string(job.Launcher), job.Size, res.final(), dev, file)
}

// launch is process mode: a launcher of its own for one node, which
// starts one child per device with torchrun's variables. Rank 0's
// child checks the loss.
func launch(cfg config, n int, file string) error {
	devs, err := pickDevices(n)
	if err != nil {
		return err
	}
	if devs[0].Backend() != "cuda" {
		return fmt.Errorf("-mode process needs CUDA devices: the ranks would be separate processes, and host devices " +
			"of different processes share no memory (use -mode inprocess on the host backend)")
	}
	port, err := meetingPort()
	if err != nil {
		return err
	}
	self, err := os.Executable()
	if err != nil {
		return err
	}
	size := strconv.Itoa(len(devs))
	errs := make([]error, len(devs))
	var wg sync.WaitGroup
	for r := range devs {
		args := []string{"-steps", strconv.Itoa(cfg.steps)}
		if r == 0 && file != "" {
			args = append(args, "-result", file)
		}
		cmd := exec.Command(self, args...)
		cmd.Env = append(os.Environ(), "RANK="+strconv.Itoa(r), "WORLD_SIZE="+size, "LOCAL_RANK="+strconv.Itoa(r),
			"LOCAL_WORLD_SIZE="+size, "MASTER_ADDR=127.0.0.1", "MASTER_PORT="+strconv.Itoa(port-1))
		cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[r] = cmd.Run()
		}()
	}
	wg.Wait()
	var failed []string
	for r, e := range errs {
		if e != nil {
			failed = append(failed, fmt.Sprintf("rank %d: %v", r, e))
		}
	}
	if failed != nil {
		return fmt.Errorf("%s", strings.Join(failed, "; "))
	}
	return nil
}

// meetingPort is a loopback port free a moment ago, for the ranks to meet
// at (MASTER_PORT+1, as under torchrun).
func meetingPort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}
