package lifetime

import (
	"sync/atomic"

	"github.com/gpuarr/gpuarr/device"
)

// The first GPU use of managed memory after the CPU was lent it (package
// unified's View, Borrow and the rest, through HostAccess) would fault the
// pages the CPU touched back to the device one by one, each fault a round
// trip through the driver. So the claim that orders that use prefetches
// the buffer to the using stream's device on that stream, before the work:
// the pages move in bulk, in stream order, with no wait. The CPU-touched
// bit lives in the buffer's tracking record, which the claim holds locked
// anyway: a buffer the CPU did not touch costs the claim one test of a
// bool, and no driver call. Fresh managed memory (memory.Block.Fresh: no
// page placed yet) starts with the bit set, so its first GPU use places
// it in bulk too instead of faulting every page in.

// gpuPrefetchMinBytes is the size from which the first GPU use after a CPU
// access prefetches. Below it the prefetch call (a few microseconds)
// costs about what faulting the pages in does: the driver migrates a
// fault's neighbourhood in one go (64 KiB and up).
const gpuPrefetchMinBytes = 64 << 10

var gpuPrefetches atomic.Uint64

// GPUPrefetches counts the prefetches to a device that first GPU uses
// after a CPU access issued (tests use it to show which uses migrate in
// bulk).
func GPUPrefetches() uint64 { return gpuPrefetches.Load() }

// prefetchForGPU queues a prefetch of b's memory to s's device on s, when
// b is managed memory of gpuPrefetchMinBytes or more and s is not
// capturing. The caller holds b's record locked, after ordering s (the
// prefetch then runs after the work s waits for, and before the work it
// prepares). A failed prefetch is ignored: it is a hint, and the GPU
// faults the pages in as it would without it.
func (b *Buffer) prefetchForGPU(s *device.Stream) {
	if b.size < gpuPrefetchMinBytes || s.IsCapturing() || !b.managedBuffer() {
		return
	}
	if s.Prefetch(b.ptr, b.size, device.LocationOf(s.Device())) == nil {
		gpuPrefetches.Add(1)
	}
}
