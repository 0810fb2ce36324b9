// Package device is gpuarr's driver layer: devices, streams, events, raw
// device memory and kernels loaded from PTX, over pluggable backends
// (device/driver is their contract). device/cuda reaches libcuda through
// cgo and dlopen, so builds need no CUDA toolkit and run without a GPU;
// device/host is a pure-Go device with the same semantics (asynchronous
// FIFO streams, events, device memory outside the Go heap with a
// capacity), so every test runs in CI as well as on a GPU.
//
// # Devices
//
// Default gives CUDA device 0 when a driver and a GPU are usable, else the
// host device; GPUARR_DEVICE=host|host:N|cuda|cuda:N chooses (Open parses
// the same specs). Importing the package never prints, panics or exits: a
// missing driver or GPU only makes the host device the default.
//
// # Streams and events
//
// Work is issued on streams and runs in issue order on each; a call returns
// once the work is queued. Each device has a default stream; NewStream
// gives more for overlap. An event recorded on one stream and waited for
// on another orders the second after the first on the device, without
// blocking the CPU (RecordWait does both in one driver round trip).
// Copies from Go memory return once the source may be reused, copies into
// Go memory once the data is there; kernels never see Go memory. Example
// shows two streams ordered by an event.
//
// # Errors
//
// Errors are *Error values (an alias of driver.Error) carrying the CUDA
// result, its name and the failing call; they match the sentinels (ErrNoDevice,
// ErrOutOfMemory, ErrNotSupported, ErrClosed, ...) with errors.Is on every
// backend. A malformed GPUARR_* variable is a *ConfigError matching
// ErrBadConfig that names it.
//
// # Capabilities
//
// What only some backends can do is an optional capability (an interface
// in device/driver or device/hostkernel) that a method here exposes,
// answering ErrNotSupported where the backend lacks it:
//
//   - Stream.Gemm: matrix products, cuBLAS on CUDA (libcublas.so.13, else
//     .12; GPUARR_CUBLAS_LIB), gonum's BLAS on the host. A Gemm may bring
//     the library's workspace (Gemm.Work, Stream.BLASWorkspace bytes).
//   - Stream.Solve: one LAPACK routine (driver.SolverOp) on column-major
//     matrices with the workspace SolverWorkspace asks for; cuSOLVER on
//     CUDA (libcusolver.so.12, else .11; GPUARR_CUSOLVER_LIB), gonum's
//     LAPACK on the host.
//   - Stream.FFT: a batch of Fourier transforms (driver.FFTPlan: C2C, R2C
//     or C2R, rank 1 to 3, strided layouts) with the workspace
//     FFTWorkspace asks for; cuFFT on CUDA (libcufft.so.12, else .11;
//     GPUARR_CUFFT_LIB), its plans cached per device; gonum's dsp/fourier
//     on the host.
//   - Device.LoadCUDA and CompileCUDA: CUDA C through NVRTC
//     (libnvrtc.so.13, else .12; GPUARR_NVRTC_LIB); a source that does not
//     compile matches ErrCompile and carries the log. The host cannot.
//   - Device.RegisterHostKernel: a kernel written in Go (device/hostkernel)
//     bound to a PTX entry name; the host device runs it where a GPU runs
//     the PTX (RunsHostKernels says which holds).
//   - Stream.LastCaptured and Graph.UpdateLaunch, UpdateCopy, UpdateMemset:
//     resizing captured graph nodes in place.
//   - Device.Checking: whether freed memory should be poisoned (the host
//     backend under GPUARR_HOST_CHECK=1, never CUDA), for allocators above.
//   - Device.SetPeerLink: which host devices can be peers, for tests.
//
// Libraries are dlopened on first use; a missing one makes the calls that
// need it fail with ErrNotSupported naming it. HideSymbol("libcublas"),
// ("libcusolver"), ("libcufft"), ("libnvrtc") or a driver entry point's name makes it
// look missing, for tests.
//
// # Boundaries
//
// This package is the only way into a backend: no package outside device/
// imports device/host, device/cuda or device/driver (bench/'s probes
// excepted), tests included; .ci/check-imports.sh checks it. It owns
// devices, contexts, streams, events, modules and raw allocations, and
// knows nothing of arrays, caching allocators or the GC (packages gpuarr,
// memory and gcpressure).
package device
