// Command graphs is the graph-capture seed problem: one graph per batch
// size 1…N of a·a + b·2 over the first rows of fixed input and output
// arrays, every graph sharing one private pool, each replay checked, and
// the memory the graphs cost reported (device memory used before and
// after, and the pool's reserved bytes).
//
//	go run ./examples/graphs [-max 128] [-dim 1024] [-order asc|desc]
//
// The inputs are uploaded to device arrays before a replay and the output
// read after it, outside the graphs: on the host backend a captured upload
// replays a snapshot of its source, so a graph that copies pinned host
// memory would not see new inputs there.
package main

import (
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"time"

	"github.com/gpuarr/gpuarr/device"
	"github.com/gpuarr/gpuarr/gpuarr"
)

func main() {
	maxBS := flag.Int("max", 128, "largest batch size")
	dim := flag.Int("dim", 1024, "row length")
	order := flag.String("order", "asc", "capture order: asc or desc")
	flag.Parse()
	dev, err := device.Default()
	if err != nil {
		fmt.Fprintln(os.Stderr, "graphs:", err)
		os.Exit(1)
	}
	res, err := run(dev, *maxBS, *dim, *order == "desc")
	if err != nil {
		fmt.Fprintf(os.Stderr, "graphs: on %s: FAILED: %v\n", dev, err)
		os.Exit(1)
	}
	fmt.Printf("graphs: %s, batch sizes 1..%d (%s), rows of %d float32\n", dev, *maxBS, *order, *dim)
	fmt.Printf("  largest working set   %8.3f MiB\n", mib(res.WorkingSet))
	fmt.Printf("  device memory growth  %8.3f MiB\n", mib(res.DeviceGrowth))
	fmt.Printf("  pool reserved         %8.3f MiB\n", mib(res.PoolReserved))
	fmt.Printf("  capture per graph     %v\n", res.CapturePerGraph)
	fmt.Printf("  every replay checked: OK\n")
}

func mib(n int64) float64 { return float64(n) / (1 << 20) }

// Result is what run measured.
type Result struct {
	WorkingSet      int64 // bytes of the largest batch's temporaries
	DeviceGrowth    int64 // device memory used after the captures minus before
	PoolReserved    int64 // the shared pool's reserved bytes after the captures
	CapturePerGraph time.Duration
}

// compute is the seed's program on the first bs rows: out = a·a + b·2,
// with the temporaries a framework makes.
func compute(a, b, out *gpuarr.Array[float32], bs int, s *device.Stream) error {
	av, err := a.Slice(0, bs)
	if err != nil {
		return err
	}
	defer av.Release()
	bv, err := b.Slice(0, bs)
	if err != nil {
		return err
	}
	defer bv.Release()
	sq, err := gpuarr.Eval(gpuarr.Mul(av, av), gpuarr.On(s))
	if err != nil {
		return err
	}
	defer sq.Release()
	tw, err := gpuarr.Eval(gpuarr.Mul(bv, gpuarr.Scalar[float32](2)), gpuarr.On(s))
	if err != nil {
		return err
	}
	defer tw.Release()
	ov, err := out.Slice(0, bs)
	if err != nil {
		return err
	}
	defer ov.Release()
	return gpuarr.EvalInto(ov, gpuarr.Add(sq, tw), gpuarr.On(s))
}

func used(dev *device.Device) (int64, error) {
	free, total, err := dev.MemInfo()
	return int64(total) - int64(free), err
}

// run captures one graph per batch size into a shared pool, replays each
// on fresh inputs and checks the result.
func run(dev *device.Device, maxBS, dim int, desc bool) (Result, error) {
	var res Result
	if maxBS < 1 || dim < 1 {
		return res, fmt.Errorf("batch sizes 1..%d of rows of %d: need at least one of each", maxBS, dim)
	}
	s, err := dev.NewStream()
	if err != nil {
		return res, err
	}
	defer s.Close()
	sh := gpuarr.Shape{maxBS, dim}
	a, err := gpuarr.Zeros[float32](sh, gpuarr.On(s))
	if err != nil {
		return res, err
	}
	defer a.Release()
	b, err := gpuarr.Zeros[float32](sh, gpuarr.On(s))
	if err != nil {
		return res, err
	}
	defer b.Release()
	out, err := gpuarr.Zeros[float32](sh, gpuarr.On(s))
	if err != nil {
		return res, err
	}
	defer out.Release()
	// Warm up (compiles the kernels), as the seed does before capturing.
	for bs := 1; bs <= maxBS; bs++ {
		if err := compute(a, b, out, bs, s); err != nil {
			return res, err
		}
	}
	if err := s.Synchronize(); err != nil {
		return res, err
	}
	before, err := used(dev)
	if err != nil {
		return res, err
	}

	pool, err := gpuarr.NewGraphPool(dev)
	if err != nil {
		return res, err
	}
	graphs := make([]*gpuarr.Graph, maxBS+1)
	defer func() {
		for _, g := range graphs {
			if g != nil {
				_ = g.Close()
			}
		}
	}()
	start := time.Now()
	for i := 1; i <= maxBS; i++ {
		bs := i
		if desc {
			bs = maxBS + 1 - i
		}
		g, err := gpuarr.Capture(s, func() error { return compute(a, b, out, bs, s) }, gpuarr.WithPool(pool))
		if err != nil {
			return res, fmt.Errorf("capturing batch size %d: %w", bs, err)
		}
		graphs[bs] = g
	}
	res.CapturePerGraph = time.Since(start) / time.Duration(maxBS)
	after, err := used(dev)
	if err != nil {
		return res, err
	}
	res.DeviceGrowth = after - before
	res.PoolReserved = int64(pool.Stats().ReservedBytes.Current)
	res.WorkingSet = 2 * int64(maxBS*dim*4)

	rng := rand.New(rand.NewPCG(1, 2))
	av, bv := make([]float32, maxBS*dim), make([]float32, maxBS*dim)
	for bs := 1; bs <= maxBS; bs++ {
		for i := range av {
			av[i], bv[i] = float32(rng.IntN(64)), float32(rng.IntN(64))
		}
		if err := a.CopyFromHost(av, gpuarr.On(s)); err != nil {
			return res, err
		}
		if err := b.CopyFromHost(bv, gpuarr.On(s)); err != nil {
			return res, err
		}
		if err := graphs[bs].Replay(gpuarr.On(s)); err != nil {
			return res, fmt.Errorf("replaying batch size %d: %w", bs, err)
		}
		got, err := out.ToSlice()
		if err != nil {
			return res, err
		}
		for i := range bs * dim {
			if want := av[i]*av[i] + bv[i]*2; got[i] != want {
				return res, fmt.Errorf("batch size %d: out[%d] = %v, want %v", bs, i, got[i], want)
			}
		}
	}
	return res, nil
}
