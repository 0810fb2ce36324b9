package unified

import (
	"sync/atomic"

	"github.com/gpuarr/gpuarr/device"
)

// The first CPU access after GPU writes (making a View, Slice, AtIndex,
// All, Values) must wait for the writer anyway. Left alone, the CPU then
// faults the pages back one by one, each fault a round trip through the
// driver, an order of magnitude slower than a bulk copy (BENCHMARKS.md,
// unified memory in the runs at 0c39842). So when the array is large
// enough, the access first queues a prefetch of its memory to the CPU on
// the writer's stream, and the one wait it makes covers the prefetch:
// the pages arrive in bulk, by DMA, and the element loop then runs on
// resident memory.

// prefetchMinBytes is the size from which the first CPU access prefetches.
// Below it the prefetch call and the event it adds (a few microseconds)
// cost about what faulting the pages in does: the driver migrates a CPU
// fault's neighbourhood in one go (64 KiB and up), so a smaller array
// comes back in one or two faults. From there on, each further 64 KiB
// region costs another fault round trip (tens of microseconds), which the
// bulk copy replaces.
const prefetchMinBytes = 64 << 10

var cpuPrefetches atomic.Uint64

// CPUPrefetches counts the prefetches to the CPU that first CPU accesses
// issued (tests use it to show which accesses migrate in bulk).
func CPUPrefetches() uint64 { return cpuPrefetches.Load() }

// prefetchForCPU queues a prefetch of [p, p+n) to the CPU on s (the stream
// that wrote the memory last) when it pays, and reports whether it did.
// Only on the array's own device: its stream orders the prefetch after the
// write. A failed prefetch is not an error: it is a hint, and the CPU
// faults the pages in as it would without it (a driver lacking the call,
// for one).
func prefetchForCPU(dev *device.Device, s *device.Stream, p device.Ptr, n uint64) bool {
	if n < prefetchMinBytes || s.Device() != dev {
		return false
	}
	if s.Prefetch(p, n, device.HostLocation) != nil {
		return false
	}
	cpuPrefetches.Add(1)
	return true
}
