//go:build cgo

// The C half of the CUDA backend; see shim.h. Each wrapper makes its context
// current (only when this OS thread's cache says it is not) and does the
// whole driver call, so a goroutine that migrates between cgo calls cannot
// see another thread's context.

#include "shim.h"

#include <dlfcn.h>
#include <stdint.h>
#include <string.h>

// Function pointer types, by index name.
typedef CUresult (*t_cuInit)(unsigned);
typedef CUresult (*t_cuDriverGetVersion)(int *);
typedef CUresult (*t_cuGetErrorName)(CUresult, const char **);
typedef CUresult (*t_cuGetErrorString)(CUresult, const char **);
typedef CUresult (*t_cuDeviceGetCount)(int *);
typedef CUresult (*t_cuDeviceGet)(CUdevice *, int);
typedef CUresult (*t_cuDeviceGetName)(char *, int, CUdevice);
typedef CUresult (*t_cuDeviceGetAttribute)(int *, int, CUdevice);
typedef CUresult (*t_cuDeviceTotalMem)(size_t *, CUdevice);
typedef CUresult (*t_cuDeviceCanAccessPeer)(int *, CUdevice, CUdevice);
typedef CUresult (*t_cuDevicePrimaryCtxRetain)(CUcontext *, CUdevice);
typedef CUresult (*t_cuCtxSetCurrent)(CUcontext);
typedef CUresult (*t_cuCtxSynchronize)(void);
typedef CUresult (*t_cuCtxEnablePeerAccess)(CUcontext, unsigned);
typedef CUresult (*t_cuMemGetInfo)(size_t *, size_t *);
typedef CUresult (*t_cuMemAlloc)(CUdeviceptr *, size_t);
typedef CUresult (*t_cuMemFree)(CUdeviceptr);
typedef CUresult (*t_cuMemAllocAsync)(CUdeviceptr *, size_t, CUstream);
typedef CUresult (*t_cuMemFreeAsync)(CUdeviceptr, CUstream);
typedef CUresult (*t_cuMemAllocFromPoolAsync)(CUdeviceptr *, size_t, CUmemoryPool, CUstream);
typedef CUresult (*t_cuMemPoolDestroy)(CUmemoryPool);
typedef CUresult (*t_cuMemPoolSetAttribute)(CUmemoryPool, int, void *);
typedef CUresult (*t_cuMemPoolGetAttribute)(CUmemoryPool, int, void *);
typedef CUresult (*t_cuMemPoolTrimTo)(CUmemoryPool, size_t);
typedef CUresult (*t_cuMemcpyHtoD)(CUdeviceptr, const void *, size_t);
typedef CUresult (*t_cuMemcpyDtoH)(void *, CUdeviceptr, size_t);
typedef CUresult (*t_cuMemcpyDtoD)(CUdeviceptr, CUdeviceptr, size_t);
typedef CUresult (*t_cuMemcpyHtoDAsync)(CUdeviceptr, const void *, size_t, CUstream);
typedef CUresult (*t_cuMemcpyDtoHAsync)(void *, CUdeviceptr, size_t, CUstream);
typedef CUresult (*t_cuMemcpyDtoDAsync)(CUdeviceptr, CUdeviceptr, size_t, CUstream);
typedef CUresult (*t_cuMemcpyPeerAsync)(CUdeviceptr, CUcontext, CUdeviceptr, CUcontext, size_t, CUstream);
typedef CUresult (*t_cuMemsetD8Async)(CUdeviceptr, unsigned char, size_t, CUstream);
typedef CUresult (*t_cuMemsetD32Async)(CUdeviceptr, unsigned, size_t, CUstream);
typedef CUresult (*t_cuStreamCreate)(CUstream *, unsigned);
typedef CUresult (*t_cuStreamDestroy)(CUstream);
typedef CUresult (*t_cuStreamSynchronize)(CUstream);
typedef CUresult (*t_cuStreamQuery)(CUstream);
typedef CUresult (*t_cuStreamWaitEvent)(CUstream, CUevent, unsigned);
typedef CUresult (*t_cuEventCreate)(CUevent *, unsigned);
typedef CUresult (*t_cuEventDestroy)(CUevent);
typedef CUresult (*t_cuEventRecord)(CUevent, CUstream);
typedef CUresult (*t_cuEventQuery)(CUevent);
typedef CUresult (*t_cuEventSynchronize)(CUevent);
typedef CUresult (*t_cuEventElapsedTime)(float *, CUevent, CUevent);
typedef CUresult (*t_cuModuleLoadDataEx)(CUmodule *, const void *, unsigned, int *, void **);
typedef CUresult (*t_cuModuleGetFunction)(CUfunction *, CUmodule, const char *);
typedef CUresult (*t_cuModuleUnload)(CUmodule);
typedef CUresult (*t_cuMemAllocHost)(void **, size_t);
typedef CUresult (*t_cuMemFreeHost)(void *);
typedef CUresult (*t_cuStreamBeginCapture)(CUstream, int);
typedef CUresult (*t_cuStreamEndCapture)(CUstream, CUgraph *);
typedef CUresult (*t_cuStreamIsCapturing)(CUstream, int *);
typedef CUresult (*t_cuGraphInstantiateWithFlags)(CUgraphExec *, CUgraph, unsigned long long);
typedef CUresult (*t_cuGraphLaunch)(CUgraphExec, CUstream);
typedef CUresult (*t_cuGraphExecDestroy)(CUgraphExec);
typedef CUresult (*t_cuGraphDestroy)(CUgraph);

// Graph node updates (cuda.h 12.3+/13.x layouts, checked by size below).
typedef void *CUgraphNode;
typedef struct {
	CUfunction func;
	unsigned int gridDimX, gridDimY, gridDimZ;
	unsigned int blockDimX, blockDimY, blockDimZ;
	unsigned int sharedMemBytes;
	void **kernelParams;
	void **extra;
	void *kern;    // CUkernel: used only when func is NULL
	CUcontext ctx; // NULL: the current context
} gp_kernel_node_params; // CUDA_KERNEL_NODE_PARAMS_v2
_Static_assert(sizeof(gp_kernel_node_params) == 72, "CUDA_KERNEL_NODE_PARAMS_v2 is 72 bytes");

typedef struct {
	size_t srcXInBytes, srcY, srcZ, srcLOD;
	int srcMemoryType; // CUmemorytype
	const void *srcHost;
	CUdeviceptr srcDevice;
	void *srcArray; // CUarray
	void *reserved0;
	size_t srcPitch, srcHeight;
	size_t dstXInBytes, dstY, dstZ, dstLOD;
	int dstMemoryType;
	void *dstHost;
	CUdeviceptr dstDevice;
	void *dstArray;
	void *reserved1;
	size_t dstPitch, dstHeight;
	size_t WidthInBytes, Height, Depth;
} gp_memcpy3d; // CUDA_MEMCPY3D_v2
_Static_assert(sizeof(gp_memcpy3d) == 200, "CUDA_MEMCPY3D is 200 bytes");

typedef struct {
	CUdeviceptr dst;
	size_t pitch;
	unsigned int value;
	unsigned int elementSize; // 1, 2 or 4
	size_t width;             // in elements
	size_t height;
} gp_memset_node_params; // CUDA_MEMSET_NODE_PARAMS
_Static_assert(sizeof(gp_memset_node_params) == 40, "CUDA_MEMSET_NODE_PARAMS is 40 bytes");

typedef CUresult (*t_cuGraphMemsetNodeGetParams)(CUgraphNode, gp_memset_node_params *);
typedef CUresult (*t_cuGraphExecMemsetNodeSetParams)(CUgraphExec, CUgraphNode, const gp_memset_node_params *, CUcontext);
typedef CUresult (*t_cuStreamGetCaptureInfo)(CUstream, int *, unsigned long long *, CUgraph *,
                                             const CUgraphNode **, const void **, size_t *);
typedef CUresult (*t_cuGraphExecKernelNodeSetParams)(CUgraphExec, CUgraphNode, const gp_kernel_node_params *);
typedef CUresult (*t_cuGraphMemcpyNodeGetParams)(CUgraphNode, gp_memcpy3d *);
typedef CUresult (*t_cuGraphExecMemcpyNodeSetParams)(CUgraphExec, CUgraphNode, const gp_memcpy3d *, CUcontext);

static inline int gp_params(unsigned long long *vals, void **params, const void *buf,
                            const unsigned short *off, int nargs, int size);
typedef CUresult (*t_cuLaunchKernel)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned,
                                     unsigned, unsigned, CUstream, void **, void **);

// CUmemLocation and CUmemPoolProps as in cuda.h 12.x/13.x: 88 bytes, the
// reserved tail zeroed.
typedef struct {
	int type; // CUmemLocationType: DEVICE = 1
	int id;
} gp_mem_location;

typedef struct {
	int allocType;   // CUmemAllocationType: PINNED = 1
	int handleTypes; // CUmemAllocationHandleType: NONE = 0
	gp_mem_location location;
	void *win32SecurityAttributes;
	size_t maxSize; // 0: the system's default
	unsigned short usage;
	unsigned char reserved[54];
} gp_mem_pool_props;

typedef CUresult (*t_cuMemPoolCreate)(CUmemoryPool *, const gp_mem_pool_props *);

_Static_assert(sizeof(gp_mem_pool_props) == 88, "CUmemPoolProps is 88 bytes");

#define GP_NAME(name, sym, alt) {sym, alt},
static const char *const gp_names[GP_NSYM][2] = {GP_SYMBOLS(GP_NAME)};
#undef GP_NAME

static void *gp_lib;
static void *gp_fn[GP_NSYM];
static const char *gp_bound[GP_NSYM]; // the export name actually resolved
static int gp_hidden[GP_NSYM];        // > 0: a test hides the symbol

// The context current on this OS thread as far as the shim knows. Only the
// shim changes contexts, so the cache is exact unless foreign code on the
// same thread calls cuCtxSetCurrent.
static __thread gp_h gp_cur;

#define CU(name) ((t_##name)gp_fn[GP_##name])
#define P(h) ((void *)(h)) // a handle back to the driver's pointer type

static inline gp_rc pack(CUresult r, int sym) {
	return (gp_rc)(((unsigned long long)(unsigned)sym << 32) | (unsigned)r);
}

static inline int missing(int i) {
	return __builtin_expect(gp_fn[i] == 0 || __atomic_load_n(&gp_hidden[i], __ATOMIC_RELAXED) > 0, 0);
}

static inline gp_rc use_ctx(gp_h ctx) {
	if (__builtin_expect(gp_cur == ctx, 1)) {
		return 0;
	}
	if (missing(GP_cuCtxSetCurrent)) {
		return pack(GP_SYMBOL_MISSING, GP_cuCtxSetCurrent);
	}
	CUresult r = CU(cuCtxSetCurrent)(P(ctx));
	if (r) {
		return pack(r, GP_cuCtxSetCurrent);
	}
	gp_cur = ctx;
	return 0;
}

// The same, for the cuBLAS wrappers (blas.c), which live outside this file.
gp_rc gp_use_ctx(gp_h ctx) { return use_ctx(ctx); }

// Forgets which context is current, for libraries that switch contexts
// themselves (NCCL's runtime does): the next call sets its own again.
void gp_forget_ctx(void) { gp_cur = 0; }
// Entry points and result packing for the driver wrappers outside this
// file (vmm.c).
void *gp_fn_get(int i) { return i >= 0 && i < GP_NSYM && !missing(i) ? gp_fn[i] : 0; }
gp_rc gp_pack(CUresult r, int sym) { return pack(r, sym); }

// Wrapper bodies: CALL for gp_rc wrappers, RCALL for gp_ret ones (out.rc).
#define CALL(name, ...)                                          \
	do {                                                         \
		if (missing(GP_##name)) return pack(GP_SYMBOL_MISSING, GP_##name); \
		CUresult r_ = CU(name)(__VA_ARGS__);                     \
		return r_ ? pack(r_, GP_##name) : 0;                     \
	} while (0)

#define CTX(ctx)                      \
	do {                              \
		gp_rc c_ = use_ctx(ctx);      \
		if (c_) return c_;            \
	} while (0)

#define RCALL(out, name, ...)                                          \
	do {                                                               \
		if (missing(GP_##name)) {                                      \
			(out).rc = pack(GP_SYMBOL_MISSING, GP_##name);             \
			return (out);                                              \
		}                                                              \
		CUresult r_ = CU(name)(__VA_ARGS__);                           \
		if (r_) {                                                      \
			(out).rc = pack(r_, GP_##name);                            \
			return (out);                                              \
		}                                                              \
	} while (0)

#define RCTX(out, ctx)                \
	do {                              \
		(out).rc = use_ctx(ctx);      \
		if ((out).rc) return (out);   \
	} while (0)

// ---- loading and the symbol table ----

int gp_load(char *err, int errlen) {
	if (gp_lib) {
		return 0;
	}
	void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		const char *e = dlerror();
		strncpy(err, e ? e : "dlopen libcuda.so.1 failed", errlen - 1);
		err[errlen - 1] = 0;
		return -1;
	}
	for (int i = 0; i < GP_NSYM; i++) {
		for (int k = 0; k < 2 && !gp_fn[i]; k++) {
			if (gp_names[i][k]) {
				gp_fn[i] = dlsym(h, gp_names[i][k]);
				gp_bound[i] = gp_names[i][k];
			}
		}
		if (!gp_fn[i]) {
			gp_bound[i] = 0;
		}
	}
	gp_lib = h;
	return 0;
}

int gp_nsym(void) { return GP_NSYM; }

// The export names tried for entry point i (k = 0, 1); NULL past the last.
const char *gp_sym_candidate(int i, int k) {
	return i >= 0 && i < GP_NSYM && k >= 0 && k < 2 ? gp_names[i][k] : 0;
}

const char *gp_sym_name(int i) {
	if (i < 0 || i >= GP_NSYM) {
		return 0;
	}
	return gp_bound[i] ? gp_bound[i] : gp_names[i][0];
}

int gp_sym_present(int i) { return i >= 0 && i < GP_NSYM && !missing(i); }

void gp_sym_hide(int i, int delta) {
	if (i >= 0 && i < GP_NSYM) {
		__atomic_add_fetch(&gp_hidden[i], delta, __ATOMIC_SEQ_CST);
	}
}

int gp_sym_hidden(int i) {
	return i >= 0 && i < GP_NSYM ? __atomic_load_n(&gp_hidden[i], __ATOMIC_SEQ_CST) : 0;
}

const char *gp_error_name(CUresult r) {
	const char *s = 0;
	if (!missing(GP_cuGetErrorName) && CU(cuGetErrorName)(r, &s) != 0) {
		s = 0;
	}
	return s;
}

const char *gp_error_string(CUresult r) {
	const char *s = 0;
	if (!missing(GP_cuGetErrorString) && CU(cuGetErrorString)(r, &s) != 0) {
		s = 0;
	}
	return s;
}

// ---- devices and contexts ----

gp_rc gp_init(void) { CALL(cuInit, 0); }

gp_ret gp_driver_version(void) {
	gp_ret out = {0};
	int v = 0;
	RCALL(out, cuDriverGetVersion, &v);
	out.v = (unsigned long long)v;
	return out;
}

gp_ret gp_device_count(void) {
	gp_ret out = {0};
	int n = 0;
	RCALL(out, cuDeviceGetCount, &n);
	out.v = (unsigned long long)n;
	return out;
}

gp_ret gp_device_get(int ordinal) {
	gp_ret out = {0};
	CUdevice d = 0;
	RCALL(out, cuDeviceGet, &d, ordinal);
	out.v = (unsigned long long)d;
	return out;
}

gp_rc gp_device_name(CUdevice dev, char *buf, int len) { CALL(cuDeviceGetName, buf, len, dev); }

gp_ret gp_device_attr(CUdevice dev, int attr) {
	gp_ret out = {0};
	int v = 0;
	RCALL(out, cuDeviceGetAttribute, &v, attr, dev);
	out.v = (unsigned long long)(long long)v;
	return out;
}

gp_ret gp_device_total_mem(CUdevice dev) {
	gp_ret out = {0};
	size_t n = 0;
	RCALL(out, cuDeviceTotalMem, &n, dev);
	out.v = n;
	return out;
}

gp_ret gp_device_can_access_peer(CUdevice dev, CUdevice peer) {
	gp_ret out = {0};
	int v = 0;
	RCALL(out, cuDeviceCanAccessPeer, &v, dev, peer);
	out.v = (unsigned long long)v;
	return out;
}

gp_ret gp_primary_ctx_retain(CUdevice dev) {
	gp_ret out = {0};
	CUcontext c = 0;
	RCALL(out, cuDevicePrimaryCtxRetain, &c, dev);
	out.v = (uintptr_t)c;
	return out;
}

gp_rc gp_ctx_synchronize(gp_h ctx) {
	CTX(ctx);
	CALL(cuCtxSynchronize);
}

gp_rc gp_ctx_enable_peer(gp_h ctx, gp_h peer) {
	CTX(ctx);
	CALL(cuCtxEnablePeerAccess, P(peer), 0);
}

gp_ret gp_mem_info(gp_h ctx) {
	gp_ret out = {0};
	size_t free = 0, total = 0;
	RCTX(out, ctx);
	RCALL(out, cuMemGetInfo, &free, &total);
	out.v = free;
	out.w = total;
	return out;
}

// ---- streams and events ----

gp_ret gp_stream_create(gp_h ctx) {
	gp_ret out = {0};
	CUstream s = 0;
	RCTX(out, ctx);
	RCALL(out, cuStreamCreate, &s, 1 /* CU_STREAM_NON_BLOCKING */);
	out.v = (uintptr_t)s;
	return out;
}

gp_rc gp_stream_destroy(gp_h ctx, gp_h s) {
	CTX(ctx);
	// Close waits for the stream's work (the device API promises it);
	// cuStreamDestroy alone would return at once.
	if (missing(GP_cuStreamSynchronize)) return pack(GP_SYMBOL_MISSING, GP_cuStreamSynchronize);
	CUresult r = CU(cuStreamSynchronize)(P(s));
	if (r) return pack(r, GP_cuStreamSynchronize);
	CALL(cuStreamDestroy, P(s));
}

gp_rc gp_stream_synchronize(gp_h ctx, gp_h s) {
	CTX(ctx);
	CALL(cuStreamSynchronize, P(s));
}

gp_rc gp_stream_query(gp_h ctx, gp_h s) {
	CTX(ctx);
	CALL(cuStreamQuery, P(s));
}

gp_rc gp_stream_wait_event(gp_h ctx, gp_h s, gp_h e) {
	CTX(ctx);
	CALL(cuStreamWaitEvent, P(s), P(e), 0);
}

gp_ret gp_event_create(gp_h ctx, unsigned flags) {
	gp_ret out = {0};
	CUevent e = 0;
	RCTX(out, ctx);
	RCALL(out, cuEventCreate, &e, flags);
	out.v = (uintptr_t)e;
	return out;
}

gp_rc gp_event_destroy(gp_h ctx, gp_h e) {
	CTX(ctx);
	CALL(cuEventDestroy, P(e));
}

gp_rc gp_event_record(gp_h ctx, gp_h e, gp_h s) {
	CTX(ctx);
	CALL(cuEventRecord, P(e), P(s));
}

// A cross-stream hand-off in one crossing from Go: record e on s, then
// make w (a stream of the same context) wait for that record.
gp_rc gp_event_record_wait(gp_h ctx, gp_h e, gp_h s, gp_h w) {
	CTX(ctx);
	if (missing(GP_cuEventRecord)) return pack(GP_SYMBOL_MISSING, GP_cuEventRecord);
	if (missing(GP_cuStreamWaitEvent)) return pack(GP_SYMBOL_MISSING, GP_cuStreamWaitEvent);
	CUresult r = CU(cuEventRecord)(P(e), P(s));
	if (r) return pack(r, GP_cuEventRecord);
	CALL(cuStreamWaitEvent, P(w), P(e), 0);
}

gp_rc gp_event_query(gp_h ctx, gp_h e) {
	CTX(ctx);
	CALL(cuEventQuery, P(e));
}

gp_rc gp_event_synchronize(gp_h ctx, gp_h e) {
	CTX(ctx);
	CALL(cuEventSynchronize, P(e));
}

gp_ret gp_event_elapsed(gp_h ctx, gp_h start, gp_h end) {
	gp_ret out = {0};
	float ms = 0;
	uint32_t bits;
	RCTX(out, ctx);
	RCALL(out, cuEventElapsedTime, &ms, P(start), P(end));
	memcpy(&bits, &ms, sizeof bits);
	out.v = bits;
	return out;
}

// ---- capture and graphs ----

gp_rc gp_stream_begin_capture(gp_h ctx, gp_h s, int mode) {
	CTX(ctx);
	CALL(cuStreamBeginCapture, P(s), mode);
}

// Ends the capture and instantiates its graph; a graph that fails to
// instantiate is destroyed here, so Go sees both handles or neither.
gp_ret gp_stream_end_capture(gp_h ctx, gp_h s) {
	gp_ret out = {0};
	CUgraph g = 0;
	CUgraphExec x = 0;
	RCTX(out, ctx);
	if (missing(GP_cuGraphInstantiateWithFlags) || missing(GP_cuGraphDestroy)) {
		// Check before ending the capture, so a missing symbol leaves the
		// stream capturing rather than losing the graph.
		out.rc = pack(GP_SYMBOL_MISSING, missing(GP_cuGraphInstantiateWithFlags)
		                                     ? GP_cuGraphInstantiateWithFlags
		                                     : GP_cuGraphDestroy);
		return out;
	}
	RCALL(out, cuStreamEndCapture, P(s), &g);
	CUresult r = CU(cuGraphInstantiateWithFlags)(&x, g, 0);
	if (r) {
		CU(cuGraphDestroy)(g);
		out.rc = pack(r, GP_cuGraphInstantiateWithFlags);
		return out;
	}
	out.v = (uintptr_t)g;
	out.w = (uintptr_t)x;
	return out;
}

gp_ret gp_stream_is_capturing(gp_h ctx, gp_h s) {
	gp_ret out = {0};
	int status = 0;
	RCTX(out, ctx);
	RCALL(out, cuStreamIsCapturing, P(s), &status);
	out.v = (unsigned)status;
	return out;
}

gp_rc gp_graph_launch(gp_h ctx, gp_h exec, gp_h s) {
	CTX(ctx);
	CALL(cuGraphLaunch, P(exec), P(s));
}

// A graph launched on stream on in the order of stream caller, in one
// crossing from Go: before recorded on caller and awaited by on, the
// launch, after recorded on on and awaited by caller.
gp_rc gp_graph_launch_joined(gp_h ctx, gp_h exec, gp_h on, gp_h caller, gp_h before, gp_h after) {
	CTX(ctx);
	if (missing(GP_cuEventRecord)) return pack(GP_SYMBOL_MISSING, GP_cuEventRecord);
	if (missing(GP_cuStreamWaitEvent)) return pack(GP_SYMBOL_MISSING, GP_cuStreamWaitEvent);
	if (missing(GP_cuGraphLaunch)) return pack(GP_SYMBOL_MISSING, GP_cuGraphLaunch);
	CUresult r = CU(cuEventRecord)(P(before), P(caller));
	if (r) return pack(r, GP_cuEventRecord);
	r = CU(cuStreamWaitEvent)(P(on), P(before), 0);
	if (r) return pack(r, GP_cuStreamWaitEvent);
	r = CU(cuGraphLaunch)(P(exec), P(on));
	if (r) return pack(r, GP_cuGraphLaunch);
	r = CU(cuEventRecord)(P(after), P(on));
	if (r) return pack(r, GP_cuEventRecord);
	CALL(cuStreamWaitEvent, P(caller), P(after), 0);
}

gp_rc gp_graph_destroy(gp_h ctx, gp_h graph, gp_h exec) {
	CTX(ctx);
	if (missing(GP_cuGraphExecDestroy)) return pack(GP_SYMBOL_MISSING, GP_cuGraphExecDestroy);
	CUresult r = CU(cuGraphExecDestroy)(P(exec));
	if (r) return pack(r, GP_cuGraphExecDestroy);
	CALL(cuGraphDestroy, P(graph));
}

// The capture's current dependencies right after an operation: on a
// capture of one stream, the single node that operation became.
// edgeData_out is passed so the query is never lossy.
gp_ret gp_stream_last_node(gp_h ctx, gp_h s) {
	gp_ret out = {0};
	int status = 0;
	unsigned long long id = 0;
	CUgraph g = 0;
	const CUgraphNode *deps = 0;
	const void *edges = 0;
	size_t n = 0;
	RCTX(out, ctx);
	RCALL(out, cuStreamGetCaptureInfo, P(s), &status, &id, &g, &deps, &edges, &n);
	if (status != 1 /* CU_STREAM_CAPTURE_STATUS_ACTIVE */) {
		out.rc = pack(1 /* CUDA_ERROR_INVALID_VALUE */, GP_cuStreamGetCaptureInfo);
		return out;
	}
	out.w = n;
	if (n == 1 && deps) {
		out.v = (uintptr_t)deps[0];
	}
	return out;
}

gp_rc gp_graph_set_kernel(gp_h ctx, gp_h exec, gp_h node, gp_h f, unsigned gx, unsigned gy,
                          unsigned gz, unsigned bx, unsigned by, unsigned bz, unsigned shared,
                          const void *buf, const unsigned short *off, int nargs, int size) {
	unsigned long long vals[GP_MAX_ARG_BYTES / 8];
	void *params[GP_MAX_ARGS];
	CTX(ctx);
	if (!gp_params(vals, params, buf, off, nargs, size)) {
		return pack(1 /* CUDA_ERROR_INVALID_VALUE */, GP_cuGraphExecKernelNodeSetParams);
	}
	// The driver copies the argument values during the call.
	gp_kernel_node_params p;
	memset(&p, 0, sizeof p);
	p.func = P(f);
	p.gridDimX = gx, p.gridDimY = gy, p.gridDimZ = gz;
	p.blockDimX = bx, p.blockDimY = by, p.blockDimZ = bz;
	p.sharedMemBytes = shared;
	p.kernelParams = nargs ? params : 0;
	CALL(cuGraphExecKernelNodeSetParams, P(exec), P(node), &p);
}

// Reads the copy node's parameters from the graph the exec came from and
// sets them, with a new width, in the exec: source, destination and
// their memory types stay what the capture recorded.
gp_rc gp_graph_set_copy_bytes(gp_h ctx, gp_h exec, gp_h node, size_t bytes) {
	gp_memcpy3d p;
	CTX(ctx);
	if (missing(GP_cuGraphExecMemcpyNodeSetParams)) {
		return pack(GP_SYMBOL_MISSING, GP_cuGraphExecMemcpyNodeSetParams);
	}
	if (missing(GP_cuGraphMemcpyNodeGetParams)) {
		return pack(GP_SYMBOL_MISSING, GP_cuGraphMemcpyNodeGetParams);
	}
	memset(&p, 0, sizeof p);
	CUresult r = CU(cuGraphMemcpyNodeGetParams)(P(node), &p);
	if (r) {
		return pack(r, GP_cuGraphMemcpyNodeGetParams);
	}
	if (p.Height > 1 || p.Depth > 1) {
		return pack(1 /* CUDA_ERROR_INVALID_VALUE: not a 1-D copy */, GP_cuGraphExecMemcpyNodeSetParams);
	}
	p.WidthInBytes = bytes;
	CALL(cuGraphExecMemcpyNodeSetParams, P(exec), P(node), &p, P(ctx));
}

// The same for a memset node: width counts elements of the node's size.
gp_rc gp_graph_set_memset_bytes(gp_h ctx, gp_h exec, gp_h node, size_t bytes) {
	gp_memset_node_params p;
	CTX(ctx);
	if (missing(GP_cuGraphExecMemsetNodeSetParams)) {
		return pack(GP_SYMBOL_MISSING, GP_cuGraphExecMemsetNodeSetParams);
	}
	if (missing(GP_cuGraphMemsetNodeGetParams)) {
		return pack(GP_SYMBOL_MISSING, GP_cuGraphMemsetNodeGetParams);
	}
	memset(&p, 0, sizeof p);
	CUresult r = CU(cuGraphMemsetNodeGetParams)(P(node), &p);
	if (r) {
		return pack(r, GP_cuGraphMemsetNodeGetParams);
	}
	if (p.height > 1 || p.elementSize == 0 || bytes % p.elementSize != 0) {
		return pack(1 /* CUDA_ERROR_INVALID_VALUE: not 1-D, or not whole elements */, GP_cuGraphExecMemsetNodeSetParams);
	}
	p.width = bytes / p.elementSize;
	CALL(cuGraphExecMemsetNodeSetParams, P(exec), P(node), &p, P(ctx));
}

// ---- memory ----

gp_ret gp_mem_alloc(gp_h ctx, size_t n) {
	gp_ret out = {0};
	CUdeviceptr p = 0;
	RCTX(out, ctx);
	RCALL(out, cuMemAlloc, &p, n);
	out.v = p;
	return out;
}

gp_rc gp_mem_free(gp_h ctx, CUdeviceptr p) {
	CTX(ctx);
	CALL(cuMemFree, p);
}

gp_rc gp_mem_free_raw(gp_h ctx, CUdeviceptr p) { return gp_mem_free(ctx, p); }

gp_pret gp_mem_alloc_host(gp_h ctx, size_t n) {
	gp_pret out = {0};
	void *p = 0;
	RCTX(out, ctx);
	RCALL(out, cuMemAllocHost, &p, n);
	out.p = p;
	return out;
}

gp_rc gp_mem_free_host(gp_h ctx, void *p) {
	CTX(ctx);
	CALL(cuMemFreeHost, p);
}

gp_ret gp_mem_alloc_async(gp_h ctx, size_t n, gp_h s) {
	gp_ret out = {0};
	CUdeviceptr p = 0;
	RCTX(out, ctx);
	RCALL(out, cuMemAllocAsync, &p, n, P(s));
	out.v = p;
	return out;
}

gp_rc gp_mem_free_async(gp_h ctx, CUdeviceptr p, gp_h s) {
	CTX(ctx);
	CALL(cuMemFreeAsync, p, P(s));
}

gp_rc gp_memcpy_htod(gp_h ctx, CUdeviceptr dst, const void *src, size_t n) {
	CTX(ctx);
	CALL(cuMemcpyHtoD, dst, src, n);
}

gp_rc gp_memcpy_dtoh(gp_h ctx, void *dst, CUdeviceptr src, size_t n) {
	CTX(ctx);
	CALL(cuMemcpyDtoH, dst, src, n);
}

gp_rc gp_memcpy_dtod(gp_h ctx, CUdeviceptr dst, CUdeviceptr src, size_t n) {
	CTX(ctx);
	CALL(cuMemcpyDtoD, dst, src, n);
}

gp_rc gp_memcpy_htod_async(gp_h ctx, CUdeviceptr dst, const void *src, size_t n, gp_h s) {
	CTX(ctx);
	CALL(cuMemcpyHtoDAsync, dst, src, n, P(s));
}

gp_rc gp_memcpy_dtoh_async(gp_h ctx, void *dst, CUdeviceptr src, size_t n, gp_h s) {
	CTX(ctx);
	if (missing(GP_cuMemcpyDtoHAsync)) return pack(GP_SYMBOL_MISSING, GP_cuMemcpyDtoHAsync);
	CUresult r = CU(cuMemcpyDtoHAsync)(dst, src, n, P(s));
	if (r) return pack(r, GP_cuMemcpyDtoHAsync);
	// The destination is Go memory that the caller may read as soon as we
	// return; the driver only "might" be synchronous for pageable memory
	// (with HMM it need not be), so wait for the stream here.
	CALL(cuStreamSynchronize, P(s));
}

gp_rc gp_memcpy_dtod_async(gp_h ctx, CUdeviceptr dst, CUdeviceptr src, size_t n, gp_h s) {
	CTX(ctx);
	CALL(cuMemcpyDtoDAsync, dst, src, n, P(s));
}

gp_rc gp_memcpy_peer_async(gp_h ctx, CUdeviceptr dst, gp_h dstCtx, CUdeviceptr src,
                           gp_h srcCtx, size_t n, gp_h s) {
	CTX(ctx);
	CALL(cuMemcpyPeerAsync, dst, P(dstCtx), src, P(srcCtx), n, P(s));
}

gp_rc gp_memset8_async(gp_h ctx, CUdeviceptr dst, unsigned char v, size_t n, gp_h s) {
	CTX(ctx);
	CALL(cuMemsetD8Async, dst, v, n, P(s));
}

gp_rc gp_memset32_async(gp_h ctx, CUdeviceptr dst, unsigned v, size_t n, gp_h s) {
	CTX(ctx);
	CALL(cuMemsetD32Async, dst, v, n, P(s));
}

gp_ret gp_pool_create(gp_h ctx, CUdevice dev) {
	gp_ret out = {0};
	gp_mem_pool_props props;
	CUmemoryPool pool = 0;
	memset(&props, 0, sizeof props);
	props.allocType = 1;     // CU_MEM_ALLOCATION_TYPE_PINNED
	props.handleTypes = 0;   // CU_MEM_HANDLE_TYPE_NONE
	props.location.type = 1; // CU_MEM_LOCATION_TYPE_DEVICE
	props.location.id = dev;
	RCTX(out, ctx);
	RCALL(out, cuMemPoolCreate, &pool, &props);
	out.v = (uintptr_t)pool;
	return out;
}

gp_rc gp_pool_destroy(gp_h ctx, gp_h pool) {
	CTX(ctx);
	CALL(cuMemPoolDestroy, P(pool));
}

gp_rc gp_pool_set_u64(gp_h ctx, gp_h pool, int attr, unsigned long long v) {
	uint64_t x = v; // cuuint64_t
	CTX(ctx);
	CALL(cuMemPoolSetAttribute, P(pool), attr, &x);
}

gp_ret gp_pool_get_u64(gp_h ctx, gp_h pool, int attr) {
	gp_ret out = {0};
	uint64_t x = 0;
	RCTX(out, ctx);
	RCALL(out, cuMemPoolGetAttribute, P(pool), attr, &x);
	out.v = x;
	return out;
}

gp_rc gp_pool_trim(gp_h ctx, gp_h pool, size_t keep) {
	CTX(ctx);
	CALL(cuMemPoolTrimTo, P(pool), keep);
}

gp_ret gp_pool_alloc_async(gp_h ctx, gp_h pool, size_t n, gp_h s) {
	gp_ret out = {0};
	CUdeviceptr p = 0;
	RCTX(out, ctx);
	RCALL(out, cuMemAllocFromPoolAsync, &p, n, P(pool), P(s));
	out.v = p;
	return out;
}

// ---- modules and launches ----

gp_ret gp_module_load(gp_h ctx, const char *image, char *errlog, unsigned errlen,
                      char *infolog, unsigned infolen) {
	gp_ret out = {0};
	CUmodule m = 0;
	// CUjit_option: INFO_LOG_BUFFER 3, INFO_LOG_BUFFER_SIZE_BYTES 4,
	// ERROR_LOG_BUFFER 5, ERROR_LOG_BUFFER_SIZE_BYTES 6.
	int opts[4] = {3, 4, 5, 6};
	void *vals[4] = {infolog, (void *)(uintptr_t)infolen, errlog, (void *)(uintptr_t)errlen};
	if (errlen) errlog[0] = 0;
	if (infolen) infolog[0] = 0;
	RCTX(out, ctx);
	RCALL(out, cuModuleLoadDataEx, &m, image, 4, opts, vals);
	out.v = (uintptr_t)m;
	return out;
}

gp_rc gp_module_unload(gp_h ctx, gp_h m) {
	CTX(ctx);
	CALL(cuModuleUnload, P(m));
}

gp_ret gp_module_function(gp_h ctx, gp_h m, const char *name) {
	gp_ret out = {0};
	CUfunction f = 0;
	RCTX(out, ctx);
	RCALL(out, cuModuleGetFunction, &f, P(m), name);
	out.v = (uintptr_t)f;
	return out;
}

// Copies the marshalled values into stack memory and points params[] into
// it: no allocation per launch, and no Go memory reaches the driver.
static inline int gp_params(unsigned long long *vals, void **params, const void *buf,
                            const unsigned short *off, int nargs, int size) {
	if (nargs < 0 || nargs > GP_MAX_ARGS || size < 0 || size > GP_MAX_ARG_BYTES) {
		return 0;
	}
	if (nargs == 0) {
		return 1;
	}
	memcpy(vals, buf, (size_t)size);
	for (int i = 0; i < nargs; i++) {
		if (off[i] >= size) {
			return 0;
		}
		params[i] = (char *)vals + off[i];
	}
	return 1;
}

// The same, for the launch loops outside this file (probe.c).
int gp_marshal(unsigned long long *vals, void **params, const void *buf, const unsigned short *off,
               int nargs, int size) {
	return gp_params(vals, params, buf, off, nargs, size);
}

gp_rc gp_launch(gp_h ctx, gp_h f, unsigned gx, unsigned gy, unsigned gz,
                unsigned bx, unsigned by, unsigned bz, unsigned shared, gp_h s,
                const void *buf, const unsigned short *off, int nargs, int size) {
	unsigned long long vals[GP_MAX_ARG_BYTES / 8];
	void *params[GP_MAX_ARGS];
	CTX(ctx);
	if (!gp_params(vals, params, buf, off, nargs, size)) {
		return pack(1 /* CUDA_ERROR_INVALID_VALUE */, GP_cuLaunchKernel);
	}
	CALL(cuLaunchKernel, P(f), gx, gy, gz, bx, by, bz, shared, P(s), nargs ? params : 0, 0);
}

// gp_launch after up to two hand-offs, in one crossing from Go: for each i
// below nh, record e[i] on from[i] and make s wait for that record; then
// launch. v counts the hand-offs recorded and awaited (nh when only the
// launch failed). The arguments are checked before anything is issued.
gp_ret gp_launch_after(gp_h ctx, gp_h f, unsigned gx, unsigned gy, unsigned gz,
                       unsigned bx, unsigned by, unsigned bz, unsigned shared, gp_h s,
                       const void *buf, const unsigned short *off, int nargs, int size,
                       int nh, gp_h e0, gp_h from0, gp_h e1, gp_h from1) {
	gp_ret out = {0};
	unsigned long long vals[GP_MAX_ARG_BYTES / 8];
	void *params[GP_MAX_ARGS];
	gp_h ev[2] = {e0, e1}, from[2] = {from0, from1};
	RCTX(out, ctx);
	if (!gp_params(vals, params, buf, off, nargs, size)) {
		out.rc = pack(1 /* CUDA_ERROR_INVALID_VALUE */, GP_cuLaunchKernel);
		return out;
	}
	if (nh > 0) {
		if (missing(GP_cuEventRecord)) {
			out.rc = pack(GP_SYMBOL_MISSING, GP_cuEventRecord);
			return out;
		}
		if (missing(GP_cuStreamWaitEvent)) {
			out.rc = pack(GP_SYMBOL_MISSING, GP_cuStreamWaitEvent);
			return out;
		}
	}
	for (int i = 0; i < nh && i < 2; i++) {
		CUresult r = CU(cuEventRecord)(P(ev[i]), P(from[i]));
		if (r) {
			out.rc = pack(r, GP_cuEventRecord);
			return out;
		}
		r = CU(cuStreamWaitEvent)(P(s), P(ev[i]), 0);
		if (r) {
			out.rc = pack(r, GP_cuStreamWaitEvent);
			return out;
		}
		out.v = (unsigned long long)(i + 1);
	}
	RCALL(out, cuLaunchKernel, P(f), gx, gy, gz, bx, by, bz, shared, P(s), nargs ? params : 0, 0);
	return out;
}

