package testkernels

import (
	"time"

	"github.com/gpuarr/gpuarr/device/driver"
	"github.com/gpuarr/gpuarr/device/host"
)

// The host halves of the test kernels: each does the work of a whole launch
// (every thread of every block), under the entry name its PTX uses.
func init() {
	host.RegisterKernel("gpuarr_vadd_f32", vaddF32)
	host.RegisterKernel("gpuarr_spin_write_u32", spinWriteU32)
	host.RegisterKernel("gpuarr_step_u32", stepU32)
	host.RegisterKernel("gpuarr_copy_u32", copyU32)
	host.RegisterKernel("gpuarr_fill_u32", fillU32)
	host.RegisterKernel("gpuarr_empty", func(*host.Launch) error { return nil })
}

// vaddF32 is gpuarr_vadd_f32(a, b, c ptr, n u64): c[i] = a[i] + b[i].
func vaddF32(l *host.Launch) error {
	n := l.Args.U64(3)
	a, err := host.View[float32](l, l.Args.Ptr(0), n)
	if err != nil {
		return err
	}
	b, err := host.View[float32](l, l.Args.Ptr(1), n)
	if err != nil {
		return err
	}
	c, err := host.View[float32](l, l.Args.Ptr(2), n)
	if err != nil {
		return err
	}
	l.ParallelFor(n, func(lo, hi uint64) {
		for i := lo; i < hi; i++ {
			c[i] = a[i] + b[i]
		}
	})
	return nil
}

// spinWriteU32 is gpuarr_spin_write_u32(out ptr, v u32, ns u64): it takes
// ns nanoseconds (at least), then *out = v, so that tests can see whether
// other work waited for it.
func spinWriteU32(l *host.Launch) error {
	out, err := host.View[uint32](l, l.Args.Ptr(0), 1)
	if err != nil {
		return err
	}
	if ns := l.Args.U64(2); ns > 0 {
		time.Sleep(time.Duration(min(ns, 1<<62)))
	}
	out[0] = l.Args.U32(1)
	return nil
}

// stepU32 is gpuarr_step_u32(p ptr, i u32): if p[0] == i, p[0] = i+1, else
// p[1] = 1 — a launch that runs out of order leaves the flag set.
func stepU32(l *host.Launch) error {
	p, err := host.View[uint32](l, l.Args.Ptr(0), 2)
	if err != nil {
		return err
	}
	if i := l.Args.U32(1); p[0] == i {
		p[0] = i + 1
	} else {
		p[1] = 1
	}
	return nil
}

// copyU32 is gpuarr_copy_u32(dst, src ptr, n u64): dst[i] = src[i].
func copyU32(l *host.Launch) error {
	n := l.Args.U64(2)
	dst, src, err := twoViews(l, l.Args.Ptr(0), l.Args.Ptr(1), n)
	if err != nil {
		return err
	}
	l.ParallelFor(n, func(lo, hi uint64) { copy(dst[lo:hi], src[lo:hi]) })
	return nil
}

// fillU32 is gpuarr_fill_u32(dst ptr, v u32, n u64): dst[i] = v.
func fillU32(l *host.Launch) error {
	n, v := l.Args.U64(2), l.Args.U32(1)
	dst, err := host.View[uint32](l, l.Args.Ptr(0), n)
	if err != nil {
		return err
	}
	l.ParallelFor(n, func(lo, hi uint64) {
		for i := lo; i < hi; i++ {
			dst[i] = v
		}
	})
	return nil
}

func twoViews(l *host.Launch, a, b driver.Ptr, n uint64) ([]uint32, []uint32, error) {
	va, err := host.View[uint32](l, a, n)
	if err != nil {
		return nil, nil, err
	}
	vb, err := host.View[uint32](l, b, n)
	return va, vb, err
}
