//go:build gpuarrbench

package main

import (
	"github.com/gpuarr/gpuarr/device"
	"github.com/gpuarr/gpuarr/device/driver"
)

type cProbe struct{ mp driver.ManagedProbe }

func (c cProbe) allocManaged(n uint64, reps int) (int64, error) {
	return c.mp.BenchAllocManagedC(n, reps)
}

func (c cProbe) migrate(p device.Ptr, n uint64, from, to device.Location, s *device.Stream) (int64, error) {
	return c.mp.BenchMigrateC(p, n, from, to, s.Driver())
}

// managedProbe is dev's C reference, or nil on a backend without one.
func managedProbe(dev *device.Device) probe {
	if mp, ok := dev.Driver().(driver.ManagedProbe); ok {
		return cProbe{mp}
	}
	return nil
}
