// Package host is the CPU device: a pure-Go backend (device/driver) with
// CUDA's semantics, so that every gpuarr test runs in CI without a GPU.
// Programs reach it through package device (device.Open("host"), or
// device.Default without a GPU); Example shows a kernel written in Go
// running on it.
//
// # Model
//
// Devices: GPUARR_HOST_DEVICES=N (default 1), each with compute capability
// 9.0, memory pools, managed memory, unified addressing, GOMAXPROCS
// multiprocessors, and a capacity, GPUARR_HOST_MEMORY (default 2GiB), that
// allocation enforces with driver.OutOfMemory. The environment is read
// once; a malformed value makes Devices fail with a *driver.ConfigError
// naming the variable.
//
// Memory: every allocation is an anonymous mmap outside the Go heap whose
// address is the device pointer; a global index resolves any pointer,
// interior ones too. Work touching memory outside live allocations fails
// with driver.IllegalAddress; freeing an unknown, interior or freed pointer
// with driver.InvalidValue.
//
// Streams: each is a FIFO served by its own goroutine; every call queues
// and returns. Uploads snapshot their source at the call; downloads block
// until their data is there. An event is reached when its stream executes
// the record; a wait blocks the waiting stream's goroutine, never the
// caller. A capturing stream appends its operations to the capture, and
// the graph EndCapture returns queues them again, in order, as one entry
// (node i+1 is operation i); CUDA's capture errors apply.
//
// Kernels are Go functions (device/hostkernel) bound to PTX entry names in
// a process-wide registry (device.Device.RegisterHostKernel). LoadModule
// checks the PTX as a JIT would; a launch runs the kernel once, on the
// stream's goroutine, reaching memory only through hostkernel's checked
// views.
//
// Peers: GPUARR_HOST_PEERS=all|none|0-1,2-3 says which devices can be
// peers (device.Device.SetPeerLink changes it). Kernels may touch another
// device's memory only after EnablePeerAccess; copies always work.
//
// Checking mode (GPUARR_HOST_CHECK=1) delays queued operations at random
// and poisons freed memory (PoisonByte), so a missing synchronization gives
// a wrong answer in an ordinary test; freed managed and page-locked memory
// is quarantined instead, so a CPU access that outlived it faults.
//
// # Where it differs from CUDA
//
//   - Asynchronous errors do not poison the device: the first on a stream
//     is reported once to the stream (its next Synchronize, Query or
//     CopyDtoH) and once to the device; later work still runs. Events
//     carry no errors.
//   - Copies and memsets check their addresses when issued and again when
//     they run; a free waits for kernels and copies using the allocation.
//   - Capacity counts the bytes requested, without the driver's
//     granularity; AllocAsync maps memory directly. MemPool is a pool of
//     whole blocks in 512-byte classes, trimmed when a free executes.
//   - Virtual memory: a reservation is an inaccessible mapping; mapping a
//     2 MiB granule makes it usable and charges the capacity.
//   - A kernel runs once per launch and loops over its elements itself
//     (Launch.ParallelFor spreads the loop over the cores).
//   - Waiting, outside a capture, on an event recorded in one, and
//     allocating or freeing on a capturing stream, fail with
//     StreamCaptureUnsupported; an event recorded in an ended capture
//     counts as reached. A graph update replaces the graph's operation
//     list: launches already queued run the ones they were queued with.
//   - HideSymbol is per device; names match with or without "_v2".
//   - Collectives run as goroutine ranks in one process; a rank that never
//     arrives fails the others after GPUARR_HOST_COLLECTIVE_TIMEOUT
//     (default 30s). HideSymbol("libnccl") hides them.
//   - Products and solver routines run gonum's own BLAS and LAPACK,
//     float32 in float64 and rounded; where gonum reports no index, Info
//     is LAPACK's definition or 1 (n+1 and min(M,N)+1 for the Jacobi
//     batches, as cuSOLVER).
//
// # Boundaries
//
// Only package device imports this package. It implements device/driver
// and device/hostkernel and imports nothing else from gpuarr; it never
// prints, panics or reads the environment after first use, and never lets
// Go pointers into device memory.
package host
