// Package unified owns managed ("unified") memory arrays: arrays whose
// memory both the GPU and the CPU address, so CPU code with no GPU
// implementation can read and write what kernels compute without a copy.
//
// A unified array is an ordinary *gpuarr.Array made by this package's
// constructors (Empty, Zeros, FromSlice), or by any of gpuarr's (and the
// arrays any library function returns) while its device's default memory
// is unified (GPUARR_DEFAULT_MEMORY=unified, or
// gpuarr.SetDefaultMemory(dev, gpuarr.UnifiedMemory)). Everything gpuarr
// does works on it exactly as on a device array: expressions, reductions,
// Matmul, Launch, Copy, views, cross-device operations, the same stream
// tracking, Release and cleanup when unreachable. What unified adds:
//
//   - CPU access in place. Host(a) returns a View whose At, Set, AtIndex,
//     SetIndex, All and Values are plain memory accesses (no driver call,
//     lock or atomic operation per element). At(i) and Set(i, x) take
//     the row-major position i (on any view, strided too: the position All
//     yields); AtIndex and SetIndex take one index per axis. At, Set,
//     Values and All inline into the caller's loop, so on a contiguous
//     view they run at the speed of the same loop over a []T. Code that
//     wants a []T (copy, sort, a library) borrows one for the length of a
//     call: Borrow(a, func(s []T) error {...}). Making the View is where
//     synchronization happens, and only as much as needed: the dirty bit
//     gpuarr keeps for host reads says whether a GPU write may be pending;
//     if so the View waits for that writer's stream (and for other
//     streams' reads, since the CPU may write), else it waits for nothing.
//     A second pass over an array no GPU work touched since costs one
//     lock, no synchronization.
//     On a device without concurrent managed access (attribute 89 is 0),
//     the CPU must not touch managed memory while any kernel runs on the
//     device, so making a View synchronizes the whole device.
//     The package functions Borrow, AtIndex, All and Values make a View
//     each call; loops should make one View (or one iterator) and use it.
//   - CPU writes need no step: the next GPU operation is issued after them
//     and sees them.
//   - A View reflects the array until the next GPU operation on it: make
//     a new one after GPU work.
//   - Lifetime. The memory is outside Go's heap, and Go's GC cannot see
//     that a []T over it needs the array. So the safe forms hold the array
//     themselves: a View (and an iterator from one) keeps its array
//     reachable for as long as it is used, and Borrow for the length of
//     its call. Once the array is released, a View's element accesses
//     panic with an error matching gpuarr.ErrReleased before touching the
//     memory, and Borrow returns one: nothing reads or writes memory the
//     array gave back (a Release racing an access on another goroutine is
//     a data race in the program). The raw forms, UnsafeSlice and
//     Pinned.UnsafeSlice, hold nothing: the caller keeps the array (or
//     Pinned) reachable and unreleased while it uses the slice. In the
//     host backend's checking mode (GPUARR_HOST_CHECK=1) freed managed and
//     pinned memory is quarantined, so a slice used after its owner is
//     gone faults at the use instead of reading another array's data.
//   - Prefetch (stream-ordered, to a device or to the CPU) and Advise
//     (ReadMostly, PreferredLocation, AccessedBy). An array the GPU writes
//     once and the CPU then reads is best advised PreferredLocation(nil)
//     and AccessedBy(its device) before the kernel: its pages stay in host
//     memory, the kernel writes them across the bus, and the CPU's first
//     pass migrates nothing. Arrays GPU kernels keep working on keep the
//     default placement (and Prefetch).
//   - Refusal to oversubscribe: a request that the device's free memory
//     cannot hold, beside the managed memory allocated earlier and not yet
//     resident on the device, fails with *OversubscribeError and allocates
//     nothing, unless AllowOversubscribe is given (its array is then a
//     managed allocation of its own, outside the pool). Oversubscribed
//     managed memory pages between host and device and can stall a shared
//     GPU. The refusal holds for gpuarr's own constructors under the
//     unified default too. Memory the pools cache counts as room: they
//     give it back before refusing.
//   - Pinned host arrays (NewPinned): page-locked memory with Download and
//     Upload, asynchronous copies on a stream tracked like any array use;
//     Pinned.Borrow waits for them before the CPU touches the memory. The
//     slice it lends is also a direct (DMA, unstaged) source and
//     destination for gpuarr's CopyFromHost and CopyToHost, which wait for
//     the copy.
//   - The first CPU access after a GPU write to an array of 64 KiB or more
//     prefetches its memory to the CPU on the writer's stream before the
//     one wait it makes, so the pages arrive in bulk instead of one CPU
//     fault at a time (CPUPrefetches counts these). The other way, the
//     first GPU use after the CPU was lent the array (a View, Borrow, ...)
//     prefetches it to the using stream's device on that stream before the
//     work (GPUPrefetches); arrays the CPU did not touch cost no driver
//     call. A failed prefetch is ignored: it is a hint.
//
// # Porting to the GPU a piece at a time
//
// Under GPUARR_DEFAULT_MEMORY=unified every array a program allocates
// through gpuarr is unified, so a program being ported can move one loop
// to the GPU and keep reading every intermediate result on the CPU with
// Host, Borrow or Values, with no copy. Once the port is done, unset the
// variable: device memory is allocated without the driver's synchronous
// managed allocation, never migrates, and CPU access to it is an error
// (ErrNotManaged) that names the variable. What stays device memory
// whatever the default: reductions' scratch memory, library workspaces
// (cuBLAS, cuSOLVER) and the arrays a graph capture allocates (its
// private pool).
//
// The memory is a caching pool of managed memory (memory.DefaultManaged),
// as device memory is a caching pool of device memory: a size freed
// before is handed out again without a driver call. Memory the pool
// reuses in a stream's order may still be used by work queued there, so
// a new array's first CPU access waits for its stream's work up to the
// allocation (device arrays never need that wait). In the host backend's
// checking mode nothing is cached, so that freed managed memory is
// quarantined (see Lifetime below).
//
// Reclaim: forgotten unified and pinned arrays are collected before memory
// runs out, as device arrays are. Managed memory counts against the
// device's hard memory limit (GPUARR_HARD_MEMORY_LIMIT,
// memory.DefaultManaged) and in gcpressure's reading of the device's
// pressure, so eager collection runs for it; an allocation that passes the
// limit, or that the refusal to oversubscribe would turn down, climbs the
// reclaim ladder first (collect, wait for the cleanups, give the pools'
// cached segments back) and fails only if that freed too little. Managed
// and pinned memory also count against gcpressure's host-memory account
// (managed memory as the pool obtains it from the driver), and a pinned
// allocation the driver refuses climbs the same ladder.
//
// Unified does not own device arrays, the tracking rules (gpuarr), or the
// driver calls (device, device/cuda, device/host).
package unified
