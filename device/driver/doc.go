// Package driver defines the contract between the user-facing device package
// and its backends, in the way database/sql/driver sits under database/sql.
//
// A backend (device/cuda for NVIDIA GPUs through libcuda, device/host for the
// pure-Go CPU device) implements Backend, Device, Stream, Event, Module,
// Function and MemPool. The device package wraps these in concrete types,
// validates arguments, and marshals kernel arguments into Args before a
// backend sees them.
//
// This package owns the shared vocabulary: device pointers (Ptr), launch
// dimensions (Dim3), marshalled kernel arguments (Args), and the error model
// (Error, Result and the sentinel errors; Example shows both); element
// types are package dtype's. Only packages under device/ import it (and bench/, for the
// backends' benchmark probes; .ci/check-imports.sh holds the rule): the rest
// of the tree reaches what it needs through package device, which names
// these types for its callers. It must not import any backend or
// know anything about arrays, allocators or Go's garbage collector.
//
// What only some backends can do is an optional capability, an interface
// a backend's Device or Stream may implement and package device tests for:
// Compiler, BLAS, BLASWorkspace, Solver and FFT here, CaptureNodes and
// GraphUpdate (naming captured nodes and resizing them in an instantiated
// graph), PeerLinks (simulated peer links), and
// device/hostkernel's Registry (kernels written in Go), which lives beside
// the kernel ABI it needs.
//
// Rules every backend follows:
//   - Calls are safe from any goroutine; no backend pins goroutines to threads.
//   - Stream operations are asynchronous and execute in the order issued.
//   - An asynchronous copy from Go memory returns once the source may be
//     reused; a copy into Go memory returns once the data is there (CUDA's
//     pageable-memory rules). Kernels never see Go memory.
//   - Errors are *Error values carrying a CUDA result code, so errors.Is
//     matches the same sentinels on every backend.
package driver
