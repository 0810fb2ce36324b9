package gpuarr_test

import (
	"testing"

	"github.com/gpuarr/gpuarr/gpuarr"
)

// Empty + Release of one float32: the array layer's allocation overhead
// (the target: 300 ns per pair on a GPU machine).
func BenchmarkEmptyRelease(b *testing.B) {
	for b.Loop() {
		a, err := gpuarr.Empty[float32](gpuarr.Shape{1})
		if err != nil {
			b.Fatal(err)
		}
		if err := a.Release(); err != nil {
			b.Fatal(err)
		}
	}
}

// A same-stream launch on three arrays, against the raw launch of the
// same kernel (the ratio is the tracking overhead).
func BenchmarkLaunch(b *testing.B) {
	dev := testDevice(b)
	ks := kernels(b, dev)
	s := newStreams(b, dev, 1)[0]
	const n = 256
	x := must(gpuarr.Zeros[float32](gpuarr.Shape{n}, gpuarr.On(s)))
	y := must(gpuarr.Zeros[float32](gpuarr.Shape{n}, gpuarr.On(s)))
	z := must(gpuarr.Zeros[float32](gpuarr.Shape{n}, gpuarr.On(s)))
	cfg := linear(n)
	b.Run("tracked", func(b *testing.B) {
		for i := 0; b.Loop(); i++ {
			if err := gpuarr.Launch(ks.VAdd, cfg, gpuarr.In(x), gpuarr.In(y), gpuarr.Out(z), uint64(n), gpuarr.On(s)); err != nil {
				b.Fatal(err)
			}
			if i%256 == 255 {
				_ = s.Synchronize()
			}
		}
	})
	p := must(dev.Alloc(3 * n * 4))
	defer dev.Free(p)
	b.Run("raw", func(b *testing.B) {
		for i := 0; b.Loop(); i++ {
			if err := s.Launch(ks.VAdd, cfg, p, p.Add(n*4), p.Add(2*n*4), uint64(n)); err != nil {
				b.Fatal(err)
			}
			if i%256 == 255 {
				_ = s.Synchronize()
			}
		}
	})
}

// A host read of a clean, empty array: everything a read costs but the
// copy (the target: 50 ns).
func BenchmarkCleanHostRead(b *testing.B) {
	a := must(gpuarr.Zeros[float32](gpuarr.Shape{0}))
	defer a.Release()
	for b.Loop() {
		if err := a.CopyToHost(nil); err != nil {
			b.Fatal(err)
		}
	}
}
