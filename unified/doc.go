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
// memory whatever the default. The first GPU use of fresh memory, and the
// first after the CPU was lent an array, prefetches it to the device
// (GPUPrefetches), so the GPU does not fault it in page by page.
//
// # CPU access
//
// Host(a) synchronizes only what may be pending on a and returns a View
// whose At, Set, AtIndex, SetIndex, All and Values are plain memory
// accesses: no driver call, lock or atomic per element, and on a
// contiguous view the speed of the same loop over a []T. Borrow(a, f)
// lends a []T for the length of f (ExampleBorrow). A View keeps its array
// reachable while it is used; after a Release its accesses panic with an
// error matching gpuarr.ErrReleased before touching memory. The raw
// forms, UnsafeSlice and Pinned.UnsafeSlice, hold nothing.
//
// # Placement, pinned memory, limits
//
// Prefetch moves an array's pages in stream order (ExamplePrefetch);
// Advise passes ReadMostly, PreferredLocation and AccessedBy to the
// driver. NewPinned gives page-locked host memory with asynchronous,
// tracked Download and Upload. Managed memory comes from a caching pool
// (memory.DefaultManaged), counts against the device's hard memory limit
// and gcpressure's accounts, and a request the device's free memory
// cannot hold fails with *OversubscribeError unless AllowOversubscribe is
// given; Empty's doc states the rules.
//
// This package does not own device arrays, the tracking rules (gpuarr) or
// the driver calls (device).
package unified
