package unified

import "github.com/gpuarr/gpuarr/memory"

// OversubscribeError refuses managed memory that the free memory of its
// device cannot hold beside the managed memory allocated there earlier
// and not yet resident (which needs device memory once it migrates).
// Oversubscribed managed memory makes the driver page between host and
// device; on a GPU shared with others it can stall the device for
// everyone. It is returned after the reclaim ladder freed what it could,
// and matches device.ErrOutOfMemory. Requested is what was asked of the
// driver: with the managed pool, a whole segment (the request rounded up).
type OversubscribeError = memory.OversubscribeError
