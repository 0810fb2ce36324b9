// Package lifetime is the life of an array's memory: the Handle every
// gpuarr.Array is, the reference-counted Buffer its views share, the one
// door every allocation goes through, the return of memory by Release or
// by the garbage collector, and the Claim an operation takes on the arrays
// it touches.
//
// # Allocation
//
// Handle.Make (and Temp and MakeScratch, for scratch memory and library
// workspaces) allocate through alloc, the one door: from the device's
// default memory (memory.go: the default resource, memory.Default, or,
// for arrays when the device's default memory is UnifiedMemory through
// GPUARR_DEFAULT_MEMORY or SetDefaultMemory, its managed memory,
// memory.DefaultManaged; package gcpressure's eager collection watches
// both), from a foreign resource (package unified's constructors), or, on
// a stream recording a capture, from the capture's private pool
// (Recorder). The allocation counts as a write on the allocating stream;
// for managed memory it also makes the buffer dirty, so the CPU waits for
// the stream before it touches memory the pool reused. A device's first
// allocation installs package gcpressure (and its host-memory account),
// so a malformed GPUARR_GC_* variable fails it. A claim that finds the
// buffer's CPU-touched bit set prefetches managed memory back to the
// device (prefetch.go).
//
// # Return
//
// Release drops the handle's reference at once, in the caller; the last
// reference frees the buffer, stream-ordered after every stream that used
// it (tracking.State.Release). A handle not released gets a
// runtime.AddCleanup on its buffer, registered late and in batches by a
// goroutine of its own (cleanup.go), so a handle released soon costs no
// cleanup at all; a cleanup only queues the buffer, and one goroutine frees
// the queue (freequeue.go); every collection package gcpressure runs
// registers the pending cleanups before it and frees the queue after it
// (internal/cleanups). Freed buffer objects are reused by the next
// allocation on their device (recycle.go), so an array costs one Go
// allocation, its handle; Acquire's double check makes that safe.
//
// # Claims
//
// An operation declares the handles it uses and how (Claim.Add), then
// Begin pins their buffers, locks them in address order and lets each
// buffer's tracking.State order the stream after conflicting work; it
// issues its work and calls End. A stream recording a capture has a
// Recorder (gpuarr's Capture) that hears of every allocation, buffer and
// claim on it; a Batcher also learns how each captured node follows the
// batch size (Resize).
//
// Example makes an array and a view of it, releases the array and issues
// an operation on the view.
//
// This package owns handles, buffers, the per-device resources, default
// memory (device or unified) and the reuse of buffer objects, the cleanup registrar and
// the free queue. It does not know
// element types beyond their size and name, expressions or graphs; it
// orders streams only through package tracking and allocates only through
// memory.Resource.
package lifetime
