package arrayhook

import (
	"github.com/gpuarr/gpuarr/device"
	"github.com/gpuarr/gpuarr/device/dtype"
	"github.com/gpuarr/gpuarr/gpuarr"
	"github.com/gpuarr/gpuarr/internal/lifetime"
	"github.com/gpuarr/gpuarr/memory"
)

// ManagedMemory is dev's managed memory for arrays, the memory arrays get
// when dev's default memory is gpuarr.UnifiedMemory, for EmptyFrom:
// memory.DefaultManaged, or with oversubscribe
// memory.DefaultManagedOversubscribing, with package gcpressure installed
// (its eager collection, reclaim ladder and host-memory account) before
// the resource is first built.
func ManagedMemory(dev *device.Device, oversubscribe bool) (memory.Resource, error) {
	return lifetime.ManagedResource(dev, oversubscribe)
}

// GPUPrefetches counts the prefetches to a device that the first GPU use
// of a managed array after a CPU access issued.
func GPUPrefetches() uint64 { return lifetime.GPUPrefetches() }

// Workspace allocates n bytes on s for a library call's workspace (a
// solver's, a BLAS's): an ordinary array, tracked like any (claim it as
// written on s, and Release it once the call is queued), in the device's
// own memory whatever its default memory (gpuarr.SetDefaultMemory): no CPU
// code reads it, and device memory never migrates.
func Workspace(call string, s *device.Stream, n int) (*gpuarr.Array[uint8], error) {
	a := new(gpuarr.Array[uint8])
	if err := handle(a).MakeScratch(call, s, []int{n}, dtype.Uint8.Elem()); err != nil {
		return nil, err
	}
	return a, nil
}
