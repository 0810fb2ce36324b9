package driver

import "unsafe"

// Location is where managed memory is prefetched to or advised about:
// a device (by ordinal) or the host. It mirrors CUmemLocation.
type Location struct {
	Host   bool // the CPU; Device is ignored
	Device int  // the device ordinal
}

// Advice is a cuMemAdvise hint (CUmem_advise values).
type Advice int

// The advice values cuda.h defines.
const (
	AdviseSetReadMostly          Advice = 1
	AdviseUnsetReadMostly        Advice = 2
	AdviseSetPreferredLocation   Advice = 3
	AdviseUnsetPreferredLocation Advice = 4
	AdviseSetAccessedBy          Advice = 5
	AdviseUnsetAccessedBy        Advice = 6
)

// Managed is implemented by devices that can allocate managed ("unified")
// memory: one address valid on the device and on the CPU, migrated by the
// driver on demand. It is optional; a backend without it has no unified
// arrays. Info.ManagedMemory and Info.ConcurrentManagedAccess (attributes
// 83 and 89) say what the hardware allows.
type Managed interface {
	// AllocManaged allocates n bytes of managed memory
	// (cuMemAllocManaged, CU_MEM_ATTACH_GLOBAL). Free releases it.
	AllocManaged(n uint64) (Ptr, error)
	// HostPointer is the CPU address of managed memory at p (on CUDA the
	// same number).
	HostPointer(p Ptr) unsafe.Pointer
	// Prefetch migrates [p, p+n) to loc in the order of s
	// (cuMemPrefetchAsync with a CUmemLocation).
	Prefetch(p Ptr, n uint64, loc Location, s Stream) error
	// Advise gives the driver a hint about [p, p+n) (cuMemAdvise with a
	// CUmemLocation).
	Advise(p Ptr, n uint64, a Advice, loc Location) error
}
