package main

import (
	"errors"
	"fmt"
	"math"

	"github.com/gpuarr/gpuarr/bench/report"
	"github.com/gpuarr/gpuarr/device"
	"github.com/gpuarr/gpuarr/gpuarr"
)

const (
	caseBatched = "batched matmul, float32, no TF32"
	caseVar     = "Var, float32"
	caseStd     = "Std, float32"
	caseSum2    = "Sum over two axes, float32"
)

// benchBatched times a stack of cfg.bmmBatch products of cfg.bmmN² float32
// matrices (no TF32): Matmul (allocating, released at once, as torch.bmm
// allocates), MatmulInto, and device.Stream.Gemm's strided batch on the
// same memory (cuBLAS's gemmStridedBatched without gpuarr).
func benchBatched(rep *report.Report, dev *device.Device, cfg config) error {
	s := dev.DefaultStream()
	b, n := cfg.bmmBatch, cfg.bmmN
	size := fmt.Sprintf("%d×%d×%d", b, n, n)
	arrs, raw, done, err := operands(s, gpuarr.Shape{b, n, n}, 1, 0.5)
	if err != nil {
		return err
	}
	defer done()
	x, y, c := arrs[0], arrs[1], arrs[2]
	t, err := newTimer(s)
	if err != nil {
		return err
	}
	defer t.Close()
	alloc := &path{op: func() error {
		r, err := gpuarr.Matmul(x, y, gpuarr.On(s))
		if err != nil {
			return err
		}
		return r.Release()
	}}
	into := &path{op: func() error { return gpuarr.MatmulInto(c, x, y, gpuarr.On(s)) }}
	nn := int64(n) * int64(n)
	g := device.Gemm{Type: device.Float32, M: n, N: n, K: n, Alpha: 1, Beta: 0,
		A: raw[1], LDA: n, B: raw[0], LDB: n, C: raw[2], LDC: n, Batch: b, StrideA: nn, StrideB: nn, StrideC: nn}
	gemm := &path{op: func() error { return s.Gemm(g) }}
	if err := deviceTimes(t, cfg, 2, alloc, into, gemm); err != nil {
		if errors.Is(err, device.ErrNotSupported) {
			rep.Add(caseBatched, map[string]string{"path": "not measured", "size": size}, map[string]float64{})
			rep.Note("Batched matmul not measured: %v.", err)
			return nil
		}
		return err
	}
	if err := checkHead("batched Matmul", c, 1, 0.5*float32(n)); err != nil {
		return err
	}
	flops := 2 * float64(b) * float64(n) * float64(n) * float64(n)
	ref := report.Summarize(append([]float64(nil), gemm.got...))
	for _, p := range []struct {
		name string
		p    *path
	}{
		{"device.Stream.Gemm (cuBLAS gemmStridedBatched, raw pointers)", gemm},
		{"gpuarr.Matmul(a, b) + Release", alloc},
		{"gpuarr.MatmulInto(c, a, b)", into},
	} {
		sm := report.Summarize(append([]float64(nil), p.p.got...))
		m := map[string]float64{"tflops": flops / sm.P50 / 1e3, "flops_per_op": flops}
		if p.p != gemm {
			m["vs_ref"] = sm.P50 / ref.P50
		}
		add(rep, caseBatched, p.name, size, p.p.got, m)
	}
	rep.Note("Batched matmul: [%d %d %d] float32 stacks, one strided-batched GEMM; the target (≥ %.2f× torch.bmm's TFLOP/s, allow_tf32 off) is checked by kernels_peers.py.",
		b, n, n, targetBmmVsTorch)
	return nil
}

// benchStats times Var and Std of all the elements of a cfg.stat-shaped
// float32 array, and Sum and Var over its first two axes (an NHWC-like
// reduction keeping the last axis), in device time.
func benchStats(rep *report.Report, dev *device.Device, cfg config) error {
	s := dev.DefaultStream()
	sh := gpuarr.Shape(cfg.stat)
	size := fmt.Sprintf("%d×%d×%d", sh[0], sh[1], sh[2])
	x, err := gpuarr.Eval(gpuarr.UniformExpr[float32](gpuarr.NewRNG(27), sh), gpuarr.On(s))
	if err != nil {
		return err
	}
	defer x.Release()
	t, err := newTimer(s)
	if err != nil {
		return err
	}
	defer t.Close()
	two := []gpuarr.Option{gpuarr.Axis(0), gpuarr.Axis(1), gpuarr.On(s)}
	op := func(f func(gpuarr.Operand[float32], ...gpuarr.Option) (*gpuarr.Array[float32], error), opts ...gpuarr.Option) *path {
		return &path{op: func() error {
			r, err := f(x, opts...)
			if err != nil {
				return err
			}
			return r.Release()
		}}
	}
	varAll, stdAll := op(gpuarr.Var[float32], gpuarr.On(s)), op(gpuarr.Std[float32], gpuarr.On(s))
	sum2, var2 := op(gpuarr.Sum[float32], two...), op(gpuarr.Var[float32], two...)
	if err := deviceTimes(t, cfg, 2, varAll, stdAll, sum2, var2); err != nil {
		return err
	}
	// Uniform [0, 1): variance 1/12, and sums of about half the count.
	v, err := gpuarr.Var[float32](x, gpuarr.On(s))
	if err != nil {
		return err
	}
	got, err := v.Item()
	v.Release()
	if err != nil {
		return err
	}
	if math.Abs(float64(got)-1.0/12) > 1e-3 {
		return fmt.Errorf("Var of uniform numbers: got %v, want about 1/12", got)
	}
	bytes := 4 * float64(sh.Len())
	for _, p := range []struct {
		name, path string
		p          *path
	}{
		{caseVar, "gpuarr.Var(x) + Release, all axes", varAll},
		{caseStd, "gpuarr.Std(x) + Release, all axes", stdAll},
		{caseSum2, "gpuarr.Sum(x, Axis(0), Axis(1)) + Release", sum2},
		{caseVar, "gpuarr.Var(x, Axis(0), Axis(1)) + Release", var2},
	} {
		d := report.Summarize(append([]float64(nil), p.p.got...))
		add(rep, p.name, p.path, size, p.p.got, map[string]float64{"gbps": gbps(bytes, d.P50), "bytes_per_op": bytes})
	}
	rep.Note("Var, Std, two-axis Sum: a [%s] float32 array of uniform numbers (one read per op); the target (the torch op's time ≥ %.2f× gpuarr's) is checked by kernels_peers.py.",
		size, targetStatsVsTorch)
	return nil
}
