// The C half of the CUDA backend: a function table filled by dlopen/dlsym
// and one wrapper per driver operation. No CUDA header is needed: the few
// types below are declared here with the layouts of cuda.h (CUDA 12.x/13.x).

#ifndef GPUARR_CUDA_SHIM_H
#define GPUARR_CUDA_SHIM_H

#include <stddef.h>
#include <stdint.h>

typedef int CUresult;
typedef int CUdevice;
typedef unsigned long long CUdeviceptr;
typedef void *CUcontext;
typedef void *CUstream;
typedef void *CUevent;
typedef void *CUmodule;
typedef void *CUfunction;
typedef void *CUmemoryPool;
typedef void *CUgraph;
typedef void *CUgraphExec;

// Handles cross the Go boundary as integers: cgo then neither checks them as
// pointers on every call nor lets the GC look at them.
typedef uintptr_t gp_h;

// Every wrapper returns 0 on success, or the failing CUresult in the low 32
// bits and the index of the entry point that failed in the high 32 bits, so
// Go can name the call (the context switch, say, rather than the operation).
typedef long long gp_rc;

// An rc and up to two output values, returned by value so that Go passes no
// pointer (and allocates nothing) for out-parameters.
typedef struct {
	gp_rc rc;
	unsigned long long v, w;
} gp_ret;

// Result a wrapper reports for an entry point the library lacks or a test
// hid (driver.SymbolMissing).
#define GP_SYMBOL_MISSING (-1)

// Bounds of a marshalled argument list (driver.MaxArgs, driver.MaxArgBytes).
#define GP_MAX_ARGS 64
#define GP_MAX_ARG_BYTES 1024

// The entry points, by index: X(index name, export name, fallback export).
#define GP_SYMBOLS(X)                                                       \
	X(cuInit, "cuInit", 0)                                                  \
	X(cuDriverGetVersion, "cuDriverGetVersion", 0)                          \
	X(cuGetErrorName, "cuGetErrorName", 0)                                  \
	X(cuGetErrorString, "cuGetErrorString", 0)                              \
	X(cuDeviceGetCount, "cuDeviceGetCount", 0)                              \
	X(cuDeviceGet, "cuDeviceGet", 0)                                        \
	X(cuDeviceGetName, "cuDeviceGetName", 0)                                \
	X(cuDeviceGetAttribute, "cuDeviceGetAttribute", 0)                      \
	X(cuDeviceTotalMem, "cuDeviceTotalMem_v2", 0)                           \
	X(cuDeviceCanAccessPeer, "cuDeviceCanAccessPeer", 0)                    \
	X(cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain", 0)              \
	X(cuCtxSetCurrent, "cuCtxSetCurrent", 0)                                \
	X(cuCtxGetCurrent, "cuCtxGetCurrent", 0)                                \
	X(cuCtxSynchronize, "cuCtxSynchronize", 0)                              \
	X(cuCtxEnablePeerAccess, "cuCtxEnablePeerAccess", 0)                    \
	X(cuMemGetInfo, "cuMemGetInfo_v2", 0)                                   \
	X(cuMemAlloc, "cuMemAlloc_v2", 0)                                       \
	X(cuMemFree, "cuMemFree_v2", 0)                                         \
	X(cuMemAllocAsync, "cuMemAllocAsync", 0)                                \
	X(cuMemFreeAsync, "cuMemFreeAsync", 0)                                  \
	X(cuMemAllocFromPoolAsync, "cuMemAllocFromPoolAsync", 0)                \
	X(cuMemPoolCreate, "cuMemPoolCreate", 0)                                \
	X(cuMemPoolDestroy, "cuMemPoolDestroy", 0)                              \
	X(cuMemPoolSetAttribute, "cuMemPoolSetAttribute", 0)                    \
	X(cuMemPoolGetAttribute, "cuMemPoolGetAttribute", 0)                    \
	X(cuMemPoolTrimTo, "cuMemPoolTrimTo", 0)                                \
	X(cuMemcpyHtoD, "cuMemcpyHtoD_v2", 0)                                   \
	X(cuMemcpyDtoH, "cuMemcpyDtoH_v2", 0)                                   \
	X(cuMemcpyDtoD, "cuMemcpyDtoD_v2", 0)                                   \
	X(cuMemcpyHtoDAsync, "cuMemcpyHtoDAsync_v2", 0)                         \
	X(cuMemcpyDtoHAsync, "cuMemcpyDtoHAsync_v2", 0)                         \
	X(cuMemcpyDtoDAsync, "cuMemcpyDtoDAsync_v2", 0)                         \
	X(cuMemcpyPeerAsync, "cuMemcpyPeerAsync", 0)                            \
	X(cuMemsetD8Async, "cuMemsetD8Async", 0)                                \
	X(cuMemsetD32Async, "cuMemsetD32Async", 0)                              \
	X(cuStreamCreate, "cuStreamCreate", 0)                                  \
	X(cuStreamDestroy, "cuStreamDestroy_v2", 0)                             \
	X(cuStreamSynchronize, "cuStreamSynchronize", 0)                        \
	X(cuStreamQuery, "cuStreamQuery", 0)                                    \
	X(cuStreamWaitEvent, "cuStreamWaitEvent", 0)                            \
	X(cuStreamWriteValue64, "cuStreamWriteValue64_v2", "cuStreamWriteValue64") \
	X(cuStreamWaitValue64, "cuStreamWaitValue64_v2", "cuStreamWaitValue64") \
	X(cuEventCreate, "cuEventCreate", 0)                                    \
	X(cuEventDestroy, "cuEventDestroy_v2", 0)                               \
	X(cuEventRecord, "cuEventRecord", 0)                                    \
	X(cuEventQuery, "cuEventQuery", 0)                                      \
	X(cuEventSynchronize, "cuEventSynchronize", 0)                          \
	/* _v2 since CUDA 12.8; cuda.h 13 no longer declares the old one */    \
	X(cuEventElapsedTime, "cuEventElapsedTime_v2", "cuEventElapsedTime")    \
	X(cuModuleLoadDataEx, "cuModuleLoadDataEx", 0)                          \
	X(cuModuleGetFunction, "cuModuleGetFunction", 0)                        \
	X(cuModuleUnload, "cuModuleUnload", 0)                                  \
	X(cuLaunchKernel, "cuLaunchKernel", 0)                                  \
	X(cuMemAllocHost, "cuMemAllocHost_v2", 0)                               \
	X(cuMemFreeHost, "cuMemFreeHost", 0)                                    \
	X(cuStreamBeginCapture, "cuStreamBeginCapture_v2", 0)                   \
	X(cuStreamEndCapture, "cuStreamEndCapture", 0)                          \
	X(cuStreamIsCapturing, "cuStreamIsCapturing", 0)                        \
	X(cuGraphInstantiateWithFlags, "cuGraphInstantiateWithFlags", 0)        \
	X(cuGraphLaunch, "cuGraphLaunch", 0)                                    \
	X(cuGraphExecDestroy, "cuGraphExecDestroy", 0)                          \
	X(cuGraphDestroy, "cuGraphDestroy", 0)                                  \
	X(cuStreamGetCaptureInfo, "cuStreamGetCaptureInfo_v3", 0)              \
	X(cuGraphExecKernelNodeSetParams, "cuGraphExecKernelNodeSetParams_v2", 0) \
	X(cuGraphMemcpyNodeGetParams, "cuGraphMemcpyNodeGetParams", 0)          \
	X(cuGraphExecMemcpyNodeSetParams, "cuGraphExecMemcpyNodeSetParams", 0)  \
	X(cuGraphMemsetNodeGetParams, "cuGraphMemsetNodeGetParams", 0)          \
	X(cuGraphExecMemsetNodeSetParams, "cuGraphExecMemsetNodeSetParams", 0)  \
	X(cuMemGetAllocationGranularity, "cuMemGetAllocationGranularity", 0)    \
	X(cuMemAddressReserve, "cuMemAddressReserve", 0)                        \
	X(cuMemAddressFree, "cuMemAddressFree", 0)                              \
	X(cuMemCreate, "cuMemCreate", 0)                                        \
	X(cuMemRelease, "cuMemRelease", 0)                                      \
	X(cuMemMap, "cuMemMap", 0)                                              \
	X(cuMemUnmap, "cuMemUnmap", 0)                                          \
	X(cuMemSetAccess, "cuMemSetAccess", 0)                                  \
	X(cuMemAllocManaged, "cuMemAllocManaged", 0)                            \
	X(cuMemPrefetchAsyncLoc, "cuMemPrefetchAsync_v2", 0)                    \
	X(cuMemAdviseLoc, "cuMemAdvise_v2", 0)

#define GP_ENUM(name, sym, alt) GP_##name,
enum { GP_SYMBOLS(GP_ENUM) GP_NSYM };
#undef GP_ENUM

// Virtual memory management (vmm.c, vmm.go): gp_fn_get gives other C files
// an entry point (NULL when missing or hidden), gp_pack their result.
void *gp_fn_get(int i);
gp_rc gp_pack(CUresult r, int sym);
// Updating captured graphs in place (graphnode.c, graphnode.go).
// last_node returns the capture's single current dependency in v and the
// number of dependencies in w (the node is valid only when w is 1).
gp_ret gp_stream_last_node(gp_h ctx, gp_h s);
gp_rc gp_graph_set_kernel(gp_h ctx, gp_h exec, gp_h node, gp_h f, unsigned gx, unsigned gy,
                          unsigned gz, unsigned bx, unsigned by, unsigned bz, unsigned shared,
                          const void *buf, const unsigned short *off, int nargs, int size);
gp_rc gp_graph_set_copy_bytes(gp_h ctx, gp_h exec, gp_h node, size_t bytes);
gp_rc gp_graph_set_memset_bytes(gp_h ctx, gp_h exec, gp_h node, size_t bytes);

gp_ret gp_vm_granularity(gp_h ctx, CUdevice dev);
gp_ret gp_vm_reserve(gp_h ctx, size_t size);
gp_rc gp_vm_free(gp_h ctx, CUdeviceptr p, size_t size);
gp_ret gp_vm_map(gp_h ctx, CUdevice dev, CUdeviceptr p, size_t size);
gp_rc gp_vm_unmap(gp_h ctx, CUdeviceptr p, size_t size, unsigned long long h);

// Managed memory (managed.c). The location-based prefetch and advice
// (cuMemPrefetchAsync_v2, cuMemAdvise_v2: CUDA 12.2 and later, the
// unversioned names of CUDA 13) take a CUmemLocation by value.
typedef struct {
	int type; // CUmemLocationType: DEVICE 1, HOST 2
	int id;   // device ordinal; ignored for HOST
} gp_mem_loc; // CUmemLocation
gp_ret gp_mem_alloc_managed(gp_h ctx, size_t n, unsigned flags);
gp_rc gp_mem_prefetch(gp_h ctx, CUdeviceptr p, size_t n, int loctype, int locid, gp_h s);
gp_rc gp_mem_advise(gp_h ctx, CUdeviceptr p, size_t n, int advice, int loctype, int locid);
void *gp_host_ptr(CUdeviceptr p);

// Loading and the symbol table (lib.go).
int gp_load(char *err, int errlen);
int gp_nsym(void);
const char *gp_sym_name(int i);
const char *gp_sym_candidate(int i, int k);
int gp_sym_present(int i);
void gp_sym_hide(int i, int delta);
int gp_sym_hidden(int i);
const char *gp_error_name(CUresult r);
const char *gp_error_string(CUresult r);

// Devices and contexts (device.go).
gp_rc gp_init(void);
gp_ret gp_driver_version(void);
gp_ret gp_device_count(void);
gp_ret gp_device_get(int ordinal);
gp_rc gp_device_name(CUdevice dev, char *buf, int len);
gp_ret gp_device_attr(CUdevice dev, int attr);
gp_ret gp_device_total_mem(CUdevice dev);
gp_ret gp_device_can_access_peer(CUdevice dev, CUdevice peer);
gp_ret gp_primary_ctx_retain(CUdevice dev);
gp_rc gp_ctx_synchronize(gp_h ctx);
gp_rc gp_ctx_enable_peer(gp_h ctx, gp_h peer);
gp_ret gp_mem_info(gp_h ctx);

// Streams and events (stream.go, event.go).
gp_ret gp_stream_create(gp_h ctx);
gp_rc gp_stream_destroy(gp_h ctx, gp_h s);
gp_rc gp_stream_synchronize(gp_h ctx, gp_h s);
gp_rc gp_stream_query(gp_h ctx, gp_h s);
gp_rc gp_stream_wait_event(gp_h ctx, gp_h s, gp_h e);
gp_ret gp_event_create(gp_h ctx, unsigned flags);
gp_rc gp_event_destroy(gp_h ctx, gp_h e);
gp_rc gp_event_record(gp_h ctx, gp_h e, gp_h s);
gp_rc gp_event_record_wait(gp_h ctx, gp_h e, gp_h s, gp_h w);
gp_rc gp_event_query(gp_h ctx, gp_h e);
gp_rc gp_event_synchronize(gp_h ctx, gp_h e);
gp_ret gp_event_elapsed(gp_h ctx, gp_h start, gp_h end); // v: float32 bits

// Capture and graphs (capture.go, graph.go). end_capture returns the
// CUgraph in v and its instantiated CUgraphExec in w.
gp_rc gp_stream_begin_capture(gp_h ctx, gp_h s, int mode);
gp_ret gp_stream_end_capture(gp_h ctx, gp_h s);
gp_ret gp_stream_is_capturing(gp_h ctx, gp_h s); // v: CUstreamCaptureStatus
gp_rc gp_graph_launch(gp_h ctx, gp_h exec, gp_h s);
gp_rc gp_graph_launch_joined(gp_h ctx, gp_h exec, gp_h on, gp_h caller, gp_h before, gp_h after);
gp_rc gp_graph_destroy(gp_h ctx, gp_h graph, gp_h exec);

// Memory (memory.go, pool.go).
gp_ret gp_mem_alloc(gp_h ctx, size_t n);
gp_rc gp_mem_free(gp_h ctx, CUdeviceptr p);
gp_ret gp_mem_alloc_async(gp_h ctx, size_t n, gp_h s);
gp_rc gp_mem_free_async(gp_h ctx, CUdeviceptr p, gp_h s);
gp_rc gp_memcpy_htod(gp_h ctx, CUdeviceptr dst, const void *src, size_t n);
gp_rc gp_memcpy_dtoh(gp_h ctx, void *dst, CUdeviceptr src, size_t n);
gp_rc gp_memcpy_dtod(gp_h ctx, CUdeviceptr dst, CUdeviceptr src, size_t n);
gp_rc gp_memcpy_htod_async(gp_h ctx, CUdeviceptr dst, const void *src, size_t n, gp_h s);
gp_rc gp_memcpy_dtoh_async(gp_h ctx, void *dst, CUdeviceptr src, size_t n, gp_h s);
gp_rc gp_memcpy_dtod_async(gp_h ctx, CUdeviceptr dst, CUdeviceptr src, size_t n, gp_h s);
gp_rc gp_memcpy_peer_async(gp_h ctx, CUdeviceptr dst, gp_h dstCtx, CUdeviceptr src,
                           gp_h srcCtx, size_t n, gp_h s);
gp_rc gp_memset8_async(gp_h ctx, CUdeviceptr dst, unsigned char v, size_t n, gp_h s);
gp_rc gp_memset32_async(gp_h ctx, CUdeviceptr dst, unsigned v, size_t n, gp_h s);
gp_ret gp_pool_create(gp_h ctx, CUdevice dev);
gp_rc gp_pool_destroy(gp_h ctx, gp_h pool);
gp_rc gp_pool_set_u64(gp_h ctx, gp_h pool, int attr, unsigned long long v);
gp_ret gp_pool_get_u64(gp_h ctx, gp_h pool, int attr);
gp_rc gp_pool_trim(gp_h ctx, gp_h pool, size_t keep);
gp_ret gp_pool_alloc_async(gp_h ctx, gp_h pool, size_t n, gp_h s);

// Page-locked host memory (hostmem.go): p is the allocation, returned as a
// pointer so that Go receives it as one (not as an integer to convert).
typedef struct {
	gp_rc rc;
	void *p;
} gp_pret;
gp_pret gp_mem_alloc_host(gp_h ctx, size_t n);
gp_rc gp_mem_free_host(gp_h ctx, void *p);

// Modules and launches (module.go, launch.go).
gp_ret gp_module_load(gp_h ctx, const char *image, char *errlog, unsigned errlen,
                      char *infolog, unsigned infolen);
gp_rc gp_module_unload(gp_h ctx, gp_h m);
gp_ret gp_module_function(gp_h ctx, gp_h m, const char *name);
gp_rc gp_launch(gp_h ctx, gp_h f, unsigned gx, unsigned gy, unsigned gz,
                unsigned bx, unsigned by, unsigned bz, unsigned shared, gp_h s,
                const void *buf, const unsigned short *off, int nargs, int size);
gp_ret gp_launch_after(gp_h ctx, gp_h f, unsigned gx, unsigned gy, unsigned gz,
                       unsigned bx, unsigned by, unsigned bz, unsigned shared, gp_h s,
                       const void *buf, const unsigned short *off, int nargs, int size,
                       int nh, gp_h e0, gp_h from0, gp_h e1, gp_h from1);
// Copies a marshalled argument list (buf, off: nargs arguments in size
// bytes) into vals, at most GP_MAX_ARG_BYTES, and points params[i] at
// argument i; 0 when the list is out of bounds. For launches made outside
// shim.c.
int gp_marshal(unsigned long long *vals, void **params, const void *buf, const unsigned short *off,
               int nargs, int size);

// Tests only: cuMemFree_v2 without the backend's bookkeeping.
gp_rc gp_mem_free_raw(gp_h ctx, CUdeviceptr p);

#endif
