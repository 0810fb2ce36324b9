package memory

import (
	"fmt"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/gpuarr/gpuarr/device"
)

// Alloc+free of a cached size on one stream: the hot path.
func BenchmarkCachingAllocFree(b *testing.B) {
	dev := defaultDevice(b)
	for _, size := range []uint64{512, 64 << 10, 1 << 20, 16 << 20, 64 << 20} {
		for _, mode := range []struct {
			name string
			opts CachingOptions
		}{{"front", CachingOptions{}}, {"index", CachingOptions{FrontBlocks: -1}}} {
			b.Run(fmt.Sprintf("%s/%d", mode.name, size), func(b *testing.B) {
				p := Caching(Direct(dev), mode.opts)
				defer p.EmptyCache()
				s := dev.DefaultStream()
				x, err := p.Alloc(s, size)
				if err != nil {
					b.Fatal(err)
				}
				_ = p.Free(x)
				b.ReportAllocs()
				for b.Loop() {
					x, _ := p.Alloc(s, size)
					_ = p.Free(x)
				}
			})
		}
	}
}

// 1 KiB alloc+free with many free blocks (holes) in the index.
func BenchmarkCachingHoles(b *testing.B) {
	dev := defaultDevice(b)
	for _, holes := range []int{0, 4096, 65536} {
		for _, front := range []int{0, -1} {
			b.Run(fmt.Sprintf("holes=%d/front=%v", holes, front == 0), func(b *testing.B) {
				p := Caching(Direct(dev), CachingOptions{FrontBlocks: front})
				defer p.EmptyCache()
				s := dev.DefaultStream()
				keep := makeHoles(b, p, s, holes)
				defer func() {
					for _, k := range keep {
						_ = p.Free(k)
					}
				}()
				for b.Loop() {
					x, _ := p.Alloc(s, 1024)
					_ = p.Free(x)
				}
			})
		}
	}
}

// makeHoles leaves n free 512-byte blocks in p's index, each between two
// live ones, and returns the live ones.
func makeHoles(b testing.TB, p *CachingPool, s *device.Stream, n int) []*Block {
	var all, keep []*Block
	for range 2 * n {
		x, err := p.Alloc(s, 512)
		if err != nil {
			b.Fatal(err)
		}
		all = append(all, x)
	}
	for i, x := range all {
		if i%2 == 0 {
			_ = p.Free(x)
		} else {
			keep = append(keep, x)
		}
	}
	p.mu.Lock()
	p.flushFrontsLocked()
	p.unlock()
	return keep
}

// Aggregate throughput of goroutines each with its own stream.
func BenchmarkCachingParallel(b *testing.B) {
	dev := defaultDevice(b)
	for _, g := range []int{1, 4, 16} {
		b.Run(fmt.Sprint(g), func(b *testing.B) {
			p := Caching(Direct(dev), CachingOptions{})
			defer p.EmptyCache()
			streams := make([]*device.Stream, g)
			for i := range streams {
				streams[i], _ = dev.NewStream()
				defer streams[i].Close()
			}
			per := b.N/g + 1
			b.ResetTimer()
			var wg sync.WaitGroup
			for i := range g {
				wg.Add(1)
				go func() {
					defer wg.Done()
					s := streams[i]
					for range per {
						x, _ := p.Alloc(s, 4096)
						_ = p.Free(x)
					}
				}()
			}
			wg.Wait()
		})
	}
}

func BenchmarkDriverPoolAllocFree(b *testing.B) {
	dev := defaultDevice(b)
	if !dev.Info().MemoryPools {
		b.Skip("no memory pools")
	}
	r, err := DriverPool(dev, DriverPoolOptions{})
	if err != nil {
		b.Fatal(err)
	}
	s := dev.DefaultStream()
	for b.Loop() {
		x, _ := r.Alloc(s, 4096)
		_ = r.Free(x)
	}
}

// atDepth calls f with about depth frames of its own below the caller,
// as an allocation deep in a program's call tree is.
//
//go:noinline
func atDepth(depth int, f func()) {
	if depth <= 0 {
		f()
		return
	}
	atDepth(depth-1, f)
}

// One stack capture and intern (the profile's and the tracer's), from a
// stack of a given depth.
func BenchmarkCaptureStack(b *testing.B) {
	for _, depth := range []int{8, 24, 64} {
		b.Run(fmt.Sprintf("depth=%d", depth), func(b *testing.B) {
			atDepth(depth, func() {
				b.ReportAllocs()
				for b.Loop() {
					captureStack(0)
				}
			})
		})
	}
}

// One profile sample: the capture plus charging its bucket (C, the cost
// that the sampling rate multiplies).
func BenchmarkProfileSample(b *testing.B) {
	for _, depth := range []int{8, 24, 64} {
		b.Run(fmt.Sprintf("depth=%d", depth), func(b *testing.B) {
			atDepth(depth, func() {
				b.ReportAllocs()
				for b.Loop() {
					sample(kindDevice, "host:0", 1<<20, 0)
				}
			})
		})
	}
}

// Alloc+free of a cached 64 MiB block from a stack about 32 frames deep,
// with the profile off and sampling every allocation: the difference is
// the whole cost of one sample on the pool's path (the capture, the
// bucket, the next countdown, and the free's report).
func BenchmarkCachingAllocFreeSampled(b *testing.B) {
	dev := defaultDevice(b)
	const size = 64 << 20
	for _, mode := range []struct {
		name string
		rate int
	}{{"off", 0}, {"every", 1}} {
		b.Run(mode.name, func(b *testing.B) {
			prev := SetProfileRate(mode.rate)
			defer SetProfileRate(prev)
			p := Caching(Direct(dev), CachingOptions{})
			defer p.EmptyCache()
			s := dev.DefaultStream()
			atDepth(24, func() {
				for range 2 { // the stream's countdown drawn at this rate
					x, err := p.Alloc(s, idleRecheck+size)
					if err != nil {
						b.Fatal(err)
					}
					_ = p.Free(x)
				}
				b.ReportAllocs()
				for b.Loop() {
					x, _ := p.Alloc(s, size)
					_ = p.Free(x)
				}
			})
		})
	}
}

// Alloc+free of a cached 64 KiB block from a stack about 16 frames deep,
// bare and through a Tracer (every call an event, each alloc with its
// stack): the difference is the whole cost of tracing a pair.
func BenchmarkTracedAllocFree(b *testing.B) {
	dev := defaultDevice(b)
	const size = 64 << 10
	for _, mode := range []string{"off", "trace"} {
		b.Run(mode, func(b *testing.B) {
			prev := SetProfileRate(0)
			defer SetProfileRate(prev)
			p := Caching(Direct(dev), CachingOptions{})
			defer p.EmptyCache()
			var r Resource = p
			if mode == "trace" {
				r, _ = Trace(p, 1<<16)
			}
			s := dev.DefaultStream()
			atDepth(16, func() {
				x, err := r.Alloc(s, size)
				if err != nil {
					b.Fatal(err)
				}
				_ = r.Free(x)
				b.ReportAllocs()
				for b.Loop() {
					x, _ := r.Alloc(s, size)
					_ = r.Free(x)
				}
			})
		})
	}
}

// One event into a tracer's ring: the clock, the slot and the commit.
func BenchmarkTraceEvent(b *testing.B) {
	t := NewTracer(1 << 16)
	b.ReportAllocs()
	for b.Loop() {
		t.add(codeFree, codeBlock, 0, 1<<20, 4096, 7, 0, 0, "")
	}
}

// The floor of one event of any ring that timestamps each event and
// reserves its slot with one atomic add: a counter read, the add and the
// record's eight words stored, nothing else (no call, no check). Next to
// BenchmarkTraceEvent it shows what the tracer's own code adds; twice it,
// next to BenchmarkTracedAllocFree/off, is what tracing a pair costs at
// the least before any stack is taken.
func BenchmarkTraceEventFloor(b *testing.B) {
	const n = 1 << 16
	slots := make([]traceSlot, n)
	var next atomic.Uint64
	for b.Loop() {
		t := readTSC()
		i := next.Add(1) - 1
		s := &slots[i&(n-1)]
		s.w = [7]uint64{t, 1 << 20, 4096, 7, 0, 0, 3}
		s.seq = i + 1
	}
}
