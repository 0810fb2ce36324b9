package unified

import (
	"github.com/gpuarr/gpuarr/device"
	"github.com/gpuarr/gpuarr/gcpressure"
	"github.com/gpuarr/gpuarr/internal/arrayhook"
	"github.com/gpuarr/gpuarr/memory"
)

// Managed and pinned memory is system memory as well as device memory
// (managed pages live on the host until the GPU touches them; pinned pages
// are locked in RAM). Both are charged to gcpressure's host-memory account
// so that eager collection sees them: managed memory by the resource it
// comes from (memory.DefaultManaged, whose account internal/lifetime
// installs), pinned memory here.

// chargeHost lets eager collection see the pressure first, then charges n
// bytes or refuses them (gcpressure.ErrHostMemory) when the system would be
// left short.
func chargeHost(n uint64) error { return gcpressure.ChargeHost(n) }

func unchargeHost(n uint64) { gcpressure.ReleaseHost(n) }

// managedResource is dev's managed memory for arrays, shared by every
// unified array of dev and by every array gpuarr allocates while dev's
// default memory is gpuarr.UnifiedMemory: memory.DefaultManaged (a caching
// pool that refuses to oversubscribe), or with oversub
// memory.DefaultManagedOversubscribing (uncached, no refusal).
func managedResource(dev *device.Device, oversub bool) (memory.Resource, error) {
	return arrayhook.ManagedMemory(dev, oversub)
}

// isManagedResource reports whether r is one of dev's managed-memory
// resources.
func isManagedResource(dev *device.Device, r memory.Resource) bool {
	return memory.IsDefaultManaged(dev, r)
}
