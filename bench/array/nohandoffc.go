//go:build !gpuarrbench

package main

import "github.com/gpuarr/gpuarr/device"

// cHandoff: the backends' benchmark probes, the C reference round among
// them, exist only in builds with -tags gpuarrbench.
func cHandoff(*device.Device, *device.Stream, *device.Stream, device.LaunchConfig, uint64) (func(cOrdering, int) (int64, error), func(), error) {
	return nil, func() {}, nil
}
