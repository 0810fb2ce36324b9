package unified

import (
	"sync"
	"unsafe"

	"github.com/gpuarr/gpuarr/device"
	"github.com/gpuarr/gpuarr/gcpressure"
	"github.com/gpuarr/gpuarr/memory"
)

// Managed and pinned memory is system memory as well as device memory
// (managed pages live on the host until the GPU touches them; pinned pages
// are locked in RAM). Both are charged to gcpressure's host-memory account
// so that eager collection sees them. This file is the one place unified
// talks to that account.

// chargeHost lets eager collection see the pressure first, then charges n
// bytes or refuses them (gcpressure.ErrHostMemory) when the system would be
// left short.
func chargeHost(n uint64) error { return gcpressure.ChargeHost(n) }

func unchargeHost(n uint64) { gcpressure.ReleaseHost(n) }

// hostCharged is a resource adaptor that charges its blocks to the host
// account while they are allocated.
type hostCharged struct{ memory.Resource }

func (h hostCharged) Alloc(s *device.Stream, n uint64) (*memory.Block, error) {
	if err := chargeHost(n); err != nil {
		return nil, err
	}
	b, err := h.Resource.Alloc(s, n)
	if err != nil {
		unchargeHost(n)
	}
	return b, err
}

func (h hostCharged) Free(b *memory.Block) error {
	n := b.Size()
	if err := h.Resource.Free(b); err != nil {
		return err
	}
	unchargeHost(n)
	return nil
}

var resources sync.Map // *device.Device → memory.Resource

// managedResource is dev's managed-memory resource, shared by every
// unified array of dev: memory.DefaultManaged (charged to the hard limit)
// charged to the host account.
func managedResource(dev *device.Device) (memory.Resource, error) {
	if r, ok := resources.Load(dev); ok {
		return r.(memory.Resource), nil
	}
	r, err := memory.DefaultManaged(dev)
	if err != nil {
		return nil, err
	}
	got, _ := resources.LoadOrStore(dev, memory.Resource(hostCharged{r}))
	return got.(memory.Resource), nil
}

func sizeOf[T any](v T) uintptr { return unsafe.Sizeof(v) }
