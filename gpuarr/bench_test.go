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

// EvalInto of a + b on 1024 elements with the kernel cached: the host
// cost of building, lowering and looking up a fused expression on top of
// its launch (the target: 1.2× a raw launch of the same kernel).
func BenchmarkEvalIntoSmall(b *testing.B) {
	const n = 1024
	x := must(gpuarr.Ones[float32](gpuarr.Shape{n}))
	y := must(gpuarr.Ones[float32](gpuarr.Shape{n}))
	z := must(gpuarr.Zeros[float32](gpuarr.Shape{n}))
	defer func() { _, _, _ = x.Release(), y.Release(), z.Release() }()
	s := z.Device().DefaultStream()
	for i := 0; b.Loop(); i++ {
		if err := gpuarr.EvalInto(z, gpuarr.Add(x, y)); err != nil {
			b.Fatal(err)
		}
		if i%256 == 255 {
			_ = s.Synchronize()
		}
	}
}

// A producer/consumer round over two streams: each round hands x over
// twice (consumer waits for the producer's write, the producer's next
// write waits for the consumer's read); compare with the same round on one
// stream for the cost of the hand-offs.
func BenchmarkHandoff(b *testing.B) {
	dev := testDevice(b)
	ks := kernels(b, dev)
	ss := newStreams(b, dev, 2)
	const n = 256
	x := must(gpuarr.Zeros[float32](gpuarr.Shape{n}, gpuarr.On(ss[0])))
	y := must(gpuarr.Zeros[float32](gpuarr.Shape{n}, gpuarr.On(ss[1])))
	z := must(gpuarr.Zeros[float32](gpuarr.Shape{n}, gpuarr.On(ss[1])))
	defer func() { _, _, _ = x.Release(), y.Release(), z.Release() }()
	cfg := linear(n)
	for _, bc := range []struct {
		name string
		cons int
	}{{"same-stream", 0}, {"two-streams", 1}} {
		b.Run(bc.name, func(b *testing.B) {
			for i := 0; b.Loop(); i++ {
				if err := gpuarr.Launch(ks.VAdd, cfg, gpuarr.In(y), gpuarr.In(y), gpuarr.Out(x), uint64(n), gpuarr.On(ss[0])); err != nil {
					b.Fatal(err)
				}
				if err := gpuarr.Launch(ks.VAdd, cfg, gpuarr.In(x), gpuarr.In(x), gpuarr.Out(z), uint64(n), gpuarr.On(ss[bc.cons])); err != nil {
					b.Fatal(err)
				}
				if i%128 == 127 {
					_ = ss[0].Synchronize()
					_ = ss[1].Synchronize()
				}
			}
		})
	}
}
