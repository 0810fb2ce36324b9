package lifetime

import (
	"sync"
	"sync/atomic"

	"github.com/gpuarr/gpuarr/device"
	"github.com/gpuarr/gpuarr/gcpressure"
	"github.com/gpuarr/gpuarr/internal/cowmap"
	"github.com/gpuarr/gpuarr/memory"
)

// devState is what the package keeps per device: the memory resource
// arrays allocate from and the spare buffer objects.
type devState struct {
	dev *device.Device

	spare sync.Pool // freed *Buffer objects for reuse (recycle.go)

	resOnce sync.Once
	res     memory.Resource
	resErr  error
}

// resource is the device's memory.Default resource, or the error of a
// malformed variable that configures it or the eager collection
// (gcpressure.Install, which hooks eager collection into that resource):
// arrays allocate from it, so that error comes with the first allocation
// and every one after.
func (st *devState) resource() (memory.Resource, error) {
	st.resOnce.Do(func() {
		st.res, st.resErr = memory.Default(st.dev)
		if err := gcpressure.Install(); err != nil && st.resErr == nil {
			st.res, st.resErr = nil, err
		}
	})
	return st.res, st.resErr
}

// states maps devices to their state, copy-on-write so that lookups take
// no lock; last short-cuts the common case of one device.
var states struct {
	m    cowmap.Map[*device.Device, *devState]
	last atomic.Pointer[devState]
}

func stateOf(dev *device.Device) *devState {
	if st := states.last.Load(); st != nil && st.dev == dev {
		return st
	}
	st, _, _ := states.m.LoadOrCreate(dev, func() (*devState, error) {
		return &devState{dev: dev}, nil
	})
	states.last.Store(st)
	return st
}
