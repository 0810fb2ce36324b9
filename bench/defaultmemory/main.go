// Command defaultmemory measures unified memory as every array's default
// memory (GPUARR_DEFAULT_MEMORY=unified, gpuarr.SetDefaultMemory) against
// device memory, side by side in one run on the default device, and
// writes defaultmemory.json (bench/report's schema):
//
//  1. allocation: alloc+free of 4 KiB, 1 MiB and 64 MiB from the managed
//     memory's caching pool (memory.DefaultManaged) against the device
//     pool's (memory.Default), in interleaved batches (target: at most 2×
//     the device pool), and the driver's own managed allocation
//     (cuMemAllocManaged + cuMemFree in a C loop, which the pool must beat
//     by 10× or more); gpuarr.Empty + Release under each default beside
//     them;
//  2. a + b on 2²⁸ float32 (Eval, the result released each time, so it
//     comes from the pool): every array in unified memory by default
//     against every array in device memory, interleaved, the CPU touching
//     none of them (target: at least 0.95× device memory's throughput);
//  3. a CPU read after a GPU write of a 1 GiB unified array: the first
//     access (unified.Host: the prefetch to the CPU and the one wait)
//     against the driver's own migration of the same bytes
//     (cuMemPrefetchAsync to the CPU + cuStreamSynchronize, timed in C on
//     the same memory), and the first pass (the access and a read of every
//     element) against that migration plus the same read of the resident
//     memory (targets: at most 1.1× each); CopyToHost of a device array
//     of the same size into pinned memory beside them.
//
// The training loop with the unified default is bench/train's
// "eager (unified)" variant (bench/gpu/run.sh runs it in every round;
// train-summary.json judges it against eager on device memory).
//
//	go run -tags gpuarrbench ./bench/defaultmemory -out bench/results
//
// The C references exist only in builds with -tags gpuarrbench on the CUDA
// backend; on the host backend the sizes shrink and the figures only show
// that the program runs.
package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"runtime"
	"time"
	"unsafe"

	"github.com/gpuarr/gpuarr/bench/report"
	"github.com/gpuarr/gpuarr/device"
	"github.com/gpuarr/gpuarr/gpuarr"
	"github.com/gpuarr/gpuarr/internal/arrayhook"
	"github.com/gpuarr/gpuarr/memory"
	"github.com/gpuarr/gpuarr/unified"
)

var (
	labelKeys  = []string{"path"}
	metricKeys = []string{"p50_ns", "p99_ns", "min_ns", "gb_s", "vs_ref", "vs_ref_mean"}
)

// The targets of issue 33.
const (
	targetPoolVsDevice  = 2.0  // managed pool alloc+free ≤ this × the device pool's
	targetRawVsPool     = 10.0 // the driver's managed alloc+free ≥ this × the managed pool's
	targetAddVsDevice   = 0.95 // a + b throughput under the unified default ≥ this × device memory's
	targetMigrateVsC    = 1.1  // the first CPU access (and pass) ≤ this × the driver's migration (and read)
	allocRawRepsGPU     = 20   // raw managed alloc+free pairs timed per size
	allocBatchesDefault = 40
)

type config struct {
	batches, batch, reps int
	migrationReps        int
}

func main() {
	out := flag.String("out", "", "directory for defaultmemory.json (none: print only)")
	cfg := config{}
	flag.IntVar(&cfg.batches, "batches", allocBatchesDefault, "timed batches per allocation case")
	flag.IntVar(&cfg.batch, "batch", 500, "alloc+free pairs per batch")
	flag.IntVar(&cfg.reps, "reps", 20, "repetitions of the a + b case")
	flag.IntVar(&cfg.migrationReps, "migration-reps", 40, "rounds of the CPU read case (each path goes first in half of them)")
	flag.Parse()
	if err := run(*out, cfg); err != nil {
		fmt.Fprintln(os.Stderr, "defaultmemory:", err)
		os.Exit(1)
	}
}

func run(outDir string, cfg config) error {
	dev, err := device.Default()
	if err != nil {
		return err
	}
	if !dev.Info().ManagedMemory {
		return fmt.Errorf("%s has no managed memory", dev)
	}
	was, err := gpuarr.DefaultMemory(dev)
	if err != nil {
		return err
	}
	defer gpuarr.SetDefaultMemory(dev, was)
	gpu := dev.Backend() == "cuda"
	rep := report.New("defaultmemory", dev.Name(), dev.Backend(), dev.DriverVersion())
	probe := managedProbe(dev)
	addN, migBytes := 1<<28, uint64(1<<30)
	if !gpu {
		addN, migBytes = 1<<22, 64<<20
	}
	steps := []func() error{
		func() error { return benchAlloc(rep, dev, cfg, probe) },
		func() error { return benchAdd(rep, dev, addN, cfg.reps) },
		func() error { return benchMigration(rep, dev, migBytes, cfg.migrationReps, probe) },
	}
	for _, f := range steps {
		if err := f(); err != nil {
			return err
		}
	}
	if probe == nil {
		rep.Note("No C reference on this build or backend (the probes are CUDA's, with -tags gpuarrbench): the raw managed allocation is timed through the device API, and the migration rows have no reference.")
	}
	rep.Note("The training loop under the unified default is bench/train's eager (unified) variant: see train-summary.json.")
	rep.Note("%s, GOMAXPROCS %d, device %s; concurrent managed access: %v.", runtime.Version(), runtime.GOMAXPROCS(0), dev, dev.ConcurrentManagedAccess())
	if !gpu {
		rep.Note("Measured on the %s backend with smaller sizes: the figures show that the program runs, not what a GPU does.", dev.Backend())
	}
	rep.Markdown(os.Stdout, labelKeys, metricKeys)
	return rep.WriteJSON(outDir)
}

func add(rep *report.Report, name, path string, samples []float64, extra map[string]float64) report.Summary {
	s := report.Summarize(append([]float64(nil), samples...))
	m := map[string]float64{"p50_ns": s.P50, "p99_ns": s.P99, "min_ns": s.Min, "mean_ns": s.Mean}
	for k, v := range extra {
		m[k] = v
	}
	rep.Add(name, map[string]string{"path": path}, m)
	return s
}

// probe is the backend's C reference for managed memory (managedProbe:
// nil without one): the driver's own allocation and migration costs.
type probe interface {
	allocManaged(n uint64, reps int) (int64, error)
	migrate(p device.Ptr, n uint64, from, to device.Location, s *device.Stream) (int64, error)
}

// firstErr keeps the first error of calls whose results a timed loop
// cannot check one by one.
type firstErr struct{ err error }

func (f *firstErr) keep(err error) {
	if err != nil && f.err == nil {
		f.err = err
	}
}

// interleave runs each path once per round, the first path rotating.
func interleave(rounds int, paths ...func()) {
	for i := range rounds {
		for j := range paths {
			paths[(i+j)%len(paths)]()
		}
	}
}

func benchAlloc(rep *report.Report, dev *device.Device, cfg config, probe probe) error {
	dres, err := memory.Default(dev)
	if err != nil {
		return err
	}
	mres, err := arrayhook.ManagedMemory(dev, false)
	if err != nil {
		return err
	}
	s := dev.DefaultStream()
	var fe firstErr
	pair := func(r memory.Resource, n uint64) func() {
		return func() {
			b, err := r.Alloc(s, n)
			fe.keep(err)
			if err == nil {
				fe.keep(r.Free(b))
			}
		}
	}
	array := func(m gpuarr.Memory, n uint64) func() {
		return func() {
			fe.keep(gpuarr.SetDefaultMemory(dev, m))
			a, err := gpuarr.Empty[byte](gpuarr.Shape{int(n)})
			fe.keep(err)
			if err == nil {
				fe.keep(a.Release())
			}
		}
	}
	for _, n := range []uint64{4 << 10, 1 << 20, 64 << 20} {
		name := fmt.Sprintf("alloc+free of %s", memory.FormatBytes(n))
		onDev, onMgd := pair(dres, n), pair(mres, n)
		arrDev, arrMgd := array(gpuarr.DeviceMemory, n), array(gpuarr.UnifiedMemory, n)
		for _, f := range []func(){onDev, onMgd, arrDev, arrMgd} {
			report.TimeBatches(5, cfg.batch, f) // warm up: the pools obtain their segments
		}
		var d, m, ad, am []float64
		interleave(cfg.batches,
			func() { d = append(d, report.TimeBatches(1, cfg.batch, onDev)...) },
			func() { m = append(m, report.TimeBatches(1, cfg.batch, onMgd)...) },
			func() { ad = append(ad, report.TimeBatches(1, cfg.batch, arrDev)...) },
			func() { am = append(am, report.TimeBatches(1, cfg.batch, arrMgd)...) })
		if fe.err != nil {
			return fe.err
		}
		raw, rawPath, err := rawManaged(dev, probe, n)
		if err != nil {
			return err
		}
		ds := add(rep, name, "device pool (memory.Default Alloc + Free)", d, nil)
		ms := add(rep, name, "managed pool (memory.DefaultManaged Alloc + Free)", m, nil)
		rep.Last().Metrics["vs_ref"] = ms.P50 / ds.P50
		rep.Last().Judge("vs_ref", report.AtMost, targetPoolVsDevice)
		rs := add(rep, name, rawPath, raw, nil)
		rep.Last().Metrics["vs_pool"] = rs.P50 / ms.P50
		rep.Last().Judge("vs_pool", report.AtLeast, targetRawVsPool)
		ads := add(rep, name, "gpuarr.Empty + Release, device memory by default", ad, nil)
		add(rep, name, "gpuarr.Empty + Release, unified memory by default", am, map[string]float64{"vs_ref": report.Summarize(append([]float64(nil), am...)).P50 / ads.P50})
	}
	rep.Note("Allocation: %d interleaved batches of %d alloc+free pairs per path on the default stream (p50 over batches, per pair); vs_ref of the managed pool is its p50 over the device pool's, vs_pool of the raw managed allocation its p50 over the managed pool's. The raw figure is %d pairs.",
		cfg.batches, cfg.batch, allocRawRepsGPU)
	return nil
}

// rawManaged times the driver's managed allocation and free of n bytes:
// in C when the backend has the probe, else through the device API.
func rawManaged(dev *device.Device, probe probe, n uint64) (samples []float64, path string, err error) {
	reps := allocRawRepsGPU
	if probe != nil {
		for range 3 {
			ns, err := probe.allocManaged(n, reps)
			if err != nil {
				return nil, "", err
			}
			samples = append(samples, float64(ns)/float64(reps))
		}
		return samples, "raw cuMemAllocManaged + cuMemFree (C loop, the reference)", nil
	}
	for range reps {
		t := time.Now()
		p, err := dev.AllocManaged(n)
		if err != nil {
			return nil, "", err
		}
		if err := dev.Free(p); err != nil {
			return nil, "", err
		}
		samples = append(samples, float64(time.Since(t).Nanoseconds()))
	}
	return samples, "raw Device.AllocManaged + Free (the reference)", nil
}

func benchAdd(rep *report.Report, dev *device.Device, n, reps int) error {
	free, _, err := dev.MemInfo()
	if err != nil {
		return err
	}
	for need := uint64(8*4) * uint64(n); need > free/2 && n > 1<<20; need = uint64(8*4) * uint64(n) {
		n /= 2
	}
	sh := gpuarr.Shape{n}
	s := dev.DefaultStream()
	inputs := func(m gpuarr.Memory) (x, y *gpuarr.Array[float32], err error) {
		if err := gpuarr.SetDefaultMemory(dev, m); err != nil {
			return nil, nil, err
		}
		if x, err = gpuarr.Full(sh, float32(1)); err != nil {
			return nil, nil, err
		}
		y, err = gpuarr.Full(sh, float32(2))
		return x, y, err
	}
	dx, dy, err := inputs(gpuarr.DeviceMemory)
	if err != nil {
		return err
	}
	defer dx.Release()
	defer dy.Release()
	ux, uy, err := inputs(gpuarr.UnifiedMemory)
	if err != nil {
		return err
	}
	defer ux.Release()
	defer uy.Release()
	var fe firstErr
	time1 := func(m gpuarr.Memory, x, y *gpuarr.Array[float32], out *[]float64) func() {
		return func() {
			fe.keep(gpuarr.SetDefaultMemory(dev, m))
			t := time.Now()
			z, err := gpuarr.Eval(gpuarr.Add(x, y))
			fe.keep(err)
			fe.keep(s.Synchronize())
			*out = append(*out, float64(time.Since(t).Nanoseconds()))
			if err == nil {
				if got, err := z.Memory(); err != nil || got != m {
					fe.keep(errors.Join(err, fmt.Errorf("a + b's result is in %v memory, want %v", got, m)))
				}
				fe.keep(z.Release())
			}
		}
	}
	var dt, ut []float64
	interleave(reps+3, time1(gpuarr.DeviceMemory, dx, dy, &dt), time1(gpuarr.UnifiedMemory, ux, uy, &ut))
	if fe.err != nil {
		return fe.err
	}
	dt, ut = dt[3:], ut[3:] // the first rounds fill the pools and load the kernel
	name := fmt.Sprintf("a + b, %d float32, result from the pool (Eval + sync + Release)", n)
	gb := func(ns float64) float64 { return float64(3*4*n) / ns }
	ds := add(rep, name, "device memory by default", dt, nil)
	rep.Last().Metrics["gb_s"] = gb(ds.P50)
	us := add(rep, name, "unified memory by default (the CPU touches nothing)", ut, nil)
	rep.Last().Metrics["gb_s"] = gb(us.P50)
	rep.Last().Metrics["vs_ref"] = ds.P50 / us.P50
	rep.Last().Judge("vs_ref", report.AtLeast, targetAddVsDevice)
	rep.Note("a + b: %d interleaved rounds after 3 of warm-up; vs_ref is the device-memory time over the unified time at the median (throughput ratio).", reps)
	if n != 1<<28 {
		rep.Note("a + b ran on %d elements (2²⁸ needs more free memory than this device had, or the host backend).", n)
	}
	return nil
}

func benchMigration(rep *report.Report, dev *device.Device, nbytes uint64, reps int, probe probe) error {
	free, _, err := dev.MemInfo()
	if err != nil {
		return err
	}
	for nbytes*3 > free/2 && nbytes > 16<<20 {
		nbytes /= 2
	}
	n := int(nbytes / 4)
	s := dev.DefaultStream()
	if err := gpuarr.SetDefaultMemory(dev, gpuarr.UnifiedMemory); err != nil {
		return err
	}
	u, err := gpuarr.Zeros[float32](gpuarr.Shape{n})
	if err != nil {
		return err
	}
	defer u.Release()
	if err := gpuarr.SetDefaultMemory(dev, gpuarr.DeviceMemory); err != nil {
		return err
	}
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
	var access, pass, cMigrate, resident, copyPinned []float64
	pf0, gf0 := unified.CPUPrefetches(), unified.GPUPrefetches()
	// write has a kernel write v to every element of u (its pages on the
	// device) and waits for it.
	write := func(v float32) error {
		if err := gpuarr.EvalInto(u, gpuarr.Scalar(v)); err != nil {
			return err
		}
		return s.Synchronize()
	}
	// ours times the first CPU access after a GPU write and the first pass
	// (the access and a read of every element).
	ours := func(v float32) (ta, tp time.Duration, err error) {
		if err := write(v); err != nil {
			return 0, 0, err
		}
		t := time.Now()
		view, err := unified.Host(u)
		if err != nil {
			return 0, 0, err
		}
		ta = time.Since(t)
		sum := readAll(view.UnsafeSlice())
		tp = time.Since(t)
		if want := float64(v) * float64(n); sum != want {
			return 0, 0, fmt.Errorf("the first CPU pass summed %v, want %v", sum, want)
		}
		return ta, tp, nil
	}
	// driver times the driver's own migration of the same memory (moved to
	// the device and back to the CPU, in C) and then the same read of the
	// resident memory; u must be clean for the CPU when it starts.
	driverRef := func(v float32) (cns int64, tr time.Duration, err error) {
		if probe != nil {
			if cns, err = probe.migrate(arrayhook.DevicePtr(u), nbytes, device.LocationOf(dev), device.HostLocation, s); err != nil {
				return 0, 0, err
			}
		}
		view, err := unified.Host(u) // clean: no wait, no prefetch
		if err != nil {
			return 0, 0, err
		}
		t := time.Now()
		sum := readAll(view.UnsafeSlice())
		tr = time.Since(t)
		if want := float64(v) * float64(n); sum != want {
			return 0, 0, fmt.Errorf("the resident read summed %v, want %v", sum, want)
		}
		return cns, tr, nil
	}
	for r := range reps + 2 {
		v := float32(r + 1)
		// The two paths take turns going first, so that neither always
		// reads right after the other's pass.
		var (
			ta, tp, tr time.Duration
			cns        int64
			err        error
		)
		if r%2 == 0 {
			if ta, tp, err = ours(v); err != nil {
				return err
			}
			if cns, tr, err = driverRef(v); err != nil {
				return err
			}
		} else {
			// The driver's turn first: a GPU write, then an untimed
			// access, so that u is clean for the CPU as driverRef needs.
			if err := write(v); err != nil {
				return err
			}
			if _, err := unified.Host(u); err != nil {
				return err
			}
			if cns, tr, err = driverRef(v); err != nil {
				return err
			}
			if ta, tp, err = ours(v); err != nil {
				return err
			}
		}
		// CopyToHost of a device array into pinned memory.
		if err := gpuarr.EvalInto(d, gpuarr.Scalar(v)); err != nil {
			return err
		}
		if err := s.Synchronize(); err != nil {
			return err
		}
		t := time.Now()
		if err := d.CopyToHost(pinned); err != nil {
			return err
		}
		tc := time.Since(t)
		if pinned[n-1] != v {
			return fmt.Errorf("CopyToHost read %v, want %v", pinned[n-1], v)
		}
		if r < 2 {
			continue // warm-up: one round in each order
		}
		access = append(access, float64(ta.Nanoseconds()))
		pass = append(pass, float64(tp.Nanoseconds()))
		resident = append(resident, float64(tr.Nanoseconds()))
		copyPinned = append(copyPinned, float64(tc.Nanoseconds()))
		if probe != nil {
			cMigrate = append(cMigrate, float64(cns))
		}
	}
	name := fmt.Sprintf("CPU read of %s a kernel just wrote, unified by default", memory.FormatBytes(nbytes))
	gb := func(ns float64) float64 { return float64(nbytes) / ns }
	var cs report.Summary
	if probe != nil {
		cs = add(rep, name, "the driver's migration to the CPU (cuMemPrefetchAsync + cuStreamSynchronize, C)", cMigrate, nil)
		rep.Last().Metrics["gb_s"] = gb(cs.P50)
	}
	as := add(rep, name, "first access: unified.Host (prefetch to the CPU + the one wait)", access, nil)
	rep.Last().Metrics["gb_s"] = gb(as.P50)
	if probe != nil {
		rep.Last().Metrics["vs_ref"] = as.P50 / cs.P50
		rep.Last().Metrics["vs_ref_mean"] = as.Mean / cs.Mean
		rep.Last().Judge("vs_ref", report.AtMost, targetMigrateVsC)
	}
	rs := add(rep, name, "a read of every element of the resident memory (after the migration)", resident, nil)
	rep.Last().Metrics["gb_s"] = gb(rs.P50)
	ps := add(rep, name, "first pass: unified.Host + a read of every element", pass, nil)
	rep.Last().Metrics["gb_s"] = gb(ps.P50)
	if probe != nil {
		ref := make([]float64, len(cMigrate))
		for i := range ref {
			ref[i] = cMigrate[i] + resident[i]
		}
		refs := add(rep, name, "the driver's migration + the read of the resident memory (reference of the first pass)", ref, nil)
		rep.Last().Metrics["gb_s"] = gb(refs.P50)
		rep.Rows[len(rep.Rows)-2].Metrics["vs_ref"] = ps.P50 / refs.P50
		rep.Rows[len(rep.Rows)-2].Metrics["vs_ref_mean"] = ps.Mean / refs.Mean
		rep.Rows[len(rep.Rows)-2].Judge("vs_ref", report.AtMost, targetMigrateVsC)
	}
	cps := add(rep, name, "device array: CopyToHost into pinned memory", copyPinned, nil)
	rep.Last().Metrics["gb_s"] = gb(cps.P50)
	rep.Note("CPU read: %d rounds after two of warm-up, ours and the driver's reference taking turns to go first; before ours a kernel writes the array (its first GPU use after a CPU pass prefetched it back to the device: %d GPU prefetches in all), "+
		"then the first access prefetched it to the CPU on the writer's stream before its one wait (%d CPU prefetches in all); vs_ref_mean is the same ratio of means.",
		reps, unified.GPUPrefetches()-gf0, unified.CPUPrefetches()-pf0)
	if nbytes != 1<<30 {
		rep.Note("The CPU read ran on %s, not 1 GiB (free memory or the host backend).", memory.FormatBytes(nbytes))
	}
	return nil
}

// readAll reads every element of s, summing into eight independent
// accumulators so that memory bandwidth, not the latency of one add
// chain, bounds it (float32 values summed in float64: exact here).
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
