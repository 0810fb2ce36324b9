// Package memory is gpuarr's device memory allocators: composable,
// stream-ordered resources in the way RMM's memory resources and adaptors
// compose, with a caching pool at the centre, limits, statistics, a
// sampled profile and a trace.
//
// # Resources
//
// A Resource hands out Blocks (address, size, stream) on one device, in
// stream order: a block is usable by work issued on its stream after
// Alloc, and Free returns it in that stream's order. Work on another
// stream that uses a block is declared with RecordUse, so the block is
// reused only after that stream passed the free. Resources compose
// (Example builds one):
//
//	Caching(upstream, opts)   the caching pool (below)
//	DriverPool(dev, opts)     the driver's stream-ordered pool (cuMemAllocFromPoolAsync)
//	Direct(dev)               cuMemAlloc/cuMemFree, no caching
//	Expandable(dev, opts)     one address reservation, 2 MiB granules mapped as blocks need them
//	Limit(r, hard)            refuses what would pass a hard limit
//	Statistics(r)             counts what passes through
//	Reclaiming(r, reclaimer)  the exhaustion ladder for resources without a cache
//	Tracer.Wrap(r, level)     records calls into a bounded ring, as JSON
//
// Default(dev) is the resource arrays use, built once per device from the
// environment: GPUARR_MEMORY_POOL=caching|cuda|none (caching),
// GPUARR_HARD_MEMORY_LIMIT and GPUARR_SOFT_MEMORY_LIMIT (bytes, "512MB",
// "4GiB", "80%" of the device), GPUARR_EXPANDABLE_SEGMENTS=1 (the pool on
// Expandable), GPUARR_MEMORY_TRACE=N (trace N events); a malformed value
// is an error matching device.ErrBadConfig. DefaultManaged(dev) is the
// managed memory beside it (package unified's arrays), charged to the same
// hard limit. Both announce each allocation to the process-wide Pressure
// before making it (SetPressure: package gcpressure's eager collection).
// Status(dev) renders the default resource's statistics.
//
// # The caching pool
//
// Sizes follow PyTorch's caching allocator (sizes.go): requests round up
// to 512 bytes; those up to 1 MiB share small segments, larger ones get
// segments of whole blocks, and a block never spans two segments. Free
// blocks live in a best-fit index (index.go); allocation splits off the
// rest, freeing merges free neighbours. With MaxSplitSize big blocks are
// neither split nor given to small requests.
//
// Costs: alloc and free of a cached size on one stream take only that
// stream's lock, make no driver call and allocate nothing (each stream's
// front cache of blocks freed on it). Reusing another stream's freed
// memory costs one event record and one device-side wait (no CPU wait);
// the pool learns which frees streams passed in batches, before it grows.
// In checking mode (Device.Checking) freed blocks are poisoned in the
// freeing stream's order, so a missing wait shows as wrong data.
//
// When upstream refuses a segment the pool climbs a ladder, retrying after
// each step: take pending blocks once their streams pass; call the
// Reclaimer (SetReclaimer or CachingOptions.Reclaimer: package gcpressure's
// collections) level by level; give idle segments back upstream. Only then
// does it fail, with an *OutOfMemoryError matching device.ErrOutOfMemory
// whose message is a status report (requested, used, reserved, limits,
// largest free block, fragmentation). The soft limit gives idle segments
// back when the pool checks stream progress; EmptyCache and Trim do so on
// demand. ReclaimUntil climbs the same ladder for memory no resource hands
// out (page-locked host memory, room for managed memory).
//
// # Seeing memory
//
// The allocators sample allocations by bytes into a pprof profile of GPU
// memory charged to the Go call stacks that made them (GPUARR_MEMPROFILE_RATE,
// SetProfileRate, WriteProfile; memory/memhttp serves it). A Tracer records
// allocator calls with their stacks and marks (GC cycles, eager
// collections, ladder steps: TraceMark); memory/memviz draws its JSON as a
// timeline. Metrics is a snapshot of the gauges by name. With the profile
// on, an OutOfMemoryError names the top holders by stack.
//
// # Boundaries
//
// This package owns allocation policy: segments, blocks, caching, limits,
// statistics, the profile and the trace. It builds on package device and
// never imports a backend. It knows nothing of arrays, their tracking or
// the GC: it calls a Reclaimer when it needs memory back and tells a
// Pressure of the default resources' allocations.
package memory
