// Package testkernels holds the small kernels that tests, demos and
// benchmarks launch on every backend: each exists as PTX text (for CUDA, in
// ptx.go) and as a Go function (host.go, written against device/hostkernel)
// that Load and PTX bind to the same entry name, through
// device.Device.RegisterHostKernel, on a device that runs kernels written
// in Go. It reaches the host backend only through package device.
//
// Entry points and their .param lists (all pointers are u64 device addresses):
//
//	gpuarr_vadd_f32(a, b, c ptr, n u64)       c[i] = a[i] + b[i], grid-stride
//	gpuarr_spin_write_u32(out ptr, v u32, ns u64)
//	                                          thread 0 spins ns nanoseconds
//	                                          (%globaltimer), then *out = v
//	gpuarr_step_u32(p ptr, i u32)             thread 0: if p[0] == i { p[0] = i+1 } else { p[1] = 1 }
//	                                          (proves in-order execution)
//	gpuarr_copy_u32(dst, src ptr, n u64)      dst[i] = src[i], grid-stride
//	gpuarr_fill_u32(dst ptr, v u32, n u64)    dst[i] = v, grid-stride
//	gpuarr_empty()                            does nothing (launch overhead)
//
// Load gives all of them as one module on a device; Example launches one.
package testkernels
