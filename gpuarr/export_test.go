package gpuarr

import (
	"github.com/gpuarr/gpuarr/device"
	"github.com/gpuarr/gpuarr/internal/fusion"
	"github.com/gpuarr/gpuarr/internal/lifetime"
	"github.com/gpuarr/gpuarr/internal/tracking"
)

// Counters is a snapshot of the tracking's driver calls, for tests.
type Counters struct {
	HostSyncs, StreamWaits, EventRecords, FreeErrors, CleanupsRegistered uint64
}

// ReadCounters returns the counters now. They are process-wide: tests
// that compare them must not run in parallel with others.
func ReadCounters() Counters {
	var c Counters
	c.HostSyncs, c.StreamWaits, c.EventRecords = tracking.Counts()
	c.FreeErrors, c.CleanupsRegistered = lifetime.Counts()
	return c
}

// Sub is c - o, field by field.
func (c Counters) Sub(o Counters) Counters {
	return Counters{c.HostSyncs - o.HostSyncs, c.StreamWaits - o.StreamWaits, c.EventRecords - o.EventRecords,
		c.FreeErrors - o.FreeErrors, c.CleanupsRegistered - o.CleanupsRegistered}
}

// HoldDrainer and HoldRegistrar are lifetime's (see there).
var (
	HoldDrainer   = lifetime.HoldDrainer
	HoldRegistrar = lifetime.HoldRegistrar
)

// AddrRange is the device memory an array's buffer occupies, for tests
// that check graph memory never overlaps other work's.
func AddrRange[T Numeric](a *Array[T]) (lo, hi device.Ptr) { return a.c.Buffer().Span() }

// OverlapTemps counts evaluations computed into a temporary because an
// operand read the destination's memory unaligned (fusion's).
var OverlapTemps = fusion.OverlapTemps

// LaunchStreamOf is the stream g's pool launches its graphs on (nil before
// the first replay and after the pool drained).
func LaunchStreamOf(g *Graph) *device.Stream {
	g.pool.mu.Lock()
	defer g.pool.mu.Unlock()
	return g.pool.launch
}
