// Package cuda is gpuarr's CUDA backend: it implements device/driver on top
// of libcuda, the NVIDIA driver library, through a small C shim (shim.c).
//
// The shim dlopens libcuda.so.1 on first use (Backend().Devices()), never at
// import, and resolves every entry point by its versioned export name
// (cuMemAlloc_v2, cuStreamDestroy_v2, cuEventElapsedTime_v2 falling back to
// cuEventElapsedTime, ...) into a function table. Nothing needs cuda.h or a
// toolkit at build time: the few types, enum values and struct layouts used
// are declared in shim.h. A symbol the library lacks disables only the
// operations that need it (errors with Code driver.SymbolMissing naming the
// symbol); tests hide symbols with Device.HideSymbol, which acts on the
// process-wide table and so on every device.
//
// Contexts: each device retains its primary context. Every shim entry point
// takes the context it needs and makes it current on the calling OS thread
// only when a thread-local cache says it is not, and does the whole driver
// call inside that one cgo call, so goroutines may migrate between threads
// freely: nothing pins a goroutine to a thread or funnels calls through a
// worker. The cache is exact as long as only this package changes the
// current context; code that calls cuCtxSetCurrent itself through libcuda on
// a Go thread (other than through this package) would make it stale.
//
// Kernel arguments arrive marshalled in a driver.Args (Go memory without Go
// pointers); the shim copies them to its stack and builds the parameter
// array there, so a launch allocates nothing in C or Go.
//
// Stream capture uses RELAXED mode: GLOBAL and THREAD_LOCAL tie a capture
// to the OS thread that began it, which a goroutine cannot promise.
// EndCapture ends the capture and instantiates its graph in one shim call.
//
// Errors are *driver.Error values naming the driver call that failed. A
// sticky result (illegal address, launch failure, ...) poisons its device:
// from then on every call on it fails with an error matching
// driver.ErrDeviceLost that names the original failure.
//
// NCCL (nccl.c, nccl.go) is dlopened the first time a communicator is
// made: libnccl.so.2, or the file GPUARR_NCCL_LIB names; NCCL_NVLS_ENABLE
// is set to 0 first (no NVLink multicast on shared GPUs). Without it the
// collectives fail with NotSupported naming the library and nothing else
// changes. A group of collectives over several devices is started and
// ended inside one cgo call, so on one OS thread as NCCL requires; since
// NCCL's runtime switches devices itself, the shim forgets its cached
// current context after every NCCL call. JoinAt (rendezvous.go) meets the
// other ranks at an address through NCCL's own bootstrap (NCCL_COMM_ID,
// set only around the two calls that read it), nonblocking so that a
// deadline can abort it, then splits the result into a blocking
// communicator (NCCL 2.18+).
//
// Built without cgo the backend still compiles; Devices then reports
// driver.LibraryMissing and device.Default falls back to the host device.
//
// Built with -tags gpuarrbench (and only then), devices implement
// driver.CallProbe and streams driver.LaunchProbe and driver.HandoffProbe:
// the same driver calls in C loops (probe.c, probe.go), which bench/binding,
// bench/kernels and bench/array compare the binding with.
//
// Programs reach this backend through package device (device.Open("cuda"),
// or device.Default on a machine with a GPU); Example shows one.
//
// This package owns the libcuda handle, its function table, the primary
// contexts and the thread-local context cache. It must not import anything
// above device/driver, know about arrays, allocators or the GC, print, or
// call libcuda from anywhere but the shim.
package cuda
