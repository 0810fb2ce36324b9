package gcpressure

import (
	"sync"

	"github.com/gpuarr/gpuarr/device"
	"github.com/gpuarr/gpuarr/memory"
)

// runtimeState is everything the package does for one process: one
// collector (the GC is process-wide), the ladder, and the gauges that
// estimate each device's and the host's pressure. Tests build their own.
type runtimeState struct {
	err       error // from DefaultConfig
	collector *Collector
	reclaimer *Reclaimer
	devices   gauges
	host      *HostMemory

	global      bool // the process's own state, which installs its ladder
	installOnce sync.Once
}

func newRuntime(cfg Config, readDevice func(*device.Device) Reading, live func(*device.Device) uint64, sys func() (SystemMemory, error)) *runtimeState {
	c := NewCollector(cfg)
	rt := &runtimeState{collector: c, reclaimer: NewReclaimer(c, live)}
	rt.devices.read = readDevice
	rt.host = newHostMemory(c, sys)
	return rt
}

var proc struct {
	once sync.Once
	rt   *runtimeState
}

// process is the process's state, built from the environment on first use.
func process() *runtimeState {
	proc.once.Do(func() {
		// A malformed GPUARR_GC_EARLY keeps the documented defaults; Install
		// reports it.
		cfg, err := DefaultConfig()
		proc.rt = newRuntime(cfg, DeviceReading, defaultLive, ReadSystemMemory)
		proc.rt.err, proc.rt.global = err, true
	})
	return proc.rt
}

// Install makes the reclaim ladder the allocator's process-wide Reclaimer
// (memory.SetReclaimer), once; the first BeforeAlloc or
// BeforeBlockingWait does it too. A reclaimer set with memory.SetReclaimer
// afterwards replaces it. The error is a malformed GPUARR_GC_EARLY (the
// documented defaults apply meanwhile), reported on every call.
func Install() error {
	rt := process()
	rt.install()
	return rt.err
}

func (rt *runtimeState) install() {
	if rt.global {
		rt.installOnce.Do(func() { memory.SetReclaimer(rt.reclaimer) })
	}
}

func (rt *runtimeState) beforeAlloc(dev *device.Device, n uint64, blocking bool) bool {
	rt.install()
	if !blocking {
		rt.reclaimer.Hold(dev, 2*rt.reclaimer.wait)
	}
	return rt.devices.of(dev).check(rt.collector, n, blocking)
}

// Stats returns what eager collection and the reclaim ladder have done in
// this process so far.
func Stats() Totals { return process().stats() }

func (rt *runtimeState) stats() Totals {
	return Totals{Eager: rt.collector.Counters(), Reclaim: rt.reclaimer.Counters()}
}

// SetEager turns the process's eager collection on or off, overriding
// GPUARR_GC_EARLY, and returns the previous setting. The reclaim ladder
// runs either way.
func SetEager(on bool) (was bool) { return process().collector.SetEnabled(on) }

// Default returns the process's collector and reclaim ladder, for pools
// that name their reclaimer (memory.CachingOptions.Reclaimer) and for
// callers that want the policy itself.
func Default() (*Collector, *Reclaimer) {
	rt := process()
	return rt.collector, rt.reclaimer
}

// WaitIdle returns when no collection is in flight, so that Stats taken
// afterwards include every collection started so far (background ones
// finish after the allocation that started them).
func WaitIdle() { process().collector.Wait() }
