package main

import (
	"errors"
	"fmt"

	"github.com/gpuarr/gpuarr/bench/report"
	"github.com/gpuarr/gpuarr/device"
	"github.com/gpuarr/gpuarr/gpuarr"
)

// benchMatmul times the product of two n×n float32 matrices in full
// float32 precision (no TF32): Matmul, which allocates its result (what
// torch.matmul does; released at once), MatmulInto a preallocated result,
// and device.Stream.Gemm on the same memory (cuBLAS without gpuarr).
func benchMatmul(rep *report.Report, dev *device.Device, cfg config) error {
	s := dev.DefaultStream()
	n := cfg.matN
	size := fmt.Sprintf("%d×%d", n, n)
	arrs, raw, done, err := operands(s, gpuarr.Shape{n, n}, 1, 0.5)
	if err != nil {
		return err
	}
	defer done()
	a, b, c := arrs[0], arrs[1], arrs[2]
	t, err := newTimer(s)
	if err != nil {
		return err
	}
	defer t.Close()

	alloc := &path{op: func() error {
		r, err := gpuarr.Matmul(a, b, gpuarr.On(s))
		if err != nil {
			return err
		}
		return r.Release()
	}}
	into := &path{op: func() error { return gpuarr.MatmulInto(c, a, b, gpuarr.On(s)) }}
	// Row-major C = A·B is column-major Cᵀ = Bᵀ·Aᵀ over the same memory.
	g := device.Gemm{Type: device.Float32, M: n, N: n, K: n, Alpha: 1, Beta: 0,
		A: raw[1], LDA: n, B: raw[0], LDB: n, C: raw[2], LDC: n}
	gemm := &path{op: func() error { return s.Gemm(g) }}

	// An SGEMM of 8192² takes about 25 ms on an H100: fewer, shorter
	// samples than the bandwidth cases.
	mc := cfg
	mc.samples = max(5, cfg.samples/3)
	mc.opBatch = max(1, cfg.opBatch/5)
	if err := deviceTimes(t, mc, 2, alloc, into, gemm); err != nil {
		if errors.Is(err, device.ErrNotSupported) {
			rep.Add(caseMatmul, map[string]string{"path": "not measured", "size": size}, map[string]float64{})
			rep.Note("Matmul not measured: %v.", err)
			return nil
		}
		return err
	}
	if err := checkHead("Matmul", c, 1, 0.5*float32(n)); err != nil {
		return err
	}
	flops := 2 * float64(n) * float64(n) * float64(n)
	tflops := func(ns float64) float64 { return flops / ns / 1e3 }
	ref := report.Summarize(append([]float64(nil), gemm.got...))
	for _, p := range []struct {
		name string
		p    *path
	}{
		{"device.Stream.Gemm (cuBLAS SGEMM, raw pointers)", gemm},
		{"gpuarr.Matmul(a, b) + Release", alloc},
		{"gpuarr.MatmulInto(c, a, b)", into},
	} {
		sm := report.Summarize(append([]float64(nil), p.p.got...))
		m := map[string]float64{"tflops": tflops(sm.P50), "flops_per_op": flops}
		if p.p != gemm {
			m["vs_ref"] = sm.P50 / ref.P50
		}
		add(rep, caseMatmul, p.name, size, p.p.got, m)
	}
	rep.Note("Matmul: %d samples × %d products; tflops is 2n³ over the median device time; vs_ref is the time against the raw SGEMM on the same device. The target (≥ %.2f× torch.matmul's TFLOP/s with allow_tf32 off) is checked by kernels_peers.py.",
		mc.samples, mc.opBatch, targetMatmulVsTorch)
	return nil
}
