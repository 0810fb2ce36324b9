//go:build gpuarrbench

package main

import (
	"github.com/gpuarr/gpuarr/device"
	"github.com/gpuarr/gpuarr/device/driver"
)

// launchLoop returns the backend's C launch loop for s (driver.LaunchProbe),
// or nil when its backend has none.
func launchLoop(s *device.Stream) func(f driver.Function, grid, block driver.Dim3, sharedBytes uint32, args *driver.Args, n int) (int64, error) {
	lp, ok := s.Driver().(driver.LaunchProbe)
	if !ok {
		return nil
	}
	return lp.BenchLaunchC
}
