//go:build gpuarrbench

package driver

// ManagedProbe is implemented by a Device whose backend calls its driver
// through a C shim: the driver's own cost of managed memory, timed in C,
// the reference bench/defaultmemory holds the array layer's managed
// memory to. Only in builds with -tags gpuarrbench (see probe.go).
type ManagedProbe interface {
	// BenchAllocManagedC allocates n bytes of managed memory
	// (cuMemAllocManaged) and frees them (cuMemFree), reps times in a C
	// loop, and returns the nanoseconds the loop took.
	BenchAllocManagedC(n uint64, reps int) (int64, error)
	// BenchMigrateC prefetches the n bytes of managed memory at p to
	// from on s and waits for it (untimed), then returns the nanoseconds
	// one prefetch to to (cuMemPrefetchAsync) and the stream
	// synchronization that waits for it take.
	BenchMigrateC(p Ptr, n uint64, from, to Location, s Stream) (int64, error)
}
