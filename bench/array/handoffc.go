//go:build gpuarrbench

package main

import (
	"github.com/gpuarr/gpuarr/device"
	"github.com/gpuarr/gpuarr/device/driver"
	"github.com/gpuarr/gpuarr/internal/testkernels"
)

// cHandoff prepares the C reference round on prod and cons: the fill and
// copy kernels loaded once more at the driver level (the device API does
// not expose the backend's functions) and raw memory of the arrays' size.
// It returns a nil round when the backend has no C reference, and a close
// function that releases what it made either way.
func cHandoff(dev *device.Device, prod, cons *device.Stream, lc device.LaunchConfig, n uint64) (round func(ordering cOrdering, rounds int) (int64, error), closeAll func(), err error) {
	var undo []func()
	closeAll = func() {
		for i := len(undo) - 1; i >= 0; i-- {
			undo[i]()
		}
	}
	hp, _ := prod.Driver().(driver.HandoffProbe)
	if hp == nil || dev.Backend() != "cuda" {
		return nil, closeAll, nil
	}
	fail := func(err error) (func(cOrdering, int) (int64, error), func(), error) {
		closeAll()
		return nil, func() {}, err
	}
	mod, err := dev.Driver().LoadModule(testkernels.PTX(dev))
	if err != nil {
		return fail(err)
	}
	undo = append(undo, func() { mod.Close() })
	fill, err := mod.Function("gpuarr_fill_u32")
	if err != nil {
		return fail(err)
	}
	cp, err := mod.Function("gpuarr_copy_u32")
	if err != nil {
		return fail(err)
	}
	var x, y device.Ptr
	for _, p := range []*device.Ptr{&x, &y} {
		if *p, err = dev.Alloc(n * 4); err != nil {
			return fail(err)
		}
		q := *p
		undo = append(undo, func() { dev.Free(q) })
	}
	// The arguments of the Go round: fill(x, 1, n) and copy(y, x, n).
	var fillArgs, copyArgs driver.Args
	fillArgs.Append(driver.ArgPtr, uint64(x))
	fillArgs.Append(driver.ArgU32, 1)
	fillArgs.Append(driver.ArgU64, n)
	copyArgs.Append(driver.ArgPtr, uint64(y))
	copyArgs.Append(driver.ArgPtr, uint64(x))
	copyArgs.Append(driver.ArgU64, n)
	orderings := [...]driver.HandoffOrdering{cOneStream: driver.HandoffOneStream, cEvents: driver.HandoffEvents, cStreamMemOps: driver.HandoffStreamMemOps}
	round = func(ordering cOrdering, rounds int) (int64, error) {
		return hp.BenchHandoffC(fill, &fillArgs, cp, &copyArgs, lc.Grid, lc.Block, lc.SharedBytes, cons.Driver(), orderings[ordering], rounds)
	}
	return round, closeAll, nil
}
