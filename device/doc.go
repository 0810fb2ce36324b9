// Package device is gpuarr's driver layer: devices, streams, events, raw
// device memory, and kernels loaded from PTX.
//
// It is a thin, checked API over pluggable backends (see device/driver):
// device/cuda talks to libcuda through cgo and dlopen, so builds need no CUDA
// toolkit and run fine without a GPU; device/host is a pure-Go device with the
// same semantics (asynchronous FIFO streams, events, device memory outside the
// Go heap with a capacity), so every test runs in CI as well as on a GPU.
//
// Selecting a device:
//
//	dev, err := device.Default() // CUDA device 0 if usable, else the host device
//
// GPUARR_DEVICE=host|host:N|cuda|cuda:N overrides the choice. Importing this
// package never prints, panics or exits; a missing driver or GPU simply makes
// the host device the default.
//
// Work is issued on streams. Each device has a default stream that simple code
// uses; NewStream gives more for overlap. Events order one stream after
// another on the device side, without blocking the CPU:
//
//	s1, s2 := dev.DefaultStream(), must(dev.NewStream())
//	s1.Launch(k, cfg, args...)
//	ev := must(dev.NewEvent())
//	s1.Record(ev)
//	s2.Wait(ev) // s2's later work starts after s1's launch
//
// Errors are values: *driver.Error (aliased here as Error) carries the CUDA
// result, its name and the failing call, and matches the sentinels below
// with errors.Is on every backend.
//
// Matrix products and CUDA C. Two optional backend capabilities
// (driver.BLAS, driver.Compiler) sit beside the driver calls:
//
//	s.Gemm(device.Gemm{Type: device.Float32, M: m, N: n, K: k, ...}) // column-major, in s's order
//	mod, err := dev.LoadCUDA(`extern "C" __global__ void k(float *x) { ... }`)
//
// On CUDA, Gemm is cuBLAS (libcublas.so.13, else .12) and CompileCUDA is
// NVRTC (libnvrtc.so.13, else .12), each dlopened on first use, from the
// loader's path or the toolkit's directories (GPUARR_CUBLAS_LIB and
// GPUARR_NVRTC_LIB name another file). Without the library the call fails
// with an error matching ErrNotSupported that names it; a source that does
// not compile matches ErrCompile and carries NVRTC's log. The host device
// multiplies with gonum's BLAS, in stream order, and cannot compile CUDA C.
// HideSymbol("libcublas") and HideSymbol("libnvrtc") make either library
// look missing, on both backends, for tests. A Gemm may bring the
// library's workspace (Gemm.Work, Stream.BLASWorkspace bytes), so that
// cuBLAS allocates none of its own.
//
// Dense linear algebra is a third (driver.Solver): Stream.Solve queues one
// LAPACK routine (getrf, getrs, potrf, potrs, geqrf, orgqr, syevd, gesvd,
// gesvdj and batched forms; see driver.SolverOp) on column-major device
// matrices, with the workspace Stream.SolverWorkspace asks for. On CUDA it
// is cuSOLVER (libcusolver.so.12, else .11; GPUARR_CUSOLVER_LIB) and, for
// the batched LU routines, cuBLAS; the host device runs gonum's LAPACK in
// stream order. HideSymbol("libcusolver") makes cuSOLVER look missing.
// Package linalg is the API over arrays.
//
// Checking mode is a third capability (driver.Checker): Device.Checking
// tells allocators above whether the backend wants freed memory poisoned
// and with which byte (the host backend under GPUARR_HOST_CHECK=1; never
// CUDA), so they need not import a backend to ask.
//
// Updating captured graphs in place is a fourth pair of capabilities
// (driver.CaptureNodes on streams, driver.GraphUpdate on graphs):
// Stream.LastCaptured names the node an operation just became, and
// Graph.UpdateLaunch, UpdateCopy and UpdateMemset give kernel, copy and
// memset nodes new
// sizes for later launches; both backends have them.
//
// Kernels written in Go. The host device cannot run PTX: it runs Go
// functions (device/hostkernel's Kernel) bound to PTX entry names, and
// checks the PTX as a JIT would. RegisterHostKernel binds one (on CUDA it
// fails with ErrNotSupported, and RunsHostKernels says which case holds):
//
//	if dev.RunsHostKernels() {
//		if _, err := dev.RegisterHostKernel("mypkg_scale", scaleInGo); err != nil { ... }
//	}
//	mod, err := dev.LoadPTX(scalePTX) // PTX on a GPU, scaleInGo on the host
//
// SetPeerLink changes which host devices can be peers, for tests of
// multi-device code; GPUs' links are their hardware's.
//
// # Boundaries
//
// This package is the only way into a backend: no package outside device/
// imports device/host or device/cuda, tests included (make test checks it
// with .ci/check-imports.sh). What only one backend can do is an optional
// capability (an interface in device/driver or device/hostkernel) that
// the backend implements and a method here exposes, answering
// ErrNotSupported elsewhere.
//
// This package owns devices, contexts, streams, events, modules and raw
// allocations. It knows nothing of arrays, caching allocators or the GC:
// those live in memory, gcpressure and gpuarr.
package device
