package memory

import (
	"github.com/gpuarr/gpuarr/device"
)

// Pressure is told of each allocation from a default resource before it
// happens, so that it can collect garbage first when memory runs short
// (package gcpressure's eager collection: unreachable arrays give their
// memory back before the allocation needs it). It must return quickly
// when there is nothing to do, and must not allocate from the resource.
type Pressure interface {
	BeforeAlloc(dev *device.Device, n uint64)
}

var pressureHook hook[Pressure]

// SetPressure installs the process-wide Pressure that the default
// resources (Default, DefaultManaged) call, and returns the previous one.
// nil removes it. Package gcpressure installs its own with its reclaimer.
func SetPressure(p Pressure) (previous Pressure) { return pressureHook.swap(p) }

// announce tells the process-wide Pressure of an allocation of n bytes on
// dev about to be made. The caller holds no lock.
func announce(dev *device.Device, n uint64) {
	if p := pressureHook.load(); p != nil {
		p.BeforeAlloc(dev, n)
	}
}

// pressured is the adaptor that announces each allocation of a resource
// without a caching pool on top (the default resource of the cuda and none
// kinds, DefaultManaged's).
type pressured struct{ upstream }

func (r *pressured) Alloc(s *device.Stream, n uint64) (*Block, error) {
	announce(r.Device(), n)
	return r.Resource.Alloc(s, n)
}
