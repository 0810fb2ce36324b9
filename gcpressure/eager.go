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

// deviceReading measures dev's default resource and its managed memory
// (memory.DefaultManaged, package unified's arrays): live is the bytes
// allocated from both; the limit is the hard limit (which both count
// against), else the soft limit, else the driver's free memory plus what
// the resource holds (reserved bytes: its cached memory is as available to
// arrays as the driver's free memory, which CUDA.jl's free + live would
// count as used) plus the managed bytes the driver counts as used
// (memory.ManagedUse). Managed bytes not resident on the device count as
// live but not as available: they need device memory once they migrate
// there, which is also what package unified's refusal to oversubscribe
// holds them to.
func deviceReading(dev *device.Device) reading {
	res, err := memory.Default(dev)
	if err != nil {
		return reading{}
	}
	st := res.Stats()
	var managed uint64
	var r reading
	switch {
	case st.HardLimit > 0:
		r.Limit = st.HardLimit
		managed, _ = memory.ManagedUse(dev, 0, 0)
	case st.SoftLimit > 0:
		r.Limit = st.SoftLimit
		managed, _ = memory.ManagedUse(dev, 0, 0)
	default:
		free, total, err := dev.MemInfo()
		if err != nil {
			managed, _ = memory.ManagedUse(dev, 0, 0)
			break
		}
		var resident uint64
		managed, resident = memory.ManagedUse(dev, free, total)
		r.Limit = free + max(st.ReservedBytes.Current, st.AllocatedBytes.Current) + resident
	}
	r.Live = st.AllocatedBytes.Current + managed
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
