// Command gpuarr inspects the devices gpuarr can use.
//
// Usage:
//
//	gpuarr info    the devices of every backend, their attributes and peer
//	               access, and which one device.Default() picks
//	gpuarr memviz [-o page.html] trace.json
//	               the memory timeline of a trace, as one self-contained
//	               HTML page (package memory/memviz)
//	gpuarr help    this text
//
// info lists the CUDA devices when a driver and a GPU are usable (and says
// why not otherwise) and the host backend's devices, which always exist. The
// default device is marked with '*'. The environment variables that device
// selection and the host backend read (GPUARR_DEVICE, GPUARR_HOST_DEVICES,
// GPUARR_HOST_MEMORY, GPUARR_HOST_PEERS) apply as they do to any program.
//
// info only reads device state; it allocates nothing. memviz reads the
// JSON a memory.Tracer writes (GPUARR_MEMORY_TRACE=N records one for each
// device's default resource; the example programs write it with
// -gpumemtrace FILE).
package main
