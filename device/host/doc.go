// Package host is the CPU device: a pure-Go backend (device/driver) with
// CUDA's semantics, so that every gpuarr test runs in CI, without a GPU.
//
// # Model
//
// Devices. GPUARR_HOST_DEVICES=N (default 1) devices, each reporting compute
// capability 9.0, memory pools, managed memory and unified addressing, and
// GOMAXPROCS multiprocessors. Each has a capacity, GPUARR_HOST_MEMORY
// (default 2GiB; bytes or KB/MB/GB, KiB/MiB/GiB, see units.ParseSize), that
// allocation enforces with driver.OutOfMemory, so limits, OOM paths and
// eager GC are testable. The environment is read once; a malformed value
// makes Devices fail with a *driver.ConfigError naming the variable.
//
// Memory. Every allocation is an anonymous mmap outside the Go heap; its
// address is the device pointer. A global index, sorted by address,
// resolves any pointer (interior ones too) to its allocation, device and
// bytes. Work touching memory outside live allocations fails with
// driver.IllegalAddress; freeing an unknown, interior or already freed
// pointer with driver.InvalidValue.
//
// Streams. Each stream is a FIFO served by its own goroutine: every call
// queues and returns, and operations run one at a time in issue order.
// Uploads snapshot their source at the call; downloads block until their
// data is there (CUDA's pageable-memory rules). Events are reached when
// their stream executes the record; a wait blocks the waiting stream's
// goroutine, never the caller, on the record current at the call.
//
// Capture. A capturing stream appends the operations issued on it to its
// capture instead of its queue; EndCapture returns them as a graph whose
// Launch queues them again, in order, as one entry on any stream of the
// device. As in CUDA, Synchronize, Query, a download and an event wait on
// the host during a capture fail with StreamCaptureUnsupported and
// invalidate it (EndCapture then fails with StreamCaptureInvalidated); a
// capturing stream waiting on an event recorded outside the capture fails
// with StreamCaptureIsolation. Node i+1 of a graph is its operation i; a
// graph's launches, copies and memsets can be resized in place, as with CUDA's
// graph-exec node updates (an update replaces the graph's operation list,
// so launches already queued run the operations they were queued with; a
// resized upload copies a prefix of the snapshot its capture took).
//
// Kernels are Go functions (device/hostkernel's Kernel) bound to their PTX
// entry names in a process-wide registry; the devices implement
// hostkernel.Registry, which device.Device.RegisterHostKernel calls.
// LoadModule checks the PTX as a JIT would and binds its entries to the
// registered kernels; a launch runs the kernel once, on the stream's
// goroutine, with a private copy of the arguments, reaching memory through
// hostkernel's Launch.Bytes and View, backed here by a per-launch
// hostkernel.Memory that pins what the kernel views and applies the
// peer-access rules.
//
// Peers. GPUARR_HOST_PEERS=all|none|0-1,2-3 says which devices can be peers;
// the devices implement driver.PeerLinks, so tests change it with
// device.Device.SetPeerLink. Kernels may touch another device's memory only
// after EnablePeerAccess; copies between devices always work.
//
// Checking mode. GPUARR_HOST_CHECK=1 delays queued operations at random
// and poisons freed memory (PoisonByte), so that a missing synchronization
// gives a wrong answer in an ordinary test. Freed managed and page-locked
// memory, which the CPU addresses directly, is quarantined instead
// (inaccessible and not reused for a while; quarantine.go), so that a CPU
// access that outlived it faults at the access.
//
// # Where the host device differs from CUDA
//
//   - Asynchronous errors (an illegal address, a kernel's error or panic)
//     do not poison the device. The first one on a stream is reported once
//     to that stream (its next Synchronize, Query or CopyDtoH) and once to
//     the device (its next Synchronize; Close hands it over to the device);
//     work queued after it still runs. CUDA would make every later call in
//     the context fail; here a test binary can go on after a test of an
//     error path. Events do not carry errors.
//   - Copies and memsets check their addresses when issued (an immediate
//     IllegalAddress) and again when they run (a sticky one, say after a
//     free in between). Copies may touch any host device's memory; kernels
//     need peer access, as on a GPU.
//   - Device.Free, and a free executed on a stream, wait for kernels and
//     copies using that allocation at the moment, so a racing use reads
//     stale or poisoned bytes instead of faulting the process.
//   - Capacity counts the bytes requested, without the page or 2 MiB
//     granularity of real allocations; AllocAsync maps memory directly
//     (there is no default pool to cache it).
//   - Virtual memory (ReserveAddresses): a reservation is an inaccessible
//     anonymous mapping; mapping a 2 MiB granule makes it usable and charges
//     it to the capacity, unmapping poisons (checking mode) and drops it. A
//     copy or kernel touching an unmapped granule fails with IllegalAddress.
//   - MemPool (NewMemPool) is a simple pool of whole blocks in 512-byte size
//     classes; reserved memory beyond the release threshold is unmapped when
//     a free executes, where CUDA trims at synchronizations.
//   - A kernel runs once per launch, not once per thread; it loops over its
//     elements itself (Launch.ParallelFor spreads a loop over the cores).
//   - A stream that is not capturing and waits on an event recorded in a
//     capture fails with StreamCaptureUnsupported: CUDA would join it into
//     the capture. Allocations and frees on a capturing stream fail the
//     same way (CUDA makes them graph nodes). An event recorded in a
//     capture that has ended counts as reached.
//   - HideSymbol is per device; names match with or without "_v2".
//   - Collectives (driver.Collectives) run as goroutine ranks: each rank's
//     part waits on its stream until every rank's stream has reached its
//     own, and the last to arrive computes the result. A rank that never
//     arrives fails the others' streams after GPUARR_HOST_COLLECTIVE_TIMEOUT
//     (default 30s). Unique ids work only in the process that made them.
//     HideSymbol("libnccl") makes the collectives look missing.
//   - Matrix products and solver routines run gonum's own BLAS and LAPACK
//     (never the BLAS a program installs with blas64.Use), float32 ones in
//     float64 and rounded. A solver call's workspace holds the row-major
//     float64 copy of its matrix; Gemm only checks the one it is given.
//     Where gonum reports no index (a failed Cholesky factorization, no
//     convergence), Info is computed the way LAPACK defines it or is 1
//     (syevd, gesvd; n+1 and min(M,N)+1 for the Jacobi batches, as cuSOLVER).
//
// # Boundaries
//
// This package owns the host devices, their memory and index, streams,
// events, pools, the kernel registry and PTX checking. It implements
// device/driver and device/hostkernel and imports nothing else from gpuarr:
// the user API, kernel argument marshalling and device selection belong to
// package device, and allocators, arrays and the GC to the packages above
// it. Only package device imports it: everything above reaches it through
// device's methods and capabilities. It must not print, panic or read the
// environment after first use, and it must not let Go pointers into device
// memory.
package host
