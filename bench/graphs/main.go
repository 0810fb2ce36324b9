// Command graphs measures graphs with constant memory: the seed scenario
// (one graph per batch size 1…128 of a·a + b·2 over rows of 1024 float32,
// all sharing one private pool) captured in ascending and descending order,
// with the device memory it costs (MemInfo before and after) and the pool's
// reserved bytes; the host cost of replaying a 20-operation chain of small
// elementwise ops against issuing the same operations eagerly; and the
// capture time per batch size. The seed scenario runs twice more in
// one-graph mode: one graph captured for the largest batch with
// gpuarr.Batched and replayed for every size with ReplayBatch (its kernel
// nodes resized in place), so the table shows one-graph mode next to a
// graph per size and PyTorch. bench/peer/graphs_peers.py runs the same
// program with PyTorch.
//
//	go run ./bench/graphs -out bench/results
package main

import (
	"flag"
	"fmt"
	"os"
	"runtime"
	"time"

	"github.com/gpuarr/gpuarr/bench/report"
	"github.com/gpuarr/gpuarr/device"
	"github.com/gpuarr/gpuarr/gpuarr"
)

const (
	maxBatch  = 128
	rowLen    = 1024
	chainOps  = 20
	chainLen  = 1024 // elements per chain operation
	granule   = 2 << 20
	mibFactor = 1.0 / (1 << 20)
)

var labelKeys = []string{"scenario", "order", "upstream"}
var metricKeys = []string{"working_set_mib", "device_growth_mib", "pool_reserved_mib", "capture_us_per_size",
	"p50_ns", "p99_ns", "ratio_eager_vs_replay", "graphs", "capture_us_total", "resize_replay_us"}

func main() {
	out := flag.String("out", "", "directory for graphs.json (none: print only)")
	batches := flag.Int("batches", 200, "timed batches of the chain")
	batch := flag.Int("batch", 20, "chains per batch")
	flag.Parse()
	if err := run(*out, *batches, *batch); err != nil {
		fmt.Fprintln(os.Stderr, "graphs:", err)
		os.Exit(1)
	}
}

func run(outDir string, batches, batch int) error {
	dev, err := device.Default()
	if err != nil {
		return err
	}
	rep := report.New("graphs", dev.Name(), dev.Backend(), dev.DriverVersion())
	for _, one := range []bool{false, true} {
		for _, desc := range []bool{false, true} {
			if err := seed(rep, dev, desc, one); err != nil {
				return err
			}
		}
	}
	if err := chain(rep, dev, batches, batch); err != nil {
		return err
	}
	rep.Note("Seed: one graph per batch size 1..%d of a*a + b*2 over rows of %d float32, sharing one GraphPool, on one stream; "+
		"device growth is MemInfo's used bytes after the captures minus before (other processes on the GPU show up in it). "+
		"Target: pool reserved <= the largest working set rounded up to one 2 MiB granule. "+
		"One graph: captured once for batch %d with gpuarr.Batched and replayed for every size with ReplayBatch "+
		"(order: the replay order; its kernel nodes are resized in place before each replay, resize_replay_us is "+
		"that replay's host time); capture_us_per_size is its one capture divided by %d sizes.", maxBatch, rowLen, maxBatch, maxBatch)
	rep.Note("Chain: %d dependent elementwise ops (EvalInto of x*1.0001 back and forth: one kernel each, as torch.mul(out=) in graphs_peers) over %d float32; host ns per chain, "+
		"issued eagerly or replayed as one graph, stream drained between batches (not timed); %d batches of %d; %s, GOMAXPROCS %d.",
		chainOps, chainLen, batches, batch, runtime.Version(), runtime.GOMAXPROCS(0))
	rep.Markdown(os.Stdout, labelKeys, metricKeys)
	return rep.WriteJSON(outDir)
}

func used(dev *device.Device) (int64, error) {
	free, total, err := dev.MemInfo()
	return int64(total) - int64(free), err
}

// compute is the seed program on the first bs rows.
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

// seed measures the seed scenario: a graph per batch size or, with one,
// one Batched graph replayed for every size (desc: replayed from the
// largest down).
func seed(rep *report.Report, dev *device.Device, desc, one bool) error {
	s, err := dev.NewStream()
	if err != nil {
		return err
	}
	defer s.Close()
	sh := gpuarr.Shape{maxBatch, rowLen}
	arrs := make([]*gpuarr.Array[float32], 3)
	for i := range arrs {
		if arrs[i], err = gpuarr.Zeros[float32](sh, gpuarr.On(s)); err != nil {
			return err
		}
		defer arrs[i].Release()
	}
	a, b, out := arrs[0], arrs[1], arrs[2]
	for bs := 1; bs <= maxBatch; bs++ { // warm-up, as the seed
		if err := compute(a, b, out, bs, s); err != nil {
			return err
		}
	}
	if err := s.Synchronize(); err != nil {
		return err
	}
	before, err := used(dev)
	if err != nil {
		return err
	}
	pool, err := gpuarr.NewGraphPool(dev)
	if err != nil {
		return err
	}
	var graphs []*gpuarr.Graph
	defer func() {
		for _, g := range graphs {
			_ = g.Close()
		}
	}()
	order := func(i int) int {
		if desc {
			return maxBatch + 1 - i
		}
		return i
	}
	start := time.Now()
	if one {
		g, err := gpuarr.Capture(s, func() error { return compute(a, b, out, maxBatch, s) }, gpuarr.WithPool(pool), gpuarr.Batched(maxBatch))
		if err != nil {
			return fmt.Errorf("one graph for batch sizes 1..%d: %w", maxBatch, err)
		}
		graphs = append(graphs, g)
	} else {
		for i := 1; i <= maxBatch; i++ {
			bs := order(i)
			g, err := gpuarr.Capture(s, func() error { return compute(a, b, out, bs, s) }, gpuarr.WithPool(pool))
			if err != nil {
				return fmt.Errorf("batch size %d: %w", bs, err)
			}
			graphs = append(graphs, g)
		}
	}
	total := time.Since(start)
	perSize := total / maxBatch
	after, err := used(dev)
	if err != nil {
		return err
	}
	// Every batch size replays once (one graph: each replay resizes its
	// nodes first, timed on the host) and the result is read.
	var resize time.Duration
	for i := 1; i <= maxBatch; i++ {
		t0 := time.Now()
		if one {
			err = graphs[0].ReplayBatch(order(i), gpuarr.On(s))
		} else {
			err = graphs[i-1].Replay(gpuarr.On(s))
		}
		resize += time.Since(t0)
		if err != nil {
			return err
		}
	}
	if _, err := out.ToSlice(); err != nil {
		return err
	}
	ws := float64(2 * maxBatch * rowLen * 4)
	dir, scenario := "ascending", "seed 1..128"
	if desc {
		dir = "descending"
	}
	metrics := map[string]float64{
		"working_set_mib":     ws * mibFactor,
		"device_growth_mib":   float64(after-before) * mibFactor,
		"pool_reserved_mib":   float64(pool.Stats().ReservedBytes.Current) * mibFactor,
		"capture_us_per_size": float64(perSize.Nanoseconds()) / 1e3,
		"capture_us_total":    float64(total.Nanoseconds()) / 1e3,
		"graphs":              float64(len(graphs)),
	}
	if one {
		scenario = "seed 1..128, one graph"
		// Host time of a replay that resizes the graph's nodes first.
		metrics["resize_replay_us"] = float64(resize.Nanoseconds()) / 1e3 / maxBatch
	}
	rep.Add("seed", map[string]string{"scenario": scenario, "order": dir, "upstream": pool.Upstream().Kind}, metrics).
		Judge("pool_reserved_mib", report.AtMost, float64((uint64(ws)+granule-1)/granule*granule)*mibFactor)
	return nil
}

// chainOnce issues the chain: x and y alternate as source and destination.
func chainOnce(x, y *gpuarr.Array[float32], s *device.Stream) error {
	src, dst := x, y
	for range chainOps {
		if err := gpuarr.EvalInto(dst, gpuarr.Mul(src, gpuarr.Scalar[float32](1.0001)), gpuarr.On(s)); err != nil {
			return err
		}
		src, dst = dst, src
	}
	return nil
}

func chain(rep *report.Report, dev *device.Device, batches, batch int) error {
	s, err := dev.NewStream()
	if err != nil {
		return err
	}
	defer s.Close()
	x, err := gpuarr.Zeros[float32](gpuarr.Shape{chainLen}, gpuarr.On(s))
	if err != nil {
		return err
	}
	defer x.Release()
	y, err := gpuarr.Zeros[float32](gpuarr.Shape{chainLen}, gpuarr.On(s))
	if err != nil {
		return err
	}
	defer y.Release()
	if err := chainOnce(x, y, s); err != nil { // compile
		return err
	}
	g, err := gpuarr.Capture(s, func() error { return chainOnce(x, y, s) })
	if err != nil {
		return err
	}
	defer g.Close()
	var firstErr error
	keep := func(err error) {
		if err != nil && firstErr == nil {
			firstErr = err
		}
	}
	eager, replay := make([]float64, 0, batches), make([]float64, 0, batches)
	for i := range 2 * batches {
		graph := i%2 == 1
		keep(s.Synchronize())
		t := time.Now()
		for range batch {
			if graph {
				keep(g.Replay(gpuarr.On(s)))
			} else {
				keep(chainOnce(x, y, s))
			}
		}
		ns := float64(time.Since(t).Nanoseconds()) / float64(batch)
		if graph {
			replay = append(replay, ns)
		} else {
			eager = append(eager, ns)
		}
	}
	keep(s.Synchronize())
	if firstErr != nil {
		return firstErr
	}
	se, sr := report.Summarize(eager), report.Summarize(replay)
	rep.Add("chain eager", map[string]string{"scenario": "20-op chain", "order": "eager"},
		map[string]float64{"p50_ns": se.P50, "p99_ns": se.P99})
	rep.Add("chain replay", map[string]string{"scenario": "20-op chain", "order": "graph replay"},
		map[string]float64{"p50_ns": sr.P50, "p99_ns": sr.P99, "ratio_eager_vs_replay": se.P50 / sr.P50})
	return nil
}
