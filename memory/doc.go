// Package memory is gpuarr's device memory allocators: composable,
// stream-ordered resources in the way RMM's memory resources and adaptors
// compose, with a caching pool at the centre, limits, statistics and a
// trace.
//
// # Resources
//
// A Resource hands out Blocks (address, size, stream) on one device:
//
//	Caching(upstream, opts)   the caching pool (below)
//	DriverPool(dev, opts)     the driver's stream-ordered pool (cuMemAllocFromPoolAsync)
//	Direct(dev)               cuMemAlloc/cuMemFree, no caching
//	Expandable(dev, opts)     one address reservation, 2 MiB granules mapped as blocks need them
//	Limit(r, hard)            refuses what would pass a hard limit (atomically)
//	Statistics(r)             counts what passes through
//	Reclaiming(r, reclaimer)  the exhaustion ladder for resources without a cache
//	Tracer.Wrap(r, level)     records calls into a bounded ring, as JSON
//
// Expandable segments: Expandable reserves a large range of addresses once
// (cuMemAddressReserve) and maps physical memory into it in granules as
// blocks need them (cuMemCreate, cuMemMap, cuMemSetAccess), unmapping a
// granule when its last block is freed. Under the caching pool, its
// segments are adjacent addresses of that one range and cost their size
// rounded up to one granule. Graph pools (gpuarr.GraphPool) grow on it;
// GPUARR_EXPANDABLE_SEGMENTS=1 puts the default caching pool on it
// (PyTorch's expandable_segments). The caching pool still treats each
// segment separately: a block never spans two.
//
// Default(dev) is the resource arrays use, built once per device from the
// environment: GPUARR_MEMORY_POOL=caching|cuda|none (caching),
// GPUARR_HARD_MEMORY_LIMIT and GPUARR_SOFT_MEMORY_LIMIT (bytes, "512MB",
// "4GiB", "80%" of the device), GPUARR_MEMORY_TRACE=N (trace N events).
// Status(dev) renders its statistics. DefaultManaged(dev) is the managed
// memory beside it (package unified's arrays, and every array under
// GPUARR_DEFAULT_MEMORY=unified): a caching pool over Managed(dev), whose
// new segments are refused when the device's free memory cannot hold them
// (OversubscribeError), charged to the same hard limit and to the
// host-memory account (SetHostAccount), and which climbs the same ladder;
// uncached in checking mode and under GPUARR_MEMORY_POOL=none.
// DefaultManagedOversubscribing is its uncached twin without the refusal;
// ManagedUsage reports both. Both default resources announce each
// allocation to the process-wide Pressure first (SetPressure: package
// gcpressure's eager collection).
//
// # Seeing memory
//
// The allocators sample allocations by bytes for a pprof profile of GPU
// memory (GPUARR_MEMPROFILE_RATE, SetProfileRate; WriteProfile), each
// charged to the Go call stack that made it; package memory/memhttp serves
// it at /debug/pprof/gpuheap. A Tracer records allocator calls with their
// stacks and marks (Go GC cycles; package gcpressure's eager collections
// and ladder steps, through TraceMark); package memory/memviz draws its
// JSON as a timeline page. Metrics is a snapshot of the gauges by name
// (expvar's "gpuarr" through memhttp). With the profile on, an
// OutOfMemoryError names the top holders by stack.
//
// # The caching pool
//
// Sizes follow PyTorch's caching allocator: requests are rounded up to 512
// bytes; those up to 1 MiB are packed into small segments (2 MiB, growing to
// an eighth of the small pool up to 32 MiB once the pool passes 16 MiB, so
// gigabytes of small blocks take hundreds of driver allocations, not
// thousands), larger ones below 10 MiB a segment of as many of their size as
// fit in 20 MiB, rounded up to 2 MiB (PyTorch takes 20 MiB, which leaves a
// remainder only smaller requests can use: 4.4 MiB of every 20 for 7.8 MiB
// batches), and larger ones their size rounded to 2 MiB (a segment of just
// the request when a limit leaves no room for the bigger one). Free
// blocks live in a best-fit index per kind (small, large) ordered by (size,
// address): size classes (four per power of two) found through a bitmap,
// each a treap threaded through the blocks, so a lookup is O(log n) in the
// blocks of its own class and free blocks of other sizes cost nothing.
// Allocation takes the smallest block that fits and splits off the rest
// (small blocks when at least 512 bytes remain, large ones when more than
// 1 MiB does); freeing merges a block with free neighbours in its segment.
// With MaxSplitSize, big blocks are neither split nor given to small
// requests (PyTorch's max_split_size).
//
// In front of the index, each stream has a front cache of blocks freed on
// it, binned by size class. Stream order makes such a block reusable by the
// same stream at once, so the hot path — alloc and free of a cached size on
// one stream — takes only that stream's lock (uncontended when one
// goroutine drives the stream), makes no driver call, allocates nothing and
// writes nothing shared; statistics are per stream too (see Stats for what
// that means for peaks). The front cache spills its oldest blocks to the
// index past 64 blocks or 1 GiB, and every front cache moves to the index
// when the index misses, before the pool asks upstream for more.
//
// Another stream may use freed memory only after the streams that used it
// passed the free. A free block carries, per such stream, the point it must
// pass; the taking stream waits for an event there on the device (no CPU
// wait), recording it lazily at that moment if the free recorded none, and
// remembers which events it already waited for. Points known to be reached
// need no wait: the pool learns them in batches — before it grows and
// every 32 spills — querying only the oldest outstanding event per stream
// and recording a "clock" event where frees happened since. RecordUse(b, s)
// declares that s uses b as well; freeing such a block records an event on
// each of those streams and keeps the block pending, outside the index,
// until all are reached, as PyTorch does with record_stream. A closed
// stream's memory needs no wait (closing drains it). When the device runs
// in checking mode (Device.Checking: the host backend with
// GPUARR_HOST_CHECK=1) freed blocks are poisoned by a memset in the freeing
// stream's order, so a missing wait shows up as wrong data.
//
// When upstream refuses a segment, the pool runs a ladder, each step once
// with a retry after it: wait for pending blocks' streams and take those
// blocks; call the Reclaimer (SetReclaimer or CachingOptions.Reclaimer; the
// GC's ladder in package gcpressure) up to ReclaimLevels times; give every
// idle segment back upstream. The Reclaiming adaptor climbs the same ladder
// from the reclaimer step on, emptying its upstream's cache at the end;
// ReclaimUntil climbs it for memory no resource hands out (page-locked
// host memory, room for managed memory on the device).
// Only then does it fail, with an
// *OutOfMemoryError (matching device.ErrOutOfMemory) whose message is a
// status report: requested, used, reserved, limits, largest free block,
// fragmentation. The soft limit is applied when the pool checks stream
// progress (before it grows, and every 32 spills): idle segments whose
// users are done go back upstream until the cached bytes are within it.
// EmptyCache and Trim give segments back on demand, waiting for streams
// still using them.
//
// # Where things live
//
// One file per concept: resource.go (the interface, and the upstream
// embedded by adaptors, which forwards what an adaptor does not change),
// one file per resource or adaptor (direct.go, driverpool.go, limit.go,
// reclaim.go, stats.go, trace.go, managed.go), default.go and env.go (the
// per-device default from the environment), manageddefault.go (the
// per-device managed memory), managedroom.go (the refusal to
// oversubscribe), managedhost.go (the host-memory account), status.go (the report an OOM carries),
// profile.go (sampling), pprof.go (the profile's writer), stacks.go (call
// stacks), metrics.go (Metrics), record.go (the programs' -gpumemprofile
// and -gpumemtrace).
// The caching pool's files are listed in caching.go: an allocation
// decision is in sizes.go (how big), alloc.go (which block, when to grow),
// free.go and events.go (when freed memory may be reused, by which
// stream), exhaustion.go (what happens when memory runs out) and trim.go
// (what goes back upstream).
//
// # Boundaries
//
// This package owns allocation policy: segments, blocks, caching, limits,
// statistics and the trace. It builds on package device (raw allocations,
// streams, events; a backend's checking mode through Device.Checking) and
// never imports a backend (device/host, device/cuda). It must not touch
// Go's garbage collector, arrays or their tracking: it knows nothing of Go
// objects that hold blocks; it calls a Reclaimer when it needs memory
// back and tells a Pressure of the default resources' allocations, rather
// than collecting garbage itself.
package memory
