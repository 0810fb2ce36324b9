// Command collective measures gpuarr's collectives (NCCL on CUDA):
//
//   - one-rank all-reduce (float32, in place) from 1 MiB to 1 GiB: the
//     host time of each call (issue only) and the time per call with the
//     stream drained, medians and p99 (bench/peer/collective_peers.py
//     measures torch.distributed's one-rank NCCL all-reduce the same way);
//
//   - with two devices visible: two-rank all-reduce bus bandwidth at
//     1 MiB, 64 MiB and 1 GiB (busbw = bytes/time · 2(n−1)/n, NCCL's
//     definition), a 1 GiB peer copy (gpuarr.Copy between the devices),
//     a 1 GiB copy staged through pinned host memory (p2p.CopyStaged) and
//     the pinned D2H and H2D bandwidths it is bounded by. With one device
//     the part is skipped and the report says why.
//
//     go run ./bench/collective -out bench/results
//
// On the host backend the sizes stop at 64 MiB (-max).
package main

import (
	"flag"
	"fmt"
	"os"
	"time"
	"unsafe"

	"github.com/gpuarr/gpuarr/bench/report"
	"github.com/gpuarr/gpuarr/collective"
	"github.com/gpuarr/gpuarr/device"
	"github.com/gpuarr/gpuarr/gpuarr"
	"github.com/gpuarr/gpuarr/internal/arrayhook"
	"github.com/gpuarr/gpuarr/p2p"
)

const mib = 1 << 20

func main() {
	out := flag.String("out", "", "directory for collective.json (none: print only)")
	maxBytes := flag.Int("max", 0, "largest size in bytes (0: 1 GiB on CUDA, 64 MiB on the host)")
	iters := flag.Int("iters", 50, "timed calls per size")
	flag.Parse()
	if err := run(*out, *maxBytes, *iters); err != nil {
		fmt.Fprintln(os.Stderr, "collective:", err)
		os.Exit(1)
	}
}

func run(out string, maxBytes, iters int) error {
	devs, err := device.Devices()
	if err != nil {
		return err
	}
	d0 := devs[0]
	if maxBytes == 0 {
		maxBytes = 1 << 30
		if d0.Backend() == "host" {
			maxBytes = 64 * mib
		}
	}
	rep := report.New("collective", d0.Name(), d0.Backend(), d0.DriverVersion())
	if v, err := d0.CollectiveVersion(); err == nil {
		rep.Note("NCCL version code %d", v)
		fmt.Println("NCCL version code", v)
	}
	if err := oneRank(rep, d0, maxBytes, iters); err != nil {
		return err
	}
	if len(devs) < 2 {
		msg := fmt.Sprintf("two-device part skipped: %d device visible (needs 2)", len(devs))
		fmt.Println(msg)
		rep.Note("%s", msg)
	} else if err := twoDevices(rep, devs[0], devs[1], maxBytes, iters); err != nil {
		return err
	}
	return rep.WriteJSON(out)
}

func sizes(maxBytes int) []int {
	var s []int
	for b := mib; b <= maxBytes; b *= 4 {
		s = append(s, b)
	}
	if s[len(s)-1] != maxBytes && maxBytes >= 1<<30 {
		s = append(s, 1<<30)
	}
	return s
}

func oneRank(rep *report.Report, d *device.Device, maxBytes, iters int) error {
	c, err := collective.NewComm([]*device.Device{d})
	if err != nil {
		return err
	}
	defer c.Close()
	s := d.DefaultStream()
	for _, b := range sizes(maxBytes) {
		a, err := gpuarr.Ones[float32](gpuarr.Shape{b / 4}, gpuarr.OnDevice(d))
		if err != nil {
			return err
		}
		arr := []*gpuarr.Array[float32]{a}
		for range 3 {
			if err := collective.AllReduce(c, arr, nil, collective.Sum); err != nil {
				return err
			}
		}
		if err := s.Synchronize(); err != nil {
			return err
		}
		host := make([]float64, 0, iters)
		total := make([]float64, 0, iters)
		for range iters {
			t0 := time.Now()
			if err := collective.AllReduce(c, arr, nil, collective.Sum); err != nil {
				return err
			}
			t1 := time.Now()
			if err := s.Synchronize(); err != nil {
				return err
			}
			t2 := time.Now()
			host = append(host, float64(t1.Sub(t0).Nanoseconds()))
			total = append(total, float64(t2.Sub(t0).Nanoseconds())/1e3)
		}
		h, tt := report.Summarize(host), report.Summarize(total)
		fmt.Printf("one-rank all-reduce %5d MiB: host %.0f ns (p99 %.0f), call %.1f µs (p99 %.1f)\n", b/mib, h.P50, h.P99, tt.P50, tt.P99)
		rep.Add("allreduce-1rank", map[string]string{"bytes": fmt.Sprint(b)}, map[string]float64{
			"host_ns_p50": h.P50, "host_ns_p99": h.P99, "time_us_p50": tt.P50, "time_us_p99": tt.P99})
		if err := a.Release(); err != nil {
			return err
		}
	}
	return nil
}

// timed runs fn iters times after a warm-up, draining the given streams
// after each, and returns the time per run in seconds (median, p99).
func timed(iters int, streams []*device.Stream, fn func() error) (report.Summary, error) {
	var ts []float64
	for i := range iters + 2 {
		t0 := time.Now()
		if err := fn(); err != nil {
			return report.Summary{}, err
		}
		for _, s := range streams {
			if err := s.Synchronize(); err != nil {
				return report.Summary{}, err
			}
		}
		if i >= 2 {
			ts = append(ts, time.Since(t0).Seconds())
		}
	}
	return report.Summarize(ts), nil
}

func twoDevices(rep *report.Report, d0, d1 *device.Device, maxBytes, iters int) error {
	devs := []*device.Device{d0, d1}
	streams := []*device.Stream{d0.DefaultStream(), d1.DefaultStream()}
	c, err := collective.NewComm(devs)
	if err != nil {
		return err
	}
	defer c.Close()
	for _, b := range []int{mib, 64 * mib, 1 << 30} {
		if b > maxBytes {
			continue
		}
		arr := make([]*gpuarr.Array[float32], 2)
		for i, d := range devs {
			if arr[i], err = gpuarr.Ones[float32](gpuarr.Shape{b / 4}, gpuarr.OnDevice(d)); err != nil {
				return err
			}
		}
		sm, err := timed(min(iters, 20), streams, func() error { return collective.AllReduce(c, arr, nil, collective.Sum) })
		if err != nil {
			return err
		}
		busbw := float64(b) / sm.P50 * 2 * (2 - 1) / 2 / 1e9
		fmt.Printf("two-rank all-reduce %5d MiB: %.1f µs, bus bandwidth %.1f GB/s\n", b/mib, sm.P50*1e6, busbw)
		rep.Add("allreduce-2rank", map[string]string{"bytes": fmt.Sprint(b)}, map[string]float64{
			"time_us_p50": sm.P50 * 1e6, "time_us_p99": sm.P99 * 1e6, "busbw_GBps": busbw})
		for _, a := range arr {
			_ = a.Release()
		}
	}
	n := min(1<<30, maxBytes)
	src, err := gpuarr.Ones[float32](gpuarr.Shape{n / 4}, gpuarr.OnDevice(d0))
	if err != nil {
		return err
	}
	defer src.Release()
	dst, err := gpuarr.Empty[float32](gpuarr.Shape{n / 4}, gpuarr.OnDevice(d1))
	if err != nil {
		return err
	}
	defer dst.Release()
	gbps := func(s report.Summary) float64 { return float64(n) / s.P50 / 1e9 }
	sm, err := timed(10, streams, func() error { return gpuarr.Copy(dst, src) })
	if err != nil {
		return err
	}
	fmt.Printf("peer copy %d MiB (%v): %.1f GB/s\n", n/mib, p2p.Route(d1, d0), gbps(sm))
	rep.Add("copy-peer", map[string]string{"bytes": fmt.Sprint(n), "route": fmt.Sprint(p2p.Route(d1, d0))},
		map[string]float64{"GBps": gbps(sm), "time_ms_p50": sm.P50 * 1e3})

	// Staged through pinned host buffers, whatever the peer matrix says.
	s0, err := d0.NewStream()
	if err != nil {
		return err
	}
	defer s0.Close()
	s1, err := d1.NewStream()
	if err != nil {
		return err
	}
	defer s1.Close()
	if err := d0.Synchronize(); err != nil {
		return err
	}
	if err := d1.Synchronize(); err != nil {
		return err
	}
	sp, dp := arrayhook.DevicePtr(src), arrayhook.DevicePtr(dst)
	sm, err = timed(5, []*device.Stream{s0, s1}, func() error { return p2p.CopyStaged(s1, dp, s0, sp, uint64(n)) })
	if err != nil {
		return err
	}
	fmt.Printf("staged copy %d MiB: %.1f GB/s\n", n/mib, gbps(sm))
	rep.Add("copy-staged", map[string]string{"bytes": fmt.Sprint(n)}, map[string]float64{"GBps": gbps(sm), "time_ms_p50": sm.P50 * 1e3})

	pinned, err := d0.AllocHost(uint64(n))
	if err != nil {
		return err
	}
	defer d0.FreeHost(pinned)
	hp := unsafe.Pointer(&pinned[0])
	sm, err = timed(5, []*device.Stream{s0}, func() error { return s0.CopyDtoH(hp, sp, uint64(n)) })
	if err != nil {
		return err
	}
	fmt.Printf("pinned D2H %d MiB: %.1f GB/s\n", n/mib, gbps(sm))
	rep.Add("copy-d2h-pinned", map[string]string{"bytes": fmt.Sprint(n)}, map[string]float64{"GBps": gbps(sm)})
	sm, err = timed(5, []*device.Stream{s0}, func() error { return s0.CopyHtoD(sp, hp, uint64(n)) })
	if err != nil {
		return err
	}
	fmt.Printf("pinned H2D %d MiB: %.1f GB/s\n", n/mib, gbps(sm))
	rep.Add("copy-h2d-pinned", map[string]string{"bytes": fmt.Sprint(n)}, map[string]float64{"GBps": gbps(sm)})
	return nil
}
