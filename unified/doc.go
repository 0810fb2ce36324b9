// Package unified owns managed ("unified") memory arrays: arrays whose
// memory both the GPU and the CPU address, so CPU code with no GPU
// implementation reads and writes what kernels compute without a copy.
//
// A unified array is an ordinary *gpuarr.Array made by this package's
// constructors (Empty, Zeros, FromSlice), or by any of gpuarr's (and any
// library function's result) while its device's default memory is
// unified (GPUARR_DEFAULT_MEMORY=unified, or gpuarr.SetDefaultMemory(dev,
// gpuarr.UnifiedMemory)): everything gpuarr does works on it as on a
// device array, with the same stream tracking, Release and collection
// when unreachable. Example computes on the GPU and reads the result in
// place; ExampleHost loops over a View.
//
// # Porting to the GPU a piece at a time
//
// Under GPUARR_DEFAULT_MEMORY=unified every array a program allocates
// through gpuarr is unified, so a program being ported can move one loop
// to the GPU and keep reading every intermediate result on the CPU with
// Host, Borrow or Values, with no copy. Once the port is done, unset the
// variable: device memory never migrates, and CPU access to it is an
// error (ErrNotManaged) that names the variable. Reductions' scratch
// memory, library workspaces and a graph capture's arrays stay device
// memory whatever the default. The memory is a caching pool of managed
// memory (memory.DefaultManaged): a new array's first CPU access waits
// for its stream's work up to the allocation, since the pool reuses
// memory in stream order. The first GPU use after the CPU was lent an
// array prefetches it to the device (GPUPrefetches), and so does the
// first GPU use of fresh memory (a new segment's, whose pages nothing
// placed yet), so the GPU does not fault it in page by page; memory the
// CPU touches first is placed by the CPU.
//
// # CPU access
//
// Host(a) returns a View whose At, Set, AtIndex, SetIndex, All and Values
// are plain memory accesses: no driver call, lock or atomic per element,
// and on a contiguous view the speed of the same loop over a []T. At(i)
// and Set(i, x) take the row-major position i (the position All yields,
// on strided views too); AtIndex and SetIndex one index per axis.
// Borrow(a, f) lends a []T for the length of f (ExampleBorrow). The
// package functions Borrow, AtIndex, All and Values make a View per call:
// loops make one View and use it.
//
// Synchronization happens when the View is made, and only as needed: if a
// GPU write may be pending (gpuarr's dirty bit) the View waits for that
// writer's stream and for other streams' reads; otherwise it waits for
// nothing, so a second pass over an array no GPU work touched costs one
// lock. On a device without concurrent managed access the View
// synchronizes the whole device. A View reflects the array until the next
// GPU operation on it; CPU writes need no step (the next GPU operation is
// issued after them). The first access after a GPU write to an array of
// 64 KiB or more prefetches it to the CPU on the writer's stream, so the
// pages arrive in bulk (CPUPrefetches counts these; a failed prefetch is
// ignored).
//
// Lifetime: a View (and an iterator from one) keeps its array reachable
// while it is used, and Borrow for the length of its call. Once the array
// is released, a View's accesses panic with an error matching
// gpuarr.ErrReleased before touching memory, and Borrow returns one. The
// raw forms, UnsafeSlice and Pinned.UnsafeSlice, hold nothing: the caller
// keeps the owner reachable and unreleased while it uses the slice. In
// the host backend's checking mode freed managed and pinned memory is
// quarantined, so a use after its owner is gone faults at the use.
//
// # Placement
//
// Prefetch (stream-ordered, to a device or to the CPU; ExamplePrefetch)
// and Advise (ReadMostly, PreferredLocation, AccessedBy). An array the GPU
// writes once and the CPU then reads is best advised PreferredLocation(nil)
// and AccessedBy(its device) before the kernel: its pages stay in host
// memory and the CPU's first pass migrates nothing.
//
// A request that the device's free memory cannot hold beside the managed
// memory not yet resident there fails with *OversubscribeError and
// allocates nothing, unless AllowOversubscribe is given.
//
// # Pinned host arrays
//
// NewPinned gives page-locked memory with Download and Upload:
// asynchronous copies on a stream, tracked like any array use;
// Pinned.Borrow waits for them before the CPU touches the memory. Its
// slice is also a direct (DMA) source and destination for gpuarr's
// CopyFromHost and CopyToHost.
//
// # Memory limits
//
// Managed memory counts against the device's hard memory limit
// (memory.DefaultManaged) and in gcpressure's device pressure; an
// allocation past the limit, or one the oversubscription check would
// refuse, climbs the reclaim ladder first and fails only if that freed too
// little. Managed and pinned memory also count against gcpressure's
// host-memory account.
//
// This package does not own device arrays, the tracking rules (gpuarr) or
// the driver calls (device).
package unified
