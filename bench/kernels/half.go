package main

import (
	"errors"
	"fmt"

	"github.com/gpuarr/gpuarr/bench/report"
	"github.com/gpuarr/gpuarr/device"
	"github.com/gpuarr/gpuarr/device/dtype"
	"github.com/gpuarr/gpuarr/gpuarr"
)

// Row names of the 16-bit float cases, by element type.
func caseHalfAdd(t dtype.DType) string    { return "a + b, " + t.String() }
func caseHalfMatmul(t dtype.DType) string { return "matmul, " + t.String() + ", float32 accumulation" }

// half16 is the 16-bit float element types.
type half16 interface {
	gpuarr.Float16 | gpuarr.BFloat16
}

// toHalf rounds f to T.
func toHalf[T half16](f float32) T {
	var z T
	switch any(z).(type) {
	case gpuarr.Float16:
		return any(gpuarr.ToFloat16(f)).(T)
	default:
		return any(gpuarr.ToBFloat16(f)).(T)
	}
}

// halfValue is v as a float32.
func halfValue[T half16](v T) float32 {
	switch v := any(v).(type) {
	case gpuarr.Float16:
		return v.Float32()
	case gpuarr.BFloat16:
		return v.Float32()
	}
	panic("unreachable")
}

// halfArrays allocates arrays of shape sh on s filled with vals[i].
func halfArrays[T half16](s *device.Stream, sh gpuarr.Shape, vals ...float32) ([]*gpuarr.Array[T], error) {
	out := make([]*gpuarr.Array[T], 0, len(vals))
	for _, v := range vals {
		a, err := gpuarr.Full(sh, toHalf[T](v), gpuarr.On(s))
		if err != nil {
			for _, a := range out {
				_ = a.Release()
			}
			return nil, err
		}
		out = append(out, a)
	}
	return out, nil
}

// rawHalves allocates len(vals) device buffers of n elements of T outside
// gpuarr (no tracking) on s's device, filled with vals[i] rounded to T;
// free frees them.
func rawHalves[T half16](s *device.Stream, n int, vals ...float32) (ptrs []device.Ptr, free func(), err error) {
	dev := s.Device()
	free = func() {
		for _, p := range ptrs {
			_ = dev.Free(p)
		}
	}
	words := uint64(n+1) / 2 // filled two elements at a time
	for _, v := range vals {
		p, err := dev.Alloc(words * 4)
		if err != nil {
			free()
			return nil, nil, err
		}
		ptrs = append(ptrs, p)
		var bits uint32
		switch h := any(toHalf[T](v)).(type) {
		case gpuarr.Float16:
			bits = uint32(h.Bits())
		case gpuarr.BFloat16:
			bits = uint32(h.Bits())
		}
		if err := s.Memset32(p, bits|bits<<16, words); err != nil {
			free()
			return nil, nil, err
		}
	}
	return ptrs, free, s.Synchronize()
}

// checkHalfHead compares the first k elements of a with want.
func checkHalfHead[T half16](what string, a *gpuarr.Array[T], k int, want float32) error {
	v, err := a.Slice(0, k)
	if err != nil {
		return err
	}
	defer v.Release()
	got, err := v.ToSlice()
	if err != nil {
		return err
	}
	for i, g := range got {
		if f := halfValue(g); f != want {
			return fmt.Errorf("%s: element %d is %v, want %v", what, i, f, want)
		}
	}
	return nil
}

// caseHalfMatmulGroup is the -only name of benchHalfMatmul.
const caseHalfMatmulGroup = "float16/bfloat16 matmul"

// benchHalfAdd times, for float16 and bfloat16, c = a + b at cfg.n
// elements (EvalInto a preallocated c, as the float32 a + b case).
func benchHalfAdd(rep *report.Report, dev *device.Device, cfg config) error {
	if err := halfAdd[gpuarr.Float16](rep, dev, cfg); err != nil {
		return err
	}
	if err := halfAdd[gpuarr.BFloat16](rep, dev, cfg); err != nil {
		return err
	}
	rep.Note("float16 and bfloat16 a + b computes in float32 and rounds each result (gbps: 3 arrays × 2 B × n per op), timed as the float32 a + b. The target (≥ %.2f× torch.add(out=)'s throughput) is checked by kernels_peers.py.",
		targetHalfAddVsTorch)
	return nil
}

// benchHalfMatmul times, for float16 and bfloat16, the product of two
// cfg.matN² matrices (Matmul, allocating and released at once;
// MatmulInto; and device.Stream.Gemm on the same memory: cuBLAS's
// cublasGemmEx with float32 accumulation, without gpuarr).
func benchHalfMatmul(rep *report.Report, dev *device.Device, cfg config) error {
	if err := halfMatmul[gpuarr.Float16](rep, dev, cfg); err != nil {
		return err
	}
	if err := halfMatmul[gpuarr.BFloat16](rep, dev, cfg); err != nil {
		return err
	}
	rep.Note("float16 and bfloat16 Matmul is cuBLAS's cublasGemmEx (16-bit operands, float32 accumulation, the handle's default math mode), timed as the float32 matmul. The target (≥ %.2f× torch.matmul's TFLOP/s) is checked by kernels_peers.py, in rounds that alternate this case (run alone with -only) with torch.matmul.",
		targetHalfMatmulVsTorch)
	if cfg.matmulWarm > 0 {
		rep.Note("float16 and bfloat16 Matmul: each type's samples follow %v of warm-up matmuls (-matmul-warm).", cfg.matmulWarm)
	}
	return nil
}

func halfAdd[T half16](rep *report.Report, dev *device.Device, cfg config) error {
	s := dev.DefaultStream()
	n := cfg.n
	typ := dtype.Of[T]()
	arrs, err := halfArrays[T](s, gpuarr.Shape{n}, 1.25, 2.5, 0)
	if err != nil {
		return err
	}
	defer func() {
		for _, a := range arrs {
			_ = a.Release()
		}
	}()
	a, b, c := arrs[0], arrs[1], arrs[2]
	t, err := newTimer(s)
	if err != nil {
		return err
	}
	defer t.Close()
	into := &path{op: func() error { return gpuarr.EvalInto(c, gpuarr.Add(a, b), gpuarr.On(s)) }}
	if err := deviceTimes(t, cfg, 3, into); err != nil {
		return err
	}
	if err := checkHalfHead(caseHalfAdd(typ), c, 4, 3.75); err != nil {
		return err
	}
	bytes := 6 * float64(n)
	med := report.Summarize(append([]float64(nil), into.got...)).P50
	add(rep, caseHalfAdd(typ), "gpuarr.EvalInto(c, Add(a, b))", sizeLabel(n), into.got,
		map[string]float64{"gbps": gbps(bytes, med), "bytes_per_op": bytes})
	return nil
}

func halfMatmul[T half16](rep *report.Report, dev *device.Device, cfg config) error {
	s := dev.DefaultStream()
	n := cfg.matN
	typ := dtype.Of[T]()
	size := fmt.Sprintf("%d×%d", n, n)
	arrs, err := halfArrays[T](s, gpuarr.Shape{n, n}, 1, 0.5, 0)
	if err != nil {
		return err
	}
	defer func() {
		for _, a := range arrs {
			_ = a.Release()
		}
	}()
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
	raw, free, err := rawHalves[T](s, n*n, 1, 0.5, 0)
	if err != nil {
		return err
	}
	defer free()
	// Row-major C = A·B is column-major Cᵀ = Bᵀ·Aᵀ over the same memory.
	g := device.Gemm{Type: typ, M: n, N: n, K: n, Alpha: 1, Beta: 0, A: raw[1], LDA: n, B: raw[0], LDB: n, C: raw[2], LDC: n}
	gemm := &path{op: func() error { return s.Gemm(g) }}
	mc := cfg
	mc.samples = max(5, cfg.samples/3)
	mc.opBatch = max(1, cfg.opBatch/5)
	err = warmFor(s, cfg.matmulWarm, gemm.op)
	if err == nil {
		err = deviceTimes(t, mc, 2, alloc, into, gemm)
	}
	if err != nil {
		if errors.Is(err, device.ErrNotSupported) {
			rep.Add(caseHalfMatmul(typ), map[string]string{"path": "not measured", "size": size}, map[string]float64{})
			rep.Note("%s not measured: %v.", caseHalfMatmul(typ), err)
			return nil
		}
		return err
	}
	if err := checkHalfHead(caseHalfMatmul(typ), c, 4, 0.5*float32(n)); err != nil {
		return err
	}
	flops := 2 * float64(n) * float64(n) * float64(n)
	ref := report.Summarize(append([]float64(nil), gemm.got...))
	for _, p := range []struct {
		name string
		p    *path
	}{
		{"device.Stream.Gemm (cuBLAS GemmEx, raw pointers)", gemm},
		{"gpuarr.Matmul(a, b) + Release", alloc},
		{"gpuarr.MatmulInto(c, a, b)", into},
	} {
		sm := report.Summarize(append([]float64(nil), p.p.got...))
		m := map[string]float64{"tflops": flops / sm.P50 / 1e3, "flops_per_op": flops}
		if p.p != gemm {
			m["vs_ref"] = sm.P50 / ref.P50
		}
		add(rep, caseHalfMatmul(typ), p.name, size, p.p.got, m)
	}
	return nil
}
