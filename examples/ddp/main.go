// Command ddp trains a multilayer perceptron data-parallel (package dp:
// gradients all-reduced in buckets on a communication stream while the
// backward pass goes on) and checks every step's loss against the same
// training on one device with the whole batch.
//
// Under a launcher, one process per GPU; the program reads its rank from
// the launcher's environment (collective.Init):
//
//	torchrun --nproc-per-node=4 --no-python ./ddp
//	mpirun -np 4 ./ddp                      (as root: --allow-run-as-root)
//	srun -N 2 --ntasks-per-node=4 --gpus-per-node=4 ./ddp
//
// Without one, one process drives every visible device (collective.NewComm;
// -devices K takes the first K):
//
//	go run ./examples/ddp [-steps N] [-devices K] [-result FILE]
//
// Rank 0 (or the single process) then trains on one device for the
// reference, prints both loss curves and whether they match, and with
// -result writes them as JSON. It exits 1 when they differ.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"os"

	"github.com/gpuarr/gpuarr/collective"
	"github.com/gpuarr/gpuarr/device"
	"github.com/gpuarr/gpuarr/examples/ddp/dp"
	"github.com/gpuarr/gpuarr/gpuarr"
)

// The problem: float64, so that the data-parallel and one-device runs
// agree to rounding (1e-9 relative).
var config = dp.Config{Widths: []int{64, 256, 256, 256, 8}, BucketBytes: 256 * 256 * 8, LR: 0.05, Seed: 1}

const (
	globalRows = 256 // rows per step, all ranks together
	batches    = 4
	dataSeed   = 2
	tolerance  = 1e-9
)

func main() {
	steps := flag.Int("steps", 30, "training steps")
	ndev := flag.Int("devices", 0, "without a launcher: devices to use (0: every visible one)")
	resultFile := flag.String("result", "", "write the losses and the verdict as JSON to this file (rank 0)")
	flag.Parse()
	if err := run(*steps, *ndev, *resultFile); err != nil {
		fmt.Fprintln(os.Stderr, "ddp:", err)
		os.Exit(1)
	}
}

// result is what -result writes.
type result struct {
	Program    string    `json:"program"`
	Launcher   string    `json:"launcher"`
	Ranks      int       `json:"ranks"`
	Device     string    `json:"device"`
	Steps      int       `json:"steps"`
	Losses     []float64 `json:"losses"`
	Reference  []float64 `json:"reference_losses"`
	MaxRelDiff float64   `json:"max_rel_diff"`
	Match      bool      `json:"match"`
}

func run(steps, ndev int, resultFile string) error {
	job, err := collective.ReadJob(os.LookupEnv)
	if err != nil {
		return err
	}
	var comm *collective.Comm
	if job.Launcher == collective.NoLauncher {
		devs, err := device.Devices()
		if err != nil {
			return err
		}
		if ndev > len(devs) {
			return fmt.Errorf("-devices %d: only %d visible", ndev, len(devs))
		}
		if ndev > 0 {
			devs = devs[:ndev]
		}
		if comm, err = collective.NewComm(devs); err != nil {
			return err
		}
	} else if comm, job, err = collective.Init(); err != nil {
		return err
	}
	defer comm.Close()
	if globalRows%comm.Size() != 0 {
		return fmt.Errorf("a batch of %d rows does not split across %d ranks", globalRows, comm.Size())
	}
	losses, err := train(comm, steps)
	if err != nil {
		return err
	}
	rank0 := comm.Rank(0) == 0
	dev := comm.Device(0)
	fmt.Printf("rank %d of %d (%s) on %s: loss %.6g → %.6g over %d steps\n",
		comm.Rank(0), comm.Size(), launcherName(job), dev, losses[0], losses[len(losses)-1], steps)
	if !rank0 {
		return nil
	}
	one, err := collective.NewComm([]*device.Device{dev})
	if err != nil {
		return err
	}
	defer one.Close()
	ref, err := train(one, steps)
	if err != nil {
		return fmt.Errorf("one-device reference: %w", err)
	}
	worst := 0.0
	for i := range ref {
		worst = max(worst, math.Abs(losses[i]-ref[i])/math.Max(1e-300, math.Abs(ref[i])))
	}
	match := worst <= tolerance
	fmt.Printf("one device: loss %.6g → %.6g\n", ref[0], ref[len(ref)-1])
	fmt.Printf("final loss %.17g, one-device %.17g, largest relative difference over %d steps %.3g\n", losses[len(losses)-1], ref[len(ref)-1], steps, worst)
	if resultFile != "" {
		b, err := json.MarshalIndent(result{Program: "ddp", Launcher: launcherName(job), Ranks: comm.Size(), Device: dev.Name(),
			Steps: steps, Losses: losses, Reference: ref, MaxRelDiff: worst, Match: match}, "", "  ")
		if err != nil {
			return err
		}
		if err := os.WriteFile(resultFile, append(b, '\n'), 0o644); err != nil {
			return err
		}
	}
	if !match {
		return fmt.Errorf("the %d-rank losses differ from one device's by up to %.3g (relative; allowed %g)", comm.Size(), worst, tolerance)
	}
	fmt.Println("losses match")
	return nil
}

func launcherName(job collective.Job) string {
	if job.Launcher == collective.NoLauncher {
		return "in-process"
	}
	return string(job.Launcher)
}

// train runs steps steps over comm's local ranks and returns the loss
// after each.
func train(comm *collective.Comm, steps int) ([]float64, error) {
	n := comm.Size()
	tr, err := dp.NewTrainer[float64](comm, config, globalRows/n)
	if err != nil {
		return nil, err
	}
	defer tr.Release()
	data := make([]*dp.Data[float64], comm.Local())
	for k := range data {
		if data[k], err = dp.NewData[float64](comm.Device(k), config.Widths[0], config.Widths[len(config.Widths)-1], globalRows, batches, dataSeed); err != nil {
			return nil, err
		}
		defer data[k].Release()
	}
	x := make([]*gpuarr.Array[float64], comm.Local())
	y := make([]*gpuarr.Array[float64], comm.Local())
	var losses []float64
	for s := range steps {
		for k := range x {
			if x[k], y[k], err = data[k].Shard(s, comm.Rank(k), n); err != nil {
				return nil, err
			}
		}
		err := tr.Step(x, y)
		for k := range x {
			_, _ = x[k].Release(), y[k].Release()
		}
		if err != nil {
			return nil, fmt.Errorf("step %d: %w", s, err)
		}
		l, err := tr.Loss()
		if err != nil {
			return nil, fmt.Errorf("step %d: %w", s, err)
		}
		losses = append(losses, l)
	}
	return losses, nil
}
