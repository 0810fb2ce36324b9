package gcpressure

import (
	"sync"
	"sync/atomic"

	"github.com/gpuarr/gpuarr/device"
	"github.com/gpuarr/gpuarr/memory"
)

// runtimeState is everything the package does for one process: one
// collector (the GC is process-wide), the ladder, and the gauges that
// estimate each device's and the host's pressure. Tests build their own.
type runtimeState struct {
	err       error // from policyFromEnv
	collector *collector
	ladder    *ladder
	devices   gauges
	host      *hostAccount

	global      bool // the process's own state, which installs its ladder
	installOnce sync.Once
}

func newRuntime(cfg policy, readDevice func(*device.Device) reading, live func(*device.Device) uint64, sys func() (systemMemory, error)) *runtimeState {
	c := newCollector(cfg)
	rt := &runtimeState{collector: c, ladder: newLadder(c, live)}
	rt.devices.read = readDevice
	rt.host = newHostAccount(c, sys)
	return rt
}

var proc struct {
	once    sync.Once
	rt      *runtimeState
	started atomic.Bool // rt is built
}

// processStarted reports whether the process's state exists.
func processStarted() bool { return proc.started.Load() }

// process is the process's state, built from the environment on first use.
func process() *runtimeState {
	proc.once.Do(func() {
		// A malformed variable keeps its documented default; Install
		// reports it.
		cfg, err := policyFromEnv()
		proc.rt = newRuntime(cfg, deviceReading, defaultLive, currentSystemMemory)
		proc.rt.err, proc.rt.global = err, true
		proc.started.Store(true)
	})
	return proc.rt
}

// Install hooks the package into the allocator, once: the reclaim ladder
// becomes the process-wide reclaimer (memory.SetReclaimer) and eager
// collection the process-wide allocation hook (memory.SetPressure), which
// the default resources call before each allocation. The first BeforeAlloc
// or BeforeBlockingWait installs too. A reclaimer or hook set with memory's
// functions afterwards replaces this package's. The error is a malformed
// GPUARR_GC_EARLY, GPUARR_GC_BACKGROUND, GPUARR_GC_THRESHOLD,
// GPUARR_GC_BLOCKING_THRESHOLD or GPUARR_DEBUG (matching
// device.ErrBadConfig and naming each; the well-formed ones apply, the
// others keep their defaults), reported on every call. The array layer
// calls it before a device's first allocation, so a malformed variable
// fails array allocations with that error, like a malformed
// GPUARR_MEMORY_POOL.
func Install() error {
	rt := process()
	rt.install()
	return rt.err
}

func (rt *runtimeState) install() {
	if rt.global {
		rt.installOnce.Do(func() {
			memory.SetReclaimer(rt.ladder)
			memory.SetPressure(allocHook{rt})
		})
	}
}

func (rt *runtimeState) beforeAlloc(dev *device.Device, n uint64, blocking bool) bool {
	rt.install()
	return rt.check(dev, n, blocking)
}

// check is beforeAlloc once installed.
func (rt *runtimeState) check(dev *device.Device, n uint64, blocking bool) bool {
	if !blocking {
		rt.ladder.hold(dev, 2*rt.ladder.wait)
	}
	return rt.devices.of(dev).check(rt.collector, n, blocking)
}

// allocHook is eager collection as the allocator's memory.Pressure.
type allocHook struct{ rt *runtimeState }

func (h allocHook) BeforeAlloc(dev *device.Device, n uint64) { h.rt.check(dev, n, false) }

// Stats returns what eager collection and the reclaim ladder have done in
// this process so far.
func Stats() Totals { return process().stats() }

func (rt *runtimeState) stats() Totals {
	return Totals{Eager: rt.collector.snapshot(), Reclaim: rt.ladder.snapshot()}
}

// SetEager turns the process's eager collection on or off, overriding
// GPUARR_GC_EARLY, and returns the previous setting. The reclaim ladder
// runs either way.
func SetEager(on bool) (was bool) { return process().collector.setEnabled(on) }

// Eager reports whether the process's eager collection is on: as
// GPUARR_GC_EARLY says (default true) until SetEager changes it.
func Eager() bool { return process().collector.isEnabled() }

// WaitIdle returns when no collection is in flight, so that Stats taken
// afterwards include every collection started so far (background ones
// finish after the allocation that started them).
func WaitIdle() { process().collector.waitIdle() }
