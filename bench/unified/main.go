// Command unified measures unified (managed) arrays on the default device,
// in one run, and writes unified.json (bench/report's schema):
//
//  1. CPU element reads of a unified array — View.At, range-over-func
//     (View.Values, View.All) and a loop over the []T view — against the
//     same loops over a plain Go slice, per element (targets: ≤ 1.2× for
//     At and the iterators, 1.0× for the slice view);
//
//  2. a sequential sum over a 1024×1024 float64 unified array a kernel has
//     just written: the first pass (the prefetch to the CPU that the first
//     access queues on the writer's stream, the wait and the sum) and the
//     second, against a plain slice (targets: second
//     pass ≤ 1.1×, first pass ≤ 1.5 ms); once with the default placement
//     (the kernel's writes migrate the pages to the GPU, the first pass
//     brings them back) and once host-resident (PreferredLocation CPU +
//     AccessedBy the GPU: the kernel writes host memory over the bus), with
//     the kernel's own time in each;
//
//  3. a + b on 2²⁸ float32 prefetched unified arrays against device arrays
//     (target ≥ 0.95× the device arrays' throughput);
//
//  4. migration: a GPU-written unified array read once by the CPU (the
//     first access prefetches it to the CPU in bulk), against
//     CopyToHost of a device array of the same size into pinned memory,
//     in GB/s (1 GiB when free memory allows, else smaller, noted).
//
//     go run ./bench/unified -out bench/results
//
// On the host backend the sizes shrink; the figures then only show that it runs.
package main

import (
	"flag"
	"fmt"
	"os"
	"runtime"
	"time"
	"unsafe"

	"github.com/gpuarr/gpuarr/bench/report"
	"github.com/gpuarr/gpuarr/device"
	"github.com/gpuarr/gpuarr/gpuarr"
	"github.com/gpuarr/gpuarr/unified"
)

var (
	labelKeys  = []string{"path"}
	metricKeys = []string{"p50_ns", "p99_ns", "min_ns", "gb_s", "vs_ref", "target"}
)

func main() {
	out := flag.String("out", "", "directory for unified.json (none: print only)")
	reps := flag.Int("reps", 50, "repetitions per case")
	flag.Parse()
	if err := run(*out, *reps); err != nil {
		fmt.Fprintln(os.Stderr, "unified:", err)
		os.Exit(1)
	}
}

func run(outDir string, reps int) error {
	dev, err := device.Default()
	if err != nil {
		return err
	}
	gpu := dev.Backend() == "cuda"
	rep := report.New("unified", dev.Name(), dev.Backend(), dev.DriverVersion())
	if err := benchElements(rep, reps); err != nil {
		return err
	}
	if err := benchFold(rep, reps); err != nil {
		return err
	}
	addN, migBytes := 1<<28, uint64(1<<30)
	if !gpu {
		addN, migBytes = 1<<22, 64<<20
	}
	if err := benchAdd(rep, dev, addN, reps); err != nil {
		return err
	}
	if err := benchMigration(rep, dev, migBytes, min(reps, 10)); err != nil {
		return err
	}
	rep.Note("%d repetitions per case; %s, GOMAXPROCS %d, device %s; concurrent managed access: %v.",
		reps, runtime.Version(), runtime.GOMAXPROCS(0), dev, dev.ConcurrentManagedAccess())
	if !gpu {
		rep.Note("Measured on the %s backend with smaller sizes: the figures show that the program runs, not what a GPU does.", dev.Backend())
	}
	rep.Markdown(os.Stdout, labelKeys, metricKeys)
	return rep.WriteJSON(outDir)
}

func add(rep *report.Report, name, path string, samples []float64, extra map[string]float64) report.Summary {
	s := report.Summarize(samples)
	m := map[string]float64{"p50_ns": s.P50, "p99_ns": s.P99, "min_ns": s.Min, "mean_ns": s.Mean}
	for k, v := range extra {
		m[k] = v
	}
	rep.Add(name, map[string]string{"path": path}, m)
	return s
}

var sink float64

// perElem times f over n elements, reps times, in ns per element.
func perElem(reps, n int, f func() float64) []float64 {
	out := make([]float64, reps)
	for i := range out {
		t := time.Now()
		sink += f()
		out[i] = float64(time.Since(t).Nanoseconds()) / float64(n)
	}
	return out
}

func benchElements(rep *report.Report, reps int) error {
	const n = 1 << 20
	plain := make([]float64, n)
	for i := range plain {
		plain[i] = float64(i)
	}
	a, err := unified.FromSlice(plain, gpuarr.Shape{n})
	if err != nil {
		return err
	}
	defer a.Release()
	v, err := unified.Host(a)
	if err != nil {
		return err
	}
	view := v.Slice()
	cases := []struct {
		path       string
		plain, uni func() float64
	}{
		{"element access: At(i) vs s[i]", func() float64 {
			var t float64
			for i := 0; i < n; i++ {
				t += plain[i]
			}
			return t
		}, func() float64 {
			var t float64
			for i := 0; i < n; i++ {
				t += v.At(i)
			}
			return t
		}},
		{"range-over-func: View.Values vs range s", func() float64 {
			var t float64
			for _, x := range plain {
				t += x
			}
			return t
		}, func() float64 {
			var t float64
			for x := range v.Values() {
				t += x
			}
			return t
		}},
		{"range-over-func: View.All vs range s (position, value)", func() float64 {
			var t float64
			for i, x := range plain {
				t += x + float64(i)
			}
			return t
		}, func() float64 {
			var t float64
			for i, x := range v.All() {
				t += x + float64(i)
			}
			return t
		}},
		{"[]T view loop vs plain slice", func() float64 {
			var t float64
			for _, x := range plain {
				t += x
			}
			return t
		}, func() float64 {
			var t float64
			for _, x := range view {
				t += x
			}
			return t
		}},
	}
	targets := []float64{1.2, 1.2, 1.2, 1.0}
	for i, c := range cases {
		var p, u []float64
		for range reps {
			p = append(p, perElem(1, n, c.plain)...)
			u = append(u, perElem(1, n, c.uni)...)
		}
		ps := add(rep, "CPU read per element, float64 (1 Mi elements): "+c.path, "plain Go slice", p, nil)
		us := add(rep, "CPU read per element, float64 (1 Mi elements): "+c.path, "unified", u,
			map[string]float64{"target": targets[i]})
		rep.Rows[len(rep.Rows)-1].Metrics["vs_ref"] = us.P50 / ps.P50
	}
	runtime.KeepAlive(a)
	return nil
}

// foldPlacement is where a fold's unified array lives while the kernel
// writes it: label names the rows, place advises the array before the
// writes (nil: the default placement, migrated to the GPU by its writes).
type foldPlacement struct {
	label string
	place func(a *gpuarr.Array[float64]) error
}

// The placement CUDA recommends for data the CPU consumes: pages kept in
// host memory (PreferredLocation CPU) and mapped for the GPU (AccessedBy),
// so the kernel writes them over the bus and nothing migrates.
var cpuResident = foldPlacement{label: "host-resident (PreferredLocation CPU + AccessedBy GPU)",
	place: func(a *gpuarr.Array[float64]) error {
		if err := unified.Advise(a, unified.PreferredLocation(nil)); err != nil {
			return err
		}
		return unified.Advise(a, unified.AccessedBy(a.Device()))
	}}

func benchFold(rep *report.Report, reps int) error {
	if err := foldOnce(rep, reps, foldPlacement{label: "default placement"}); err != nil {
		return err
	}
	return foldOnce(rep, reps, cpuResident)
}

// foldOnce times, reps times, a kernel writing a 1024×1024 float64 unified
// array placed as pl says, then the kernel's wait and two CPU sums of it,
// against the same sum of a plain slice.
func foldOnce(rep *report.Report, reps int, pl foldPlacement) error {
	const n = 1024 * 1024
	a, err := unified.Zeros[float64](gpuarr.Shape{1024, 1024})
	if err != nil {
		return err
	}
	defer a.Release()
	if pl.place != nil {
		if err := pl.place(a); err != nil {
			return err
		}
	}
	plain := make([]float64, n)
	var write, first, second, ref []float64
	pf0 := unified.CPUPrefetches()
	sum := func(s []float64) float64 {
		var t float64
		for _, x := range s {
			t += x
		}
		return t
	}
	dev := a.Device()
	for r := range reps {
		// The kernel alone, waited for: what the placement costs the GPU.
		t := time.Now()
		if err := gpuarr.EvalInto(a, gpuarr.Scalar(float64(r)+0.5)); err != nil {
			return err
		}
		if err := dev.DefaultStream().Synchronize(); err != nil {
			return err
		}
		write = append(write, float64(time.Since(t).Nanoseconds()))
		if err := gpuarr.EvalInto(a, gpuarr.Scalar(float64(r))); err != nil {
			return err
		}
		t = time.Now()
		s, err := unified.Slice(a)
		if err != nil {
			return err
		}
		got := sum(s)
		first = append(first, float64(time.Since(t).Nanoseconds()))
		if got != float64(r)*n {
			return fmt.Errorf("first pass summed %v, want %v", got, float64(r)*n)
		}
		t = time.Now()
		s, err = unified.Slice(a)
		if err != nil {
			return err
		}
		sink += sum(s)
		second = append(second, float64(time.Since(t).Nanoseconds()))
		t = time.Now()
		sink += sum(plain)
		ref = append(ref, float64(time.Since(t).Nanoseconds()))
	}
	name := "sum of a 1024×1024 float64 array a kernel just wrote, " + pl.label
	rs := add(rep, name, "plain Go slice", ref, nil)
	add(rep, name, "the kernel's write alone (launch + wait, untimed in the passes)", write, nil)
	f := add(rep, name, "unified, first pass (sync + migration + sum)", first, map[string]float64{"target": 1.5e6})
	rep.Rows[len(rep.Rows)-1].Metrics["vs_ref"] = f.P50 / rs.P50
	s := add(rep, name, "unified, second pass", second, map[string]float64{"target": 1.1})
	rep.Rows[len(rep.Rows)-1].Metrics["vs_ref"] = s.P50 / rs.P50
	rep.Note("Sum, %s: %d of %d first passes prefetched the array to the CPU on the writer's stream before the one wait "+
		"(unified.CPUPrefetches); the second passes made no driver call.", pl.label, unified.CPUPrefetches()-pf0, reps)
	return nil
}

func benchAdd(rep *report.Report, dev *device.Device, n, reps int) error {
	free, _, err := dev.MemInfo()
	if err != nil {
		return err
	}
	for need := uint64(6*4) * uint64(n); need > free/2 && n > 1<<20; need = uint64(6*4) * uint64(n) {
		n /= 2
	}
	sh := gpuarr.Shape{n}
	s := dev.DefaultStream()
	mk := func(uni bool) (x, y, z *gpuarr.Array[float32], err error) {
		arr := func() (*gpuarr.Array[float32], error) {
			if uni {
				a, err := unified.Zeros[float32](sh)
				if err == nil {
					err = unified.Prefetch(a, dev, s)
				}
				return a, err
			}
			return gpuarr.Zeros[float32](sh)
		}
		if x, err = arr(); err != nil {
			return
		}
		if y, err = arr(); err != nil {
			return
		}
		z, err = arr()
		return
	}
	ux, uy, uz, err := mk(true)
	if err != nil {
		return err
	}
	defer ux.Release()
	defer uy.Release()
	defer uz.Release()
	dx, dy, dz, err := mk(false)
	if err != nil {
		return err
	}
	defer dx.Release()
	defer dy.Release()
	defer dz.Release()
	time1 := func(x, y, z *gpuarr.Array[float32]) (float64, error) {
		t := time.Now()
		if err := gpuarr.EvalInto(z, gpuarr.Add[float32](x, y)); err != nil {
			return 0, err
		}
		if err := s.Synchronize(); err != nil {
			return 0, err
		}
		return float64(time.Since(t).Nanoseconds()), nil
	}
	var ut, dt []float64
	for range reps + 3 {
		u, err := time1(ux, uy, uz)
		if err != nil {
			return err
		}
		d, err := time1(dx, dy, dz)
		if err != nil {
			return err
		}
		ut, dt = append(ut, u), append(dt, d)
	}
	ut, dt = ut[3:], dt[3:]
	name := fmt.Sprintf("a + b, %d float32 (kernel + sync)", n)
	gb := func(ns float64) float64 { return float64(3*4*n) / ns }
	ds := report.Summarize(append([]float64(nil), dt...))
	us := report.Summarize(append([]float64(nil), ut...))
	add(rep, name, "device arrays", dt, map[string]float64{"gb_s": gb(ds.P50)})
	add(rep, name, "prefetched unified arrays", ut, map[string]float64{"gb_s": gb(us.P50), "vs_ref": ds.P50 / us.P50, "target": 0.95})
	if n != 1<<28 {
		rep.Note("a + b ran on %d elements (2²⁸ needs more free memory than this device had, or the host backend).", n)
	}
	return nil
}

func benchMigration(rep *report.Report, dev *device.Device, nbytes uint64, reps int) error {
	free, _, err := dev.MemInfo()
	if err != nil {
		return err
	}
	for nbytes*2 > free/2 && nbytes > 16<<20 {
		nbytes /= 2
	}
	n := int(nbytes / 4)
	u, err := unified.Zeros[float32](gpuarr.Shape{n})
	if err != nil {
		return err
	}
	defer u.Release()
	d, err := gpuarr.Zeros[float32](gpuarr.Shape{n})
	if err != nil {
		return err
	}
	defer d.Release()
	pinnedBytes, err := dev.AllocHost(nbytes)
	if err != nil {
		return err
	}
	defer dev.FreeHost(pinnedBytes)
	pinned := unsafe.Slice((*float32)(unsafe.Pointer(&pinnedBytes[0])), n)
	var ut, ct, rt []float64
	pf0 := unified.CPUPrefetches()
	for r := range reps {
		v := float32(r + 1)
		if err := gpuarr.EvalInto(u, gpuarr.Scalar(v)); err != nil {
			return err
		}
		if err := gpuarr.EvalInto(d, gpuarr.Scalar(v)); err != nil {
			return err
		}
		if err := dev.Synchronize(); err != nil {
			return err
		}
		t := time.Now()
		s, err := unified.Slice(u)
		if err != nil {
			return err
		}
		sum := readAll(s)
		ut = append(ut, float64(time.Since(t).Nanoseconds()))
		if want := float64(v) * float64(n); sum != want {
			return fmt.Errorf("the CPU read of the unified array summed %v, want %v", sum, want)
		}
		t = time.Now()
		if err := d.CopyToHost(pinned); err != nil {
			return err
		}
		ct = append(ct, float64(time.Since(t).Nanoseconds()))
		if pinned[n-1] != v {
			return fmt.Errorf("CopyToHost read %v, want %v", pinned[n-1], v)
		}
		t = time.Now()
		sink += readAll(pinned)
		rt = append(rt, float64(time.Since(t).Nanoseconds()))
	}
	name := fmt.Sprintf("migration: %d MiB written by the GPU, read once by the CPU", nbytes>>20)
	gb := func(ns float64) float64 { return float64(nbytes) / ns }
	cs := report.Summarize(append([]float64(nil), ct...))
	us := report.Summarize(append([]float64(nil), ut...))
	add(rep, name, "device array, CopyToHost into pinned memory", ct, map[string]float64{"gb_s": gb(cs.P50)})
	add(rep, name, "unified array, CPU sum in place (first access prefetches to the CPU)", ut, map[string]float64{"gb_s": gb(us.P50), "vs_ref": gb(us.P50) / gb(cs.P50)})
	rs := report.Summarize(append([]float64(nil), rt...))
	add(rep, name, "the same CPU read of resident pinned memory (the CPU's ceiling, no migration)", rt, map[string]float64{"gb_s": gb(rs.P50)})
	rep.Note("Migration: %d of %d first CPU reads prefetched the array to the CPU (unified.CPUPrefetches); "+
		"the time covers the prefetch, the wait and a CPU read of every element "+
		"(a sum with eight independent accumulators, so that memory, not the add latency, bounds it).", unified.CPUPrefetches()-pf0, reps)
	if nbytes != 1<<30 {
		rep.Note("Migration ran on %d MiB, not 1 GiB (free memory or the host backend).", nbytes>>20)
	}
	return nil
}

// readAll reads every element of s, summing into eight independent
// accumulators so that memory bandwidth, not the latency of one add chain,
// bounds it (float32 values summed in float64: exact for the test data).
func readAll(s []float32) float64 {
	var a [8]float64
	i := 0
	for ; i+8 <= len(s); i += 8 {
		b := s[i : i+8 : i+8]
		a[0] += float64(b[0])
		a[1] += float64(b[1])
		a[2] += float64(b[2])
		a[3] += float64(b[3])
		a[4] += float64(b[4])
		a[5] += float64(b[5])
		a[6] += float64(b[6])
		a[7] += float64(b[7])
	}
	for ; i < len(s); i++ {
		a[0] += float64(s[i])
	}
	return a[0] + a[1] + a[2] + a[3] + a[4] + a[5] + a[6] + a[7]
}
