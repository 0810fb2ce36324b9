package testkernels

import (
	"fmt"
	"sync"
	"time"

	"github.com/gpuarr/gpuarr/device"
	"github.com/gpuarr/gpuarr/device/hostkernel"
)

// hostKernels are the Go halves of the test kernels, under the entry names
// their PTX uses: each does the work of a whole launch (every thread of
// every block).
var hostKernels = []struct {
	name string
	k    hostkernel.Kernel
}{
	{"gpuarr_vadd_f32", vaddF32},
	{"gpuarr_spin_write_u32", spinWriteU32},
	{"gpuarr_step_u32", stepU32},
	{"gpuarr_copy_u32", copyU32},
	{"gpuarr_fill_u32", fillU32},
	{"gpuarr_empty", func(*hostkernel.Launch) error { return nil }},
}

// bindHostKernels binds the Go halves on a device that runs kernels
// written in Go; elsewhere it does nothing. A name bound before to another
// kernel is an error: these names belong to this package.
func bindHostKernels(dev *device.Device) error {
	if !dev.RunsHostKernels() {
		return nil
	}
	hostOnce.Do(func() {
		for _, hk := range hostKernels {
			bound, err := dev.RegisterHostKernel(hk.name, hk.k)
			if err == nil && !bound {
				err = fmt.Errorf("entry %s is bound to a kernel of another package", hk.name)
			}
			if err != nil {
				hostErr = fmt.Errorf("testkernels: %w", err)
				return
			}
		}
	})
	return hostErr
}

var (
	hostOnce sync.Once
	hostErr  error
)

// vaddF32 is gpuarr_vadd_f32(a, b, c ptr, n u64): c[i] = a[i] + b[i].
func vaddF32(l *hostkernel.Launch) error {
	n := l.Args.U64(3)
	a, err := hostkernel.View[float32](l, l.Args.Ptr(0), n)
	if err != nil {
		return err
	}
	b, err := hostkernel.View[float32](l, l.Args.Ptr(1), n)
	if err != nil {
		return err
	}
	c, err := hostkernel.View[float32](l, l.Args.Ptr(2), n)
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
func spinWriteU32(l *hostkernel.Launch) error {
	out, err := hostkernel.View[uint32](l, l.Args.Ptr(0), 1)
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
func stepU32(l *hostkernel.Launch) error {
	p, err := hostkernel.View[uint32](l, l.Args.Ptr(0), 2)
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
func copyU32(l *hostkernel.Launch) error {
	n := l.Args.U64(2)
	dst, src, err := twoViews(l, l.Args.Ptr(0), l.Args.Ptr(1), n)
	if err != nil {
		return err
	}
	l.ParallelFor(n, func(lo, hi uint64) { copy(dst[lo:hi], src[lo:hi]) })
	return nil
}

// fillU32 is gpuarr_fill_u32(dst ptr, v u32, n u64): dst[i] = v.
func fillU32(l *hostkernel.Launch) error {
	n, v := l.Args.U64(2), l.Args.U32(1)
	dst, err := hostkernel.View[uint32](l, l.Args.Ptr(0), n)
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

func twoViews(l *hostkernel.Launch, a, b hostkernel.Ptr, n uint64) ([]uint32, []uint32, error) {
	va, err := hostkernel.View[uint32](l, a, n)
	if err != nil {
		return nil, nil, err
	}
	vb, err := hostkernel.View[uint32](l, b, n)
	return va, vb, err
}
