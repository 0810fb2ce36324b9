package main

import (
	"github.com/gpuarr/gpuarr/device"
	"github.com/gpuarr/gpuarr/examples/train/linreg"
)

// The model is the one examples/train runs (package linreg); this program
// only measures it.
type (
	Mode   = linreg.Mode
	Config = linreg.Config
)

const (
	Eager    = linreg.Eager
	Disabled = linreg.Disabled
	Release  = linreg.Release
)

func train(dev *device.Device, cfg Config) error { return linreg.Train(dev, cfg) }
