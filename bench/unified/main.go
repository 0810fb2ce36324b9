// Command unified measures unified (managed) arrays on the default device,
// in one run, and writes unified.json (bench/report's schema):
//
//  1. CPU element reads of a unified array — View.At, range-over-func
//     (View.Values, View.All) and a loop over the []T view — against the
//     same loops over a plain Go slice, per element, in paired rounds with
//     the ratio a median over rounds (targets: ≤ 1.2× for At and the
//     iterators, 1.0× for the slice view); At(i) again over six code
//     placements of each loop (placements.go), since where the linker puts
//     a loop moves its speed as much as the accessor does;
//
//  2. a sequential sum over a 1024×1024 float64 unified array a kernel has
//     just written: the first pass (the prefetch to the CPU that the first
//     access queues on the writer's stream, the wait and the sum) and the
//     second, against a plain slice (targets: second
//     pass ≤ 1.1×, first pass ≤ 1.5 ms); the same passes with the array
//     advised, before the kernel writes it, to live in host memory with the
//     GPU mapping it (PreferredLocation CPU + AccessedBy GPU: CUDA's
//     placement for data the CPU consumes, not the default), and the
//     kernel's own write time in that placement against a device array;
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
	metricKeys = []string{"p50_ns", "p99_ns", "min_ns", "gb_s", "vs_ref"}
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
	if err := benchFold(rep, dev, reps); err != nil {
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

// timePair times one paired round, both loops over n elements, the uni
// loop first when swap: per element, in ns.
func timePair(n int, swap bool, plain, uni func() float64) (p, u float64) {
	pf := func() { p = perElem(1, n, plain)[0] }
	uf := func() { u = perElem(1, n, uni)[0] }
	if swap {
		uf()
		pf()
	} else {
		pf()
		uf()
	}
	return p, u
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
	view := v.UnsafeSlice() // a stays reachable and unreleased: its Release is deferred
	// Each loop reads the elements [lo, hi); the iterators have no
	// sub-range, so theirs read every element (parts 1).
	cases := []struct {
		path       string
		parts      int
		plain, uni func(lo, hi int) float64
	}{
		{"element access: At(i) vs s[i]", 4, func(lo, hi int) float64 {
			var t float64
			for i := lo; i < hi; i++ {
				t += plain[i]
			}
			return t
		}, func(lo, hi int) float64 {
			var t float64
			for i := lo; i < hi; i++ {
				t += v.At(i)
			}
			return t
		}},
		{"range-over-func: View.Values vs range s", 1, func(lo, hi int) float64 {
			var t float64
			for _, x := range plain {
				t += x
			}
			return t
		}, func(lo, hi int) float64 {
			var t float64
			for x := range v.Values() {
				t += x
			}
			return t
		}},
		{"range-over-func: View.All vs range s (position, value)", 1, func(lo, hi int) float64 {
			var t float64
			for i, x := range plain {
				t += x + float64(i)
			}
			return t
		}, func(lo, hi int) float64 {
			var t float64
			for i, x := range v.All() {
				t += x + float64(i)
			}
			return t
		}},
		{"[]T view loop vs plain slice", 4, func(lo, hi int) float64 {
			var t float64
			for _, x := range plain[lo:hi] {
				t += x
			}
			return t
		}, func(lo, hi int) float64 {
			var t float64
			for _, x := range view[lo:hi] {
				t += x
			}
			return t
		}},
	}
	targets := []float64{1.2, 1.2, 1.2, 1.0}
	// The two paths' difference is small next to the machine's noise, so
	// where the loop can take a sub-range a sample is one round over a
	// quarter of the elements (quarters in rotation: every element is read
	// as often as in reps whole passes, in the same time, so four times the
	// rounds), the paths alternate which goes first, and the ratio is the
	// median over rounds of each round's paired ratio, which a slow
	// stretch of the machine moves much less than a ratio of two medians
	// taken apart.
	for i, c := range cases {
		sink += c.plain(0, n) + c.uni(0, n) // warm up
		rounds := reps * c.parts
		p, u, ratio := make([]float64, rounds), make([]float64, rounds), make([]float64, rounds)
		for r := range rounds {
			lo, hi := (r%c.parts)*n/c.parts, (r%c.parts+1)*n/c.parts
			p[r], u[r] = timePair(hi-lo, r%2 == 1, func() float64 { return c.plain(lo, hi) }, func() float64 { return c.uni(lo, hi) })
			ratio[r] = u[r] / p[r]
		}
		name := "CPU read per element, float64 (1 Mi elements): " + c.path
		add(rep, name, "plain Go slice", p, nil)
		add(rep, name, "unified", u, nil)
		rep.Last().Metrics["vs_ref"] = report.Summarize(ratio).P50
		rep.Last().Judge("vs_ref", report.AtMost, targets[i])
	}
	benchPlacements(rep, reps, n, plain, v)
	rep.Note("CPU reads: At(i) and the []T view: %d rounds, each timing both paths over one quarter of the elements (quarters in rotation); "+
		"the iterators (no sub-range): %d rounds over every element; the order of the paths alternates between rounds, "+
		"and vs_ref is the median over rounds of the round's unified/plain ratio.", reps*4, reps)
	runtime.KeepAlive(a)
	return nil
}

// foldShape is the fold benchmark's 1024×1024 float64 unified array.
var foldShape = gpuarr.Shape{1024, 1024}

// foldPasses makes a 1024×1024 float64 unified array, applies setup to it
// (its placement, before any kernel writes it), then reps times: a kernel
// writes it (EvalInto, not waited for), the first CPU pass sums it (the
// wait, any migration and the sum, timed), the second pass sums it again
// (timed), and each (untimed here, may be nil) runs.
func foldPasses(reps int, setup func(a *gpuarr.Array[float64]) error, each func()) (first, second []float64, err error) {
	const n = 1024 * 1024
	a, err := unified.Zeros[float64](foldShape)
	if err != nil {
		return nil, nil, err
	}
	defer a.Release()
	if setup != nil {
		if err := setup(a); err != nil {
			return nil, nil, err
		}
	}
	for r := range reps {
		if err := gpuarr.EvalInto(a, gpuarr.Scalar(float64(r))); err != nil {
			return nil, nil, err
		}
		t := time.Now()
		s, err := unified.UnsafeSlice(a)
		if err != nil {
			return nil, nil, err
		}
		got := foldSum(s)
		first = append(first, float64(time.Since(t).Nanoseconds()))
		if got != float64(r)*n {
			return nil, nil, fmt.Errorf("first pass summed %v, want %v", got, float64(r)*n)
		}
		t = time.Now()
		s, err = unified.UnsafeSlice(a)
		if err != nil {
			return nil, nil, err
		}
		sink += foldSum(s)
		second = append(second, float64(time.Since(t).Nanoseconds()))
		if each != nil {
			each()
		}
	}
	return first, second, nil
}

// foldSum is the sequential fold the benchmark times.
func foldSum(s []float64) float64 {
	var t float64
	for _, x := range s {
		t += x
	}
	return t
}

// adviseForCPU is the placement CUDA recommends for data the CPU consumes:
// pages live in host memory (PreferredLocation CPU) and the GPU maps them
// (AccessedBy), so its kernel writes them over the bus and nothing
// migrates when the CPU reads.
func adviseForCPU(dev *device.Device) func(a *gpuarr.Array[float64]) error {
	return func(a *gpuarr.Array[float64]) error {
		if err := unified.Advise(a, unified.PreferredLocation(nil)); err != nil {
			return err
		}
		return unified.Advise(a, unified.AccessedBy(dev))
	}
}

func benchFold(rep *report.Report, dev *device.Device, reps int) error {
	const n = 1024 * 1024
	plain := make([]float64, n)
	var ref []float64
	pf0 := unified.CPUPrefetches()
	first, second, err := foldPasses(reps, nil, func() {
		t := time.Now()
		sink += foldSum(plain)
		ref = append(ref, float64(time.Since(t).Nanoseconds()))
	})
	if err != nil {
		return err
	}
	pf1 := unified.CPUPrefetches()
	hfirst, hsecond, err := foldPasses(reps, adviseForCPU(dev), nil)
	if err != nil {
		return err
	}
	pf2 := unified.CPUPrefetches()
	const name = "sum of a 1024×1024 float64 array a kernel just wrote"
	rs := add(rep, name, "plain Go slice", ref, nil)
	f := add(rep, name, "unified, first pass (prefetch to the CPU + sync)", first, nil)
	rep.Last().Metrics["vs_ref"] = f.P50 / rs.P50
	rep.Last().Judge("p50_ns", report.AtMost, 1.5e6)
	s := add(rep, name, "unified, second pass", second, nil)
	rep.Last().Metrics["vs_ref"] = s.P50 / rs.P50
	rep.Last().Judge("vs_ref", report.AtMost, 1.1)
	const advised = "unified, NOT the default: advised to live in host memory (PreferredLocation CPU + AccessedBy GPU)"
	hf := add(rep, name, advised+", first pass (sync, no migration)", hfirst, nil)
	rep.Rows[len(rep.Rows)-1].Metrics["vs_ref"] = hf.P50 / rs.P50
	hs := add(rep, name, advised+", second pass", hsecond, nil)
	rep.Rows[len(rep.Rows)-1].Metrics["vs_ref"] = hs.P50 / rs.P50
	rep.Note("Sum: %d of %d first passes prefetched the array to the CPU on the writer's stream before the one wait "+
		"(unified.CPUPrefetches); the second passes made no driver call.", pf1-pf0, reps)
	rep.Note("Sum, advised placement (not the default; the user opts in with unified.Advise before the kernel writes): "+
		"the pages stay in host memory and the GPU writes them over the bus, so the first CPU pass has no migration to wait for "+
		"(%d of %d first passes still queued the CPU prefetch, which finds the pages already there). "+
		"The kernel pays for it: see the write rows below.", pf2-pf1, reps)
	return benchFoldWrite(rep, dev, reps)
}

// benchFoldWrite times the fold's kernel write itself (EvalInto + wait) on a
// device array and on a unified array advised to live in host memory,
// interleaved.
func benchFoldWrite(rep *report.Report, dev *device.Device, reps int) error {
	d, err := gpuarr.Zeros[float64](foldShape)
	if err != nil {
		return err
	}
	defer d.Release()
	u, err := unified.Zeros[float64](foldShape)
	if err != nil {
		return err
	}
	defer u.Release()
	if err := adviseForCPU(dev)(u); err != nil {
		return err
	}
	write := func(a *gpuarr.Array[float64], v float64) (float64, error) {
		t := time.Now()
		if err := gpuarr.EvalInto(a, gpuarr.Scalar(v)); err != nil {
			return 0, err
		}
		if err := dev.Synchronize(); err != nil {
			return 0, err
		}
		return float64(time.Since(t).Nanoseconds()), nil
	}
	var dt, ut []float64
	for r := range reps + 3 {
		x, err := write(d, float64(r))
		if err != nil {
			return err
		}
		y, err := write(u, float64(r))
		if err != nil {
			return err
		}
		if r >= 3 { // the first writes warm up the kernel and the mapping
			dt, ut = append(dt, x), append(ut, y)
		}
	}
	const name = "the fold's kernel write, 1024×1024 float64 (EvalInto + wait)"
	ds := add(rep, name, "device array (device-resident)", dt, nil)
	us := add(rep, name, "unified, NOT the default: advised to live in host memory (GPU writes over the bus)", ut, nil)
	rep.Rows[len(rep.Rows)-1].Metrics["vs_ref"] = us.P50 / ds.P50
	rep.Note("Kernel write: in the host-memory placement the GPU writes the 8 MiB across the bus instead of into its own memory, "+
		"which makes the kernel slower on a GPU (here %.2f× the device-resident write at the median; the advised first pass above "+
		"includes waiting for that slower kernel): the placement moves the cost from the CPU's first pass to the GPU's kernel. "+
		"It suits data the CPU consumes after the GPU writes it once, not data GPU kernels keep working on.", us.P50/ds.P50)
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
	add(rep, name, "prefetched unified arrays", ut, map[string]float64{"gb_s": gb(us.P50), "vs_ref": ds.P50 / us.P50})
	rep.Last().Judge("vs_ref", report.AtLeast, 0.95)
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
		s, err := unified.UnsafeSlice(u)
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
