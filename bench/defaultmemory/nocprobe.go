//go:build !gpuarrbench

package main

import "github.com/gpuarr/gpuarr/device"

func managedProbe(*device.Device) probe { return nil }
