//go:build !gpuarrbench

package main

import (
	"fmt"

	"github.com/gpuarr/gpuarr/bench/report"
	"github.com/gpuarr/gpuarr/device"
)

// measure needs the CUDA backend's C loops, which exist only in builds with
// -tags gpuarrbench.
func measure(_ *report.Report, dev *device.Device, _, _, _ int) error {
	return fmt.Errorf("on %s: built without -tags gpuarrbench, so the backend has no C loops to compare with (go run -tags gpuarrbench ./bench/binding)", dev)
}
