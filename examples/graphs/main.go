// Command graphs is the graph-capture seed problem: a·a + b·2 over the
// first rows of fixed input and output arrays for every batch size 1…N,
// captured two ways, each replay checked, and the memory each way costs
// reported (device memory used before and after, and the private pool's
// reserved bytes):
//
//   - per size: one graph per batch size, every graph sharing one private
//     pool (what PyTorch users do with torch.cuda.graph(pool=...));
//
//   - one graph: captured once for the largest batch with
//     gpuarr.Batched(N), replayed for each size with ReplayBatch, which
//     resizes the graph's kernel nodes in place.
//
//     go run ./examples/graphs [-max 128] [-dim 1024] [-order asc|desc] [-mode both|per-size|one]
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
	"github.com/gpuarr/gpuarr/memory"
)

func main() {
	maxBS := flag.Int("max", 128, "largest batch size")
	dim := flag.Int("dim", 1024, "row length")
	order := flag.String("order", "asc", "capture (per size) or replay (one graph) order: asc or desc")
	mode := flag.String("mode", "both", "per-size, one (one graph for every size) or both")
	memProfile := flag.String("gpumemprofile", "", "write a GPU memory profile (go tool pprof) to this file at exit")
	memTrace := flag.String("gpumemtrace", "", "record a GPU memory trace and write it to this file at exit (gpuarr memviz draws it)")
	flag.Parse()
	finish := memory.RecordTo(*memProfile, *memTrace)
	exit := func(code int) {
		if err := finish(); err != nil {
			fmt.Fprintln(os.Stderr, "graphs:", err)
			code = max(code, 1)
		}
		os.Exit(code)
	}
	defer exit(0)
	dev, err := device.Default()
	if err != nil {
		fmt.Fprintln(os.Stderr, "graphs:", err)
		exit(1)
	}
	var ones []bool
	switch *mode {
	case "per-size":
		ones = []bool{false}
	case "one":
		ones = []bool{true}
	case "both":
		ones = []bool{false, true}
	default:
		fmt.Fprintf(os.Stderr, "graphs: -mode %q: want per-size, one or both\n", *mode)
		exit(2)
	}
	fmt.Printf("graphs: %s, batch sizes 1..%d (%s), rows of %d float32\n", dev, *maxBS, *order, *dim)
	for _, one := range ones {
		res, err := run(dev, *maxBS, *dim, *order == "desc", one)
		name := "one graph per batch size"
		if one {
			name = "one graph for every batch size (Batched, ReplayBatch)"
		}
		if err != nil {
			fmt.Fprintf(os.Stderr, "graphs: %s on %s: FAILED: %v\n", name, dev, err)
			exit(1)
		}
		fmt.Printf("  %s:\n", name)
		fmt.Printf("    graphs captured       %8d\n", res.Graphs)
		fmt.Printf("    largest working set   %8.3f MiB\n", mib(res.WorkingSet))
		fmt.Printf("    device memory growth  %8.3f MiB\n", mib(res.DeviceGrowth))
		fmt.Printf("    pool reserved         %8.3f MiB\n", mib(res.PoolReserved))
		fmt.Printf("    capture, all sizes    %v\n", res.CaptureAll)
		fmt.Printf("    every replay checked: OK\n")
	}
}

func mib(n int64) float64 { return float64(n) / (1 << 20) }

// Result is what run measured.
type Result struct {
	WorkingSet      int64 // bytes of the largest batch's temporaries
	DeviceGrowth    int64 // device memory used after the captures minus before
	PoolReserved    int64 // the shared pool's reserved bytes after the captures
	CapturePerGraph time.Duration
	CaptureAll      time.Duration // capturing what replays every batch size
	Graphs          int           // graphs captured
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

// run captures one graph per batch size into a shared pool (or, with one,
// a single Batched graph), replays each size on fresh inputs and checks
// the result: the first bs rows computed, the rows past them untouched.
func run(dev *device.Device, maxBS, dim int, desc, one bool) (Result, error) {
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
	if one {
		g, err := gpuarr.Capture(s, func() error { return compute(a, b, out, maxBS, s) }, gpuarr.WithPool(pool), gpuarr.Batched(maxBS))
		if err != nil {
			return res, fmt.Errorf("capturing batch size %d: %w", maxBS, err)
		}
		graphs[0] = g
		res.Graphs = 1
	} else {
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
		res.Graphs = maxBS
	}
	res.CaptureAll = time.Since(start)
	res.CapturePerGraph = res.CaptureAll / time.Duration(res.Graphs)
	after, err := used(dev)
	if err != nil {
		return res, err
	}
	res.DeviceGrowth = after - before
	res.PoolReserved = int64(pool.Stats().ReservedBytes.Current)
	res.WorkingSet = 2 * int64(maxBS*dim*4)

	rng := rand.New(rand.NewPCG(1, 2))
	av, bv := make([]float32, maxBS*dim), make([]float32, maxBS*dim)
	sentinel := make([]float32, maxBS*dim)
	for i := range sentinel {
		sentinel[i] = -1
	}
	for i := 1; i <= maxBS; i++ {
		bs := i
		if desc {
			bs = maxBS + 1 - i
		}
		for i := range av {
			av[i], bv[i] = float32(rng.IntN(64)), float32(rng.IntN(64))
		}
		if err := a.CopyFromHost(av, gpuarr.On(s)); err != nil {
			return res, err
		}
		if err := b.CopyFromHost(bv, gpuarr.On(s)); err != nil {
			return res, err
		}
		if err := out.CopyFromHost(sentinel, gpuarr.On(s)); err != nil {
			return res, err
		}
		if one {
			err = graphs[0].ReplayBatch(bs, gpuarr.On(s))
		} else {
			err = graphs[bs].Replay(gpuarr.On(s))
		}
		if err != nil {
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
		for i := bs * dim; i < len(got); i++ {
			if got[i] != -1 {
				return res, fmt.Errorf("batch size %d: out[%d] = %v past the batch, want it untouched", bs, i, got[i])
			}
		}
	}
	return res, nil
}
