package gcpressure

import (
	"sync/atomic"

	"github.com/gpuarr/gpuarr/device"
	"github.com/gpuarr/gpuarr/internal/cowmap"
	"github.com/gpuarr/gpuarr/memory"
)

// BeforeAlloc is the eager path's hook on allocation: the array layer calls
// it before allocating n bytes on dev. It collects garbage when dev's
// pressure and the time budget call for it (see the package documentation)
// and otherwise costs an atomic add and a few loads. The first call installs
// the reclaim ladder (Install).
func BeforeAlloc(dev *device.Device, n uint64) { process().beforeAlloc(dev, n, false) }

// BeforeBlockingWait is the eager path's hook before the CPU waits for dev
// (a stream or event synchronization, a copy to the host): the threshold
// is lower and the budget larger, since the caller is about to idle anyway.
func BeforeBlockingWait(dev *device.Device) { process().beforeAlloc(dev, 0, true) }

// deviceReading measures dev's default resource: live is its allocated
// bytes; the limit is its hard limit, else its soft limit, else the
// driver's free memory plus what the resource holds (reserved bytes: its
// cached memory is as available to arrays as the driver's free memory,
// which CUDA.jl's free + live would count as used).
func deviceReading(dev *device.Device) reading {
	res, err := memory.Default(dev)
	if err != nil {
		return reading{}
	}
	st := res.Stats()
	r := reading{Live: st.AllocatedBytes.Current}
	switch {
	case st.HardLimit > 0:
		r.Limit = st.HardLimit
	case st.SoftLimit > 0:
		r.Limit = st.SoftLimit
	default:
		if free, _, err := dev.MemInfo(); err == nil {
			r.Limit = free + max(st.ReservedBytes.Current, r.Live)
		}
	}
	return r
}

// gauges holds one gauge per device, in a copy-on-write map so that the
// hot path finds its device without a lock; first short-cuts the common
// case of one device (it is never replaced, so devices that take turns do
// not write it back and forth).
type gauges struct {
	m     cowmap.Map[*device.Device, *gauge]
	first atomic.Pointer[deviceGauge]
	read  func(*device.Device) reading
}

type deviceGauge struct {
	dev *device.Device
	g   *gauge
}

func (gs *gauges) of(dev *device.Device) *gauge {
	if f := gs.first.Load(); f != nil && f.dev == dev {
		return f.g
	}
	if g, ok := gs.m.Load(dev); ok {
		return g
	}
	g, _, _ := gs.m.LoadOrCreate(dev, func() (*gauge, error) {
		g := newGauge(func() reading { return gs.read(dev) })
		gs.first.CompareAndSwap(nil, &deviceGauge{dev, g})
		return g, nil
	})
	return g
}
