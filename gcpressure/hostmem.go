package gcpressure

import "sync/atomic"

// HostMemory accounts for memory the runtime allocates outside the Go heap
// and outside a device's pool — pinned host buffers and managed (unified)
// memory — against the system's memory (CUDA.jl #3013): Go's GC sees only
// the small headers of such arrays, so forgotten ones would otherwise pile
// up until the system swaps or the OOM killer strikes.
//
// The allocating package calls BeforeAlloc(n) before allocating, Add(n)
// once it succeeded and Sub(n) when the memory is freed (by Release or by
// a cleanup). Pressure is Used / (Used + the system's available memory),
// the host's analogue of a device's free + live: it nears 1 when what we
// hold is most of what we could still get.
//
// The methods are safe for concurrent use and cheap: like the device
// hooks, BeforeAlloc reads /proc/meminfo (and the cgroup) only after a
// share of the limit has been announced, or when the estimate says a
// collection may be due.
type HostMemory struct {
	c    *Collector
	sys  func() (SystemMemory, error)
	used atomic.Uint64
	g    *gauge
}

// Host returns the process's host-memory account, sharing the process's
// collector (and so its time budget) with the devices.
func Host() *HostMemory { return process().host }

func newHostMemory(c *Collector, sys func() (SystemMemory, error)) *HostMemory {
	h := &HostMemory{c: c, sys: sys}
	h.g = newGauge(h.Reading)
	return h
}

// Add counts n bytes of host or managed memory as allocated.
func (h *HostMemory) Add(n uint64) { h.used.Add(n) }

// Sub counts n bytes as freed.
func (h *HostMemory) Sub(n uint64) { h.used.Add(-n) }

// Used is the bytes counted now.
func (h *HostMemory) Used() uint64 { return h.used.Load() }

// Reading measures the pressure now: live is Used, the limit Used plus the
// system's available memory. Without a readable system it has no limit
// (pressure 0).
func (h *HostMemory) Reading() Reading {
	used := h.used.Load()
	sm, err := h.sys()
	if err != nil {
		return Reading{Live: used}
	}
	return Reading{Live: used, Limit: used + sm.Available}
}

// BeforeAlloc announces n bytes about to be allocated and collects garbage
// when the pressure and the time budget call for it. It reports whether a
// collection ran.
func (h *HostMemory) BeforeAlloc(n uint64) bool { return h.g.check(h.c, n, false) }
