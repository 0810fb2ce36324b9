package main

import (
	"math"

	"github.com/gpuarr/gpuarr/bench/report"
	"github.com/gpuarr/gpuarr/device"
	"github.com/gpuarr/gpuarr/gpuarr"
)

const caseChain = "Sin(a*b + c), float32: a 3-op chain"

// benchChain times e = Sin(a*b + c), three operations (multiply, add,
// sine) fused into one kernel: EvalInto a preallocated e, and Eval with
// Release of its result (torch's eager torch.sin(a*b + c) runs three
// kernels through two temporaries and allocates its result). Timed as
// the a + b case's paths are.
func benchChain(rep *report.Report, dev *device.Device, cfg config) error {
	s := dev.DefaultStream()
	n := cfg.n
	size := sizeLabel(n)
	arrs, err := arrays(s, gpuarr.Shape{n}, 1.5, 2, 0.25, 0)
	if err != nil {
		return err
	}
	defer release(arrs...)
	a, b, c, e := arrs[0], arrs[1], arrs[2], arrs[3]
	t, err := newTimer(s)
	if err != nil {
		return err
	}
	defer t.Close()
	chain := func() gpuarr.Expr[float32] { return gpuarr.Sin(gpuarr.Add(gpuarr.Mul(a, b), c)) }
	into := &path{op: func() error { return gpuarr.EvalInto(e, chain(), gpuarr.On(s)) }}
	alloc := &path{op: func() error {
		r, err := gpuarr.Eval(chain(), gpuarr.On(s))
		if err != nil {
			return err
		}
		return r.Release()
	}}
	if err := deviceTimes(t, cfg, 3, into, alloc); err != nil {
		return err
	}
	if err := checkHead("Sin(a*b + c)", e, 4, float32(math.Sin(3.25))); err != nil {
		return err
	}
	bytes := 16 * float64(n)
	for _, p := range []struct {
		name string
		p    *path
	}{
		{"gpuarr.EvalInto(e, Sin(Add(Mul(a, b), c)))", into},
		{"gpuarr.Eval(Sin(Add(Mul(a, b), c))) + Release", alloc},
	} {
		sm := report.Summarize(append([]float64(nil), p.p.got...))
		add(rep, caseChain, p.name, size, p.p.got, map[string]float64{"gbps": gbps(bytes, sm.P50), "bytes_per_op": bytes})
	}
	rep.Note("Sin(a*b + c): the 3-op chain of the issue's fused-expression target, one kernel reading a, b, c and writing e (gbps: 4 arrays × 4 B × n per op); torch's eager torch.sin(a*b + c) runs three kernels through two temporaries. The target (torch eager time ≥ %.1f× the fused EvalInto's) is checked by kernels_peers.py.", targetChainSpeedup)
	return nil
}
