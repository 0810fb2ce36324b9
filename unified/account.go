package unified

import (
	"sync"

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

// roomChecked is a resource adaptor that refuses to oversubscribe: it
// makes room for each allocation (makeRoom) before it asks its resource.
type roomChecked struct{ memory.Resource }

func (r roomChecked) Alloc(s *device.Stream, n uint64) (*memory.Block, error) {
	if err := makeRoom(r.Device(), n); err != nil {
		return nil, err
	}
	return r.Resource.Alloc(s, n)
}

// managedResources are dev's managed-memory resources, shared by every
// unified array of dev: memory.DefaultManaged (charged to the hard limit,
// with its reclaim ladder) charged to the host account, and the same
// behind the refusal to oversubscribe, which the constructors use unless
// AllowOversubscribe is given. Both free alike.
type managedResources struct {
	plain, checked memory.Resource
}

// owns reports whether r is one of m's resources.
func (m *managedResources) owns(r memory.Resource) bool {
	return r != nil && (r == m.plain || r == m.checked)
}

var resources sync.Map // *device.Device → *managedResources

// managedResource is dev's managed-memory resource: the checked one
// unless oversub.
func managedResource(dev *device.Device, oversub bool) (memory.Resource, error) {
	m, ok := resources.Load(dev)
	if !ok {
		r, err := memory.DefaultManaged(dev)
		if err != nil {
			return nil, err
		}
		plain := hostCharged{r}
		m, _ = resources.LoadOrStore(dev, &managedResources{plain: plain, checked: roomChecked{plain}})
	}
	if oversub {
		return m.(*managedResources).plain, nil
	}
	return m.(*managedResources).checked, nil
}

// isManagedResource reports whether r is one of dev's managed-memory
// resources.
func isManagedResource(dev *device.Device, r memory.Resource) bool {
	m, ok := resources.Load(dev)
	return ok && m.(*managedResources).owns(r)
}
