package main

import (
	"fmt"
	"math"
	"time"

	"github.com/gpuarr/gpuarr/bench/report"
	"github.com/gpuarr/gpuarr/device"
	"github.com/gpuarr/gpuarr/device/driver"
	"github.com/gpuarr/gpuarr/gpuarr"
	"github.com/gpuarr/gpuarr/internal/testkernels"
)

// Names of the rows that kernels_peers.py matches its own against.
const (
	caseAdd    = "a + b, float32"
	caseFused  = "a*b + c, float32"
	caseSum    = "Sum, float32"
	caseMatmul = "matmul, float32, no TF32"
)

// arrays allocates k arrays of shape sh on s filled with vals[i].
func arrays(s *device.Stream, sh gpuarr.Shape, vals ...float32) ([]*gpuarr.Array[float32], error) {
	out := make([]*gpuarr.Array[float32], 0, len(vals))
	for _, v := range vals {
		a, err := gpuarr.Full(sh, v, gpuarr.On(s))
		if err != nil {
			release(out...)
			return nil, err
		}
		out = append(out, a)
	}
	return out, nil
}

// rawFloats allocates len(vals) device buffers of n float32 outside gpuarr
// (no tracking) on s's device, filled with vals[i]; free frees them.
func rawFloats(s *device.Stream, n int, vals ...float32) (ptrs []device.Ptr, free func(), err error) {
	dev := s.Device()
	free = func() {
		for _, p := range ptrs {
			_ = dev.Free(p)
		}
	}
	for _, v := range vals {
		p, err := dev.Alloc(uint64(n) * 4)
		if err != nil {
			free()
			return nil, nil, err
		}
		ptrs = append(ptrs, p)
		if err := s.Memset32(p, math.Float32bits(v), uint64(n)); err != nil {
			free()
			return nil, nil, err
		}
	}
	return ptrs, free, s.Synchronize()
}

// operands makes a and b, filled with av and bv, and a zeroed c, each of
// shape sh, twice on s: as arrays, and as raw device memory outside
// gpuarr (no tracking) for the reference paths. done releases both.
func operands(s *device.Stream, sh gpuarr.Shape, av, bv float32) (arrs []*gpuarr.Array[float32], raw []device.Ptr, done func(), err error) {
	if arrs, err = arrays(s, sh, av, bv, 0); err != nil {
		return nil, nil, nil, err
	}
	raw, free, err := rawFloats(s, sh.Len(), av, bv, 0)
	if err != nil {
		release(arrs...)
		return nil, nil, nil, err
	}
	return arrs, raw, func() { free(); release(arrs...) }, nil
}

func release(as ...*gpuarr.Array[float32]) {
	for _, a := range as {
		_ = a.Release()
	}
}

// checkHead reads the first k elements (rows, for 2-D arrays) of a and
// compares them with want: a benchmark of wrong results is no benchmark.
func checkHead(what string, a *gpuarr.Array[float32], rows int, want float32) error {
	v, err := a.Slice(0, rows)
	if err != nil {
		return err
	}
	defer v.Release()
	got, err := v.ToSlice()
	if err != nil {
		return err
	}
	for i, g := range got {
		if math.Abs(float64(g-want)) > 1e-3*math.Abs(float64(want)) {
			return fmt.Errorf("%s: element %d is %v, want %v", what, i, g, want)
		}
	}
	return nil
}

// benchAdd times c = a + b (EvalInto a preallocated c) in device time,
// next to a device-to-device copy of the same n elements (the memory
// system's speed for 2 × 4 B per element) and the hand-written
// gpuarr_vadd_f32 test kernel on the same three arrays' memory.
func benchAdd(rep *report.Report, dev *device.Device, cfg config) error {
	s := dev.DefaultStream()
	n := cfg.n
	size := sizeLabel(n)
	arrs, raw, done, err := operands(s, gpuarr.Shape{n}, 1.25, 2.5)
	if err != nil {
		return err
	}
	defer done()
	a, b, c := arrs[0], arrs[1], arrs[2]
	ks, err := testkernels.Load(dev)
	if err != nil {
		return err
	}
	defer ks.Module.Close()
	t, err := newTimer(s)
	if err != nil {
		return err
	}
	defer t.Close()

	lc := device.Linear(uint64(n), 256)
	if sms := dev.Info().Multiprocessors; sms > 0 {
		lc.Grid.X = min(lc.Grid.X, uint32(sms*8)) // grid-stride, as gpuarr launches
	}
	evalInto := &path{op: func() error { return gpuarr.EvalInto(c, gpuarr.Add(a, b), gpuarr.On(s)) }}
	vadd := &path{op: func() error { return s.Launch(ks.VAdd, lc, raw[0], raw[1], raw[2], uint64(n)) }}
	cpy := &path{op: func() error { return s.CopyDtoD(raw[2], raw[0], uint64(n)*4) }}
	if err := deviceTimes(t, cfg, 3, evalInto, vadd, cpy); err != nil {
		return err
	}
	if err := checkHead("a + b", c, 4, 3.75); err != nil {
		return err
	}
	bytes3, bytes2 := 12*float64(n), 8*float64(n)
	med := func(p *path) float64 { return report.Summarize(append([]float64(nil), p.got...)).P50 }
	e, v, cp := med(evalInto), med(vadd), med(cpy)
	add(rep, caseAdd, "device CopyDtoD of n elements (2 × 4 B × n: the memory system)", size, cpy.got,
		map[string]float64{"gbps": gbps(bytes2, cp), "bytes_per_op": bytes2})
	add(rep, caseAdd, "testkernels gpuarr_vadd_f32 (hand-written PTX, raw pointers)", size, vadd.got,
		map[string]float64{"gbps": gbps(bytes3, v), "bytes_per_op": bytes3})
	add(rep, caseAdd, "gpuarr.EvalInto(c, Add(a, b))", size, evalInto.got,
		map[string]float64{"gbps": gbps(bytes3, e), "bytes_per_op": bytes3, "vs_ref": e / v})
	rep.Note("a + b: gbps counts 3 arrays × 4 B × n per op over the median device time; EvalInto moves %.0f GB/s, taking %.2f× the time of the hand-written scalar test kernel (its vs_ref); a device copy moves %.0f GB/s. The target (≥ %.2f× torch.add(a, b, out=c)'s throughput) is checked by kernels_peers.py.",
		gbps(bytes3, e), e/v, gbps(bytes2, cp), targetAddVsTorch)
	return nil
}

// benchFused times d = a*b + c as one kernel: Add(Mul(a, b), c) (what a
// user writes) and FMA(a, b, c), EvalInto a preallocated d; and Eval of
// the same expression with Release of its result (what torch's eager
// a*b+c does: it allocates its result).
func benchFused(rep *report.Report, dev *device.Device, cfg config) error {
	s := dev.DefaultStream()
	n := cfg.n
	size := sizeLabel(n)
	arrs, err := arrays(s, gpuarr.Shape{n}, 1.5, 2, 0.25, 0)
	if err != nil {
		return err
	}
	defer release(arrs...)
	a, b, c, d := arrs[0], arrs[1], arrs[2], arrs[3]
	t, err := newTimer(s)
	if err != nil {
		return err
	}
	defer t.Close()
	addMul := &path{op: func() error { return gpuarr.EvalInto(d, gpuarr.Add(gpuarr.Mul(a, b), c), gpuarr.On(s)) }}
	fma := &path{op: func() error { return gpuarr.EvalInto(d, gpuarr.FMA(a, b, c), gpuarr.On(s)) }}
	alloc := &path{op: func() error {
		r, err := gpuarr.Eval(gpuarr.Add(gpuarr.Mul(a, b), c), gpuarr.On(s))
		if err != nil {
			return err
		}
		return r.Release()
	}}
	if err := deviceTimes(t, cfg, 3, addMul, fma, alloc); err != nil {
		return err
	}
	if err := checkHead("a*b + c", d, 4, 3.25); err != nil {
		return err
	}
	bytes := 16 * float64(n)
	for _, p := range []struct {
		name string
		p    *path
	}{
		{"gpuarr.EvalInto(d, Add(Mul(a, b), c))", addMul},
		{"gpuarr.EvalInto(d, FMA(a, b, c))", fma},
		{"gpuarr.Eval(Add(Mul(a, b), c)) + Release", alloc},
	} {
		sm := report.Summarize(append([]float64(nil), p.p.got...))
		m := map[string]float64{"gbps": gbps(bytes, sm.P50), "bytes_per_op": bytes}
		add(rep, caseFused, p.name, size, p.p.got, m)
	}
	rep.Note("a*b + c: one fused kernel reads a, b, c and writes d (gbps: 4 arrays × 4 B × n per op); PyTorch's eager a*b+c runs two kernels and a temporary. The target (torch eager time ≥ %.1f× the fused EvalInto's) is checked by kernels_peers.py.", targetFusedSpeedup)
	return nil
}

// benchSum times Sum of n float32 (its result released at once, the
// device array never read) in device time, and in host wall time with the
// device synchronized after each batch (the batch's launches, allocation
// and release included).
func benchSum(rep *report.Report, dev *device.Device, cfg config) error {
	s := dev.DefaultStream()
	n := cfg.n
	size := sizeLabel(n)
	arrs, err := arrays(s, gpuarr.Shape{n}, 0.5)
	if err != nil {
		return err
	}
	defer release(arrs...)
	x := arrs[0]
	t, err := newTimer(s)
	if err != nil {
		return err
	}
	defer t.Close()
	sum := func() error {
		r, err := gpuarr.Sum(x, gpuarr.On(s))
		if err != nil {
			return err
		}
		return r.Release()
	}
	dt := &path{op: sum}
	if err := deviceTimes(t, cfg, 3, dt); err != nil {
		return err
	}
	// Host wall time of a batch of Sums and one dev.Synchronize, per Sum.
	var wall []float64
	for range cfg.samples {
		start := time.Now()
		for range cfg.opBatch {
			if err := sum(); err != nil {
				return err
			}
		}
		if err := dev.Synchronize(); err != nil {
			return err
		}
		wall = append(wall, float64(time.Since(start).Nanoseconds())/float64(cfg.opBatch))
	}
	r, err := gpuarr.Sum(x, gpuarr.On(s))
	if err != nil {
		return err
	}
	got, err := r.Item()
	r.Release()
	if err != nil {
		return err
	}
	if want := 0.5 * float32(n); got != want {
		return fmt.Errorf("Sum: got %v, want %v", got, want)
	}
	bytes := 4 * float64(n)
	d := report.Summarize(append([]float64(nil), dt.got...))
	add(rep, caseSum, "gpuarr.Sum(x) + Release, device time", size, dt.got,
		map[string]float64{"gbps": gbps(bytes, d.P50), "bytes_per_op": bytes})
	w := report.Summarize(append([]float64(nil), wall...))
	add(rep, caseSum, "gpuarr.Sum(x) + Release, host wall, dev.Synchronize per batch", size, wall,
		map[string]float64{"gbps": gbps(bytes, w.P50), "bytes_per_op": bytes})
	rep.Note("Sum: the result (a device array) is released without being read; the host-wall row times %d Sums and one dev.Synchronize per sample. The target (torch.sum's time ≥ %.2f× gpuarr's, device time) is checked by kernels_peers.py.", cfg.opBatch, targetSumVsTorch)
	return nil
}

// rawVAdd is gpuarr_vadd_f32 loaded once more at the driver level, for
// the C launch loop (the device API does not expose the backend function).
type rawVAdd struct {
	mod driver.Module
	fn  driver.Function
}

func loadRawVAdd(dev *device.Device) (*rawVAdd, error) {
	mod, err := dev.Driver().LoadModule(testkernels.PTX(dev))
	if err != nil {
		return nil, err
	}
	fn, err := mod.Function("gpuarr_vadd_f32")
	if err != nil {
		mod.Close()
		return nil, err
	}
	return &rawVAdd{mod: mod, fn: fn}, nil
}
