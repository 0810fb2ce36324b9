//go:build cgo

// Managed memory: cuMemAllocManaged and the location-based prefetch and
// advice. Signatures as in cuda.h (12.2+; CUDA 13 names them without _v2):
//   CUresult cuMemAllocManaged(CUdeviceptr *dptr, size_t bytesize, unsigned int flags);
//   CUresult cuMemPrefetchAsync_v2(CUdeviceptr devPtr, size_t count, CUmemLocation location,
//                                  unsigned int flags, CUstream hStream);
//   CUresult cuMemAdvise_v2(CUdeviceptr devPtr, size_t count, CUmem_advise advice,
//                           CUmemLocation location);

#include "shim.h"

#include <stdint.h>

gp_rc gp_use_ctx(gp_h ctx);

typedef CUresult (*t_alloc_managed)(CUdeviceptr *, size_t, unsigned);
typedef CUresult (*t_prefetch_loc)(CUdeviceptr, size_t, gp_mem_loc, unsigned, CUstream);
typedef CUresult (*t_advise_loc)(CUdeviceptr, size_t, int, gp_mem_loc);

// entry is entry point sym with ctx current; or NULL, *rc then saying why
// (sym missing or hidden, or the context switch failed).
static void *entry(gp_h ctx, int sym, gp_rc *rc) {
	void *f = gp_fn_get(sym);
	*rc = f ? gp_use_ctx(ctx) : gp_pack(GP_SYMBOL_MISSING, sym);
	return *rc ? 0 : f;
}

gp_ret gp_mem_alloc_managed(gp_h ctx, size_t n, unsigned flags) {
	gp_ret out = {0};
	t_alloc_managed f = (t_alloc_managed)entry(ctx, GP_cuMemAllocManaged, &out.rc);
	if (!f) {
		return out;
	}
	CUdeviceptr p = 0;
	CUresult r = f(&p, n, flags);
	if (r) {
		out.rc = gp_pack(r, GP_cuMemAllocManaged);
		return out;
	}
	out.v = p;
	return out;
}

gp_rc gp_mem_prefetch(gp_h ctx, CUdeviceptr p, size_t n, int loctype, int locid, gp_h s) {
	gp_rc c;
	t_prefetch_loc f = (t_prefetch_loc)entry(ctx, GP_cuMemPrefetchAsyncLoc, &c);
	if (!f) {
		return c;
	}
	gp_mem_loc loc = {loctype, locid};
	CUresult r = f(p, n, loc, 0, (CUstream)(uintptr_t)s);
	return r ? gp_pack(r, GP_cuMemPrefetchAsyncLoc) : 0;
}

gp_rc gp_mem_advise(gp_h ctx, CUdeviceptr p, size_t n, int advice, int loctype, int locid) {
	gp_rc c;
	t_advise_loc f = (t_advise_loc)entry(ctx, GP_cuMemAdviseLoc, &c);
	if (!f) {
		return c;
	}
	gp_mem_loc loc = {loctype, locid};
	CUresult r = f(p, n, advice, loc);
	return r ? gp_pack(r, GP_cuMemAdviseLoc) : 0;
}

// The CPU address of managed memory is its device address (unified
// addressing); converting here keeps Go free of integer-to-pointer casts.
void *gp_host_ptr(CUdeviceptr p) { return (void *)(uintptr_t)p; }
