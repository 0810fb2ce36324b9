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
// Default(dev) is the resource arrays use, built once per device from
// GPUARR_MEMORY_POOL, the hard and soft limits, GPUARR_EXPANDABLE_SEGMENTS
// and GPUARR_MEMORY_TRACE (the Env constants list them; a malformed
// value is an error matching device.ErrBadConfig). DefaultManaged(dev) is
// the managed memory beside it (package unified's arrays): a caching pool
// over Managed(dev) that refuses what the device cannot hold
// (OversubscribeError) and shares the hard limit. Both announce each
// allocation to the process-wide Pressure before making it (SetPressure:
// package gcpressure's eager collection).
// Status(dev) renders the default resource's statistics.
//
// # The caching pool
//
// CachingPool follows PyTorch's caching allocator: sizes round up to 512
// bytes, small and large requests live in separate segments, free blocks
// are split and merged by best fit. Alloc and Free of a cached size on one
// stream take one lock, make no driver call and allocate nothing. When
// upstream refuses a segment the pool climbs a ladder (pending blocks,
// the Reclaimer's collections, idle segments back upstream) before it
// fails with an *OutOfMemoryError whose message is a status report.
// CachingPool's doc states the rules and costs.
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
