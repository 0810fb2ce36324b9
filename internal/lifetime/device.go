package lifetime

import (
	"sync"

	"github.com/gpuarr/gpuarr/device"
	"github.com/gpuarr/gpuarr/internal/cowmap"
	"github.com/gpuarr/gpuarr/memory"
)

// devState is what the package keeps per device: the memory resource
// arrays allocate from and the default memory (memory.go).
type devState struct {
	dev *device.Device

	resOnce sync.Once
	res     memory.Resource
	resErr  error

	mem memState
}

// resource is the device's memory.Default resource, or the error of a
// malformed variable that configures it or the eager collection
// (gcpressure.Install, which hooks eager collection into that resource):
// arrays allocate from it, so that error comes with the first allocation
// and every one after.
func (st *devState) resource() (memory.Resource, error) {
	st.resOnce.Do(func() {
		st.res, st.resErr = memory.Default(st.dev)
		if err := installHooks(); err != nil && st.resErr == nil {
			st.res, st.resErr = nil, err
		}
	})
	return st.res, st.resErr
}

// states holds each device's state.
var states cowmap.PerKey[*device.Device, *devState]

func stateOf(dev *device.Device) *devState { return states.Get(dev, newDevState) }

func newDevState(dev *device.Device) *devState {
	st := &devState{dev: dev}
	st.mem.init()
	return st
}
