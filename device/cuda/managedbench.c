//go:build cgo && gpuarrbench

// Benchmark probes of managed memory (managedbench.go), compiled only when
// the package is built with -tags gpuarrbench: the driver's own cost of a managed allocation and of
// migrating managed memory, timed in C, for bench/defaultmemory to hold
// the array layer against.
#include "shim.h"

#include <time.h>

gp_rc gp_use_ctx(gp_h ctx);

typedef CUresult (*t_mb_alloc_managed)(CUdeviceptr *, size_t, unsigned);
typedef CUresult (*t_mb_free)(CUdeviceptr);
typedef CUresult (*t_mb_prefetch)(CUdeviceptr, size_t, gp_mem_loc, unsigned, CUstream);
typedef CUresult (*t_mb_sync)(CUstream);

static long long mb_now_ns(void) {
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (long long)t.tv_sec * 1000000000LL + t.tv_nsec;
}

// mb_entries fills fs with the entry points syms, ctx made current; it
// returns 0, or the packed reason one is missing or the switch failed.
static gp_rc mb_entries(gp_h ctx, const int *syms, void **fs, int n) {
	for (int i = 0; i < n; i++) {
		fs[i] = gp_fn_get(syms[i]);
		if (!fs[i]) {
			return gp_pack(GP_SYMBOL_MISSING, syms[i]);
		}
	}
	return gp_use_ctx(ctx);
}

// gp_bench_alloc_managed allocates n bytes with cuMemAllocManaged
// (CU_MEM_ATTACH_GLOBAL) and frees them with cuMemFree, reps times in a C
// loop, and returns the nanoseconds the loop took.
gp_ret gp_bench_alloc_managed(gp_h ctx, size_t n, long long reps) {
	gp_ret out = {0};
	static const int syms[] = {GP_cuMemAllocManaged, GP_cuMemFree};
	void *fs[2];
	if ((out.rc = mb_entries(ctx, syms, fs, 2))) {
		return out;
	}
	t_mb_alloc_managed alloc = (t_mb_alloc_managed)fs[0];
	t_mb_free fr = (t_mb_free)fs[1];
	long long t0 = mb_now_ns();
	for (long long i = 0; i < reps; i++) {
		CUdeviceptr p = 0;
		CUresult r = alloc(&p, n, 1);
		if (r) {
			out.rc = gp_pack(r, GP_cuMemAllocManaged);
			return out;
		}
		if ((r = fr(p))) {
			out.rc = gp_pack(r, GP_cuMemFree);
			return out;
		}
	}
	out.v = (unsigned long long)(mb_now_ns() - t0);
	return out;
}

// gp_bench_migrate prefetches [p, p+n) of managed memory to the location
// (from_type, from_id) on s and waits (untimed: the pages start there),
// then times one cuMemPrefetchAsync to (to_type, to_id) on s and the
// cuStreamSynchronize that waits for it: the driver's own cost to migrate
// the bytes. It returns the nanoseconds of the timed part.
gp_ret gp_bench_migrate(gp_h ctx, CUdeviceptr p, size_t n, int from_type, int from_id, int to_type, int to_id, gp_h s) {
	gp_ret out = {0};
	static const int syms[] = {GP_cuMemPrefetchAsyncLoc, GP_cuStreamSynchronize};
	void *fs[2];
	if ((out.rc = mb_entries(ctx, syms, fs, 2))) {
		return out;
	}
	t_mb_prefetch prefetch = (t_mb_prefetch)fs[0];
	t_mb_sync sync = (t_mb_sync)fs[1];
	CUstream cs = (CUstream)(uintptr_t)s;
	gp_mem_loc from = {from_type, from_id}, to = {to_type, to_id};
	CUresult r = prefetch(p, n, from, 0, cs);
	if (!r) {
		r = sync(cs);
	}
	if (r) {
		out.rc = gp_pack(r, GP_cuMemPrefetchAsyncLoc);
		return out;
	}
	long long t0 = mb_now_ns();
	if ((r = prefetch(p, n, to, 0, cs))) {
		out.rc = gp_pack(r, GP_cuMemPrefetchAsyncLoc);
		return out;
	}
	if ((r = sync(cs))) {
		out.rc = gp_pack(r, GP_cuStreamSynchronize);
		return out;
	}
	out.v = (unsigned long long)(mb_now_ns() - t0);
	return out;
}
