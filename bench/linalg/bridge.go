package main

import (
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/blas/blas64"
	native "gonum.org/v1/gonum/blas/gonum"
	"gonum.org/v1/gonum/mat"

	"github.com/gpuarr/gpuarr/bench/report"
	"github.com/gpuarr/gpuarr/device"
	bridge "github.com/gpuarr/gpuarr/gonum"
	"github.com/gpuarr/gpuarr/gpuarr"
	"github.com/gpuarr/gpuarr/unified"
)

// benchBridge times gonum's mat.Dense.Mul of two n×n matrices twice: with
// the bridge's BLAS on unified arrays (one DGEMM on the device, and the
// wait until C is readable by the CPU), and with gonum's own BLAS on the
// CPU, over the same values; it checks that the products agree.
func benchBridge(rep *report.Report, s *device.Stream, cfg config) error {
	n := cfg.mulN
	rng := rand.New(rand.NewPCG(8, 8))
	av, bv := make([]float64, n*n), make([]float64, n*n)
	for i := range av {
		av[i], bv[i] = rng.Float64()*2-1, rng.Float64()*2-1
	}
	a, err := unified.FromSlice(av, gpuarr.Shape{n, n}, unified.On(s))
	if err != nil {
		return err
	}
	defer a.Release()
	b, err := unified.FromSlice(bv, gpuarr.Shape{n, n}, unified.On(s))
	if err != nil {
		return err
	}
	defer b.Release()
	c, err := unified.Empty[float64](gpuarr.Shape{n, n}, unified.On(s))
	if err != nil {
		return err
	}
	defer c.Release()

	blas64.Use(bridge.Implementation{})
	var gpu []float64
	var head []float64
	err = bridge.BorrowAll([]*gpuarr.Array[float64]{a, b, c}, func(m []*mat.Dense) error {
		var err error
		gpu, err = timeCalls(cfg.samples, func() error {
			before := bridge.DeviceGemms()
			m[2].Mul(m[0], m[1])
			if bridge.DeviceGemms() != before+1 {
				return fmt.Errorf("the product did not run on %s", s.Device())
			}
			return nil
		})
		head = mat.Row(nil, 0, m[2])
		return err
	})
	blas64.Use(native.Implementation{})
	if err != nil {
		return fmt.Errorf("gonum Mul on the device: %w", err)
	}

	ad, bd, cd := mat.NewDense(n, n, av), mat.NewDense(n, n, bv), mat.NewDense(n, n, nil)
	cpu, err := timeCalls(cfg.cpu, func() error { cd.Mul(ad, bd); return nil })
	if err != nil {
		return err
	}
	for j, v := range head {
		if want := cd.At(0, j); math.Abs(v-want) > 1e-9*float64(n) {
			return fmt.Errorf("gonum Mul: C[0,%d] is %v on the device, %v on the CPU", j, v, want)
		}
	}

	flops := 2 * math.Pow(float64(n), 3)
	g, cp := report.Summarize(gpu), report.Summarize(cpu)
	size := square(n)
	add(rep, "gonum Mul", "float64", size, "mat.Dense.Mul, blas64.Use(gonum.Implementation{}), unified arrays", gpu,
		map[string]float64{"gflops": flops / g.P50})
	add(rep, "gonum Mul", "float64", size, "mat.Dense.Mul, gonum's own BLAS (CPU)", cpu,
		map[string]float64{"gflops": flops / cp.P50})
	ratio := cp.P50 / g.P50
	m := map[string]float64{"ratio": ratio}
	if s.Device().Backend() == "cuda" {
		// The target is a GPU's against the host's CPU; on the host backend
		// both sides are the CPU.
		m["target"], m["met"] = targetBridgeVsCPU, 0
		if ratio >= targetBridgeVsCPU {
			m["met"] = 1
		} else {
			rep.Note("Missed: gonum Mul through the bridge is %.1f× gonum's CPU Mul (target %d×).", ratio, targetBridgeVsCPU)
		}
	}
	rep.Add("gonum Mul vs CPU", map[string]string{"dtype": "float64", "size": size, "path": "CPU p50 over device p50"}, m)
	return nil
}
