package driver

// VirtualMemory is the optional capability of a Device to reserve a range
// of device addresses and map physical memory into it piece by piece
// (CUDA's virtual memory management: cuMemAddressReserve, cuMemCreate,
// cuMemMap, cuMemSetAccess). Allocators use it to grow a segment in place.
// A device without it (or without the driver entry points) does not
// implement it, or fails with NotSupported.
type VirtualMemory interface {
	// VMGranularity is the size and alignment, in bytes, of what VMMap
	// maps (cuMemGetAllocationGranularity, minimum; 2 MiB on current GPUs).
	VMGranularity() (uint64, error)
	// VMReserve reserves size bytes of addresses (a multiple of the
	// granularity) with nothing mapped.
	VMReserve(size uint64) (Ptr, error)
	// VMFree returns a reservation; everything in it must be unmapped.
	VMFree(p Ptr, size uint64) error
	// VMMap creates size bytes of physical memory on the device, maps them
	// at p (inside a reservation, granularity-aligned) and makes them
	// readable and writable by the device.
	VMMap(p Ptr, size uint64) (PhysHandle, error)
	// VMUnmap unmaps what VMMap mapped at p and releases its physical
	// memory. The caller makes sure no work uses it any more.
	VMUnmap(p Ptr, size uint64, h PhysHandle) error
}

// PhysHandle names physical memory made by VMMap (CUmemGenericAllocationHandle).
type PhysHandle uint64
