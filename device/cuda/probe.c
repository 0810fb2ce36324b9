//go:build cgo && gpuarrbench

// Benchmark probes: the driver calls the binding makes, made in C loops
// and timed in C, for bench/binding, bench/kernels and bench/array to
// compare the binding with. The build constraint above keeps this file out
// of every build without -tags gpuarrbench. Entry points come from the
// shim's table (gp_fn_get), resolved once before each loop.

#include "probe.h"

#include <time.h>

gp_rc gp_use_ctx(gp_h ctx);

typedef CUresult (*t_ctx_get_current)(CUcontext *);
typedef CUresult (*t_launch)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned,
                             unsigned, unsigned, CUstream, void **, void **);
typedef CUresult (*t_event_create)(CUevent *, unsigned);
typedef CUresult (*t_event_record)(CUevent, CUstream);
typedef CUresult (*t_event_destroy)(CUevent);
typedef CUresult (*t_stream_wait_event)(CUstream, CUevent, unsigned);
typedef CUresult (*t_stream_sync)(CUstream);
typedef CUresult (*t_mem_alloc)(CUdeviceptr *, size_t);
typedef CUresult (*t_mem_free)(CUdeviceptr);
typedef CUresult (*t_memset_d32_async)(CUdeviceptr, unsigned, size_t, CUstream);
typedef CUresult (*t_stream_value64)(CUstream, CUdeviceptr, unsigned long long, unsigned);

#define P(h) ((void *)(h))

static inline long long now_ns(void) {
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (long long)t.tv_sec * 1000000000LL + t.tv_nsec;
}

// Entry point sym; NULL when it is missing or hidden, *rc (if still 0)
// then naming it.
static void *fn(int sym, gp_rc *rc) {
	void *f = gp_fn_get(sym);
	if (!f && !*rc) {
		*rc = gp_pack(GP_SYMBOL_MISSING, sym);
	}
	return f;
}

// One cuCtxGetCurrent, returned in v.
gp_ret gp_ctx_get_current(void) {
	gp_ret out = {0};
	t_ctx_get_current f = (t_ctx_get_current)fn(GP_cuCtxGetCurrent, &out.rc);
	if (!f) {
		return out;
	}
	CUcontext c = 0;
	CUresult r = f(&c);
	if (r) {
		out.rc = gp_pack(r, GP_cuCtxGetCurrent);
		return out;
	}
	out.v = (uintptr_t)c;
	return out;
}

// n cuCtxGetCurrent calls; v: the loop's nanoseconds.
gp_ret gp_bench_ctx_get_current(long long n) {
	gp_ret out = {0};
	t_ctx_get_current f = (t_ctx_get_current)fn(GP_cuCtxGetCurrent, &out.rc);
	if (!f) {
		return out;
	}
	CUcontext c = 0;
	long long t0 = now_ns();
	for (long long i = 0; i < n; i++) {
		CUresult r = f(&c);
		if (r) {
			out.rc = gp_pack(r, GP_cuCtxGetCurrent);
			return out;
		}
	}
	out.v = (unsigned long long)(now_ns() - t0);
	return out;
}

// An empty cgo call: the floor under every call through the binding.
gp_rc gp_noop(void) { return 0; }

// n launches of f on s, the arguments marshalled once; v: the loop's
// nanoseconds.
gp_ret gp_bench_launch(gp_h ctx, gp_h f, unsigned gx, unsigned gy, unsigned gz,
                       unsigned bx, unsigned by, unsigned bz, unsigned shared, gp_h s,
                       const void *buf, const unsigned short *off, int nargs, int size,
                       long long n) {
	gp_ret out = {0};
	unsigned long long vals[GP_MAX_ARG_BYTES / 8];
	void *params[GP_MAX_ARGS];
	if ((out.rc = gp_use_ctx(ctx))) {
		return out;
	}
	t_launch launch = (t_launch)fn(GP_cuLaunchKernel, &out.rc);
	if (!launch) {
		return out;
	}
	if (!gp_marshal(vals, params, buf, off, nargs, size)) {
		out.rc = gp_pack(1 /* CUDA_ERROR_INVALID_VALUE */, GP_cuLaunchKernel);
		return out;
	}
	long long t0 = now_ns();
	for (long long i = 0; i < n; i++) {
		CUresult r = launch(P(f), gx, gy, gz, bx, by, bz, shared, P(s), nargs ? params : 0, 0);
		if (r) {
			out.rc = gp_pack(r, GP_cuLaunchKernel);
			return out;
		}
	}
	out.v = (unsigned long long)(now_ns() - t0);
	return out;
}

// Launches f (no arguments, one thread) n times with a pause of gap_ns after
// each; v: the nanoseconds spent inside cuLaunchKernel, which shows how the
// launch cost depends on the pace of submission.
gp_ret gp_bench_launch_spaced(gp_h ctx, gp_h f, gp_h s, long long n, long long gap_ns) {
	gp_ret out = {0};
	if ((out.rc = gp_use_ctx(ctx))) {
		return out;
	}
	t_launch launch = (t_launch)fn(GP_cuLaunchKernel, &out.rc);
	if (!launch) {
		return out;
	}
	long long inside = 0;
	for (long long i = 0; i < n; i++) {
		long long t0 = now_ns();
		CUresult r = launch(P(f), 1, 1, 1, 1, 1, 1, 0, P(s), 0, 0);
		long long t1 = now_ns();
		if (r) {
			out.rc = gp_pack(r, GP_cuLaunchKernel);
			return out;
		}
		inside += t1 - t0;
		while (now_ns() < t1 + gap_ns) {
		}
	}
	out.v = (unsigned long long)inside;
	return out;
}

// The ways a hand-off round orders one stream after another.
typedef struct {
	t_event_record record;
	t_stream_wait_event wait;
	t_stream_value64 write_value, wait_value;
} orderers;

// order makes stream to wait for from's work so far: an event record and
// wait (mode 1, event ev) or a flag write and wait (mode 2, the flag at
// flag set to seq); mode 0 orders nothing. *failed names the call that
// returns an error.
static inline CUresult order(const orderers *o, int mode, CUstream from, CUstream to, CUevent ev,
                             CUdeviceptr flag, unsigned long long seq, int *failed) {
	CUresult r = 0;
	if (mode == 1) {
		*failed = GP_cuEventRecord;
		if ((r = o->record(ev, from))) return r;
		*failed = GP_cuStreamWaitEvent;
		r = o->wait(to, ev, 0);
	} else if (mode == 2) {
		*failed = GP_cuStreamWriteValue64;
		if ((r = o->write_value(from, flag, seq, 0))) return r;
		*failed = GP_cuStreamWaitValue64;
		r = o->wait_value(to, flag, seq, 0);
	}
	return r;
}

// One producer/consumer round per iteration, n rounds: fill (its arguments
// in fbuf) on prod, then copy (cbuf) on cons. mode says how the two
// streams are ordered (driver.HandoffOrdering):
//   0: both launches go to prod, nothing to order;
//   1: events, as tracking does: the consumer waits for the producer's write
//      (record on prod, stream wait on cons) and the producer's next write
//      waits for the consumer's read (record on cons, wait on prod);
//   2: stream memory operations instead of events: a 64-bit flag written on
//      one stream (cuStreamWriteValue64, the round's number) and waited for
//      on the other (cuStreamWaitValue64, greater or equal).
// The events or the flags (zeroed device memory) are made before the clock
// starts and released after it stops. v: the loop's nanoseconds.
gp_ret gp_bench_handoff(gp_h ctx, gp_h fill, gp_h copy, unsigned gx, unsigned gy, unsigned gz,
                        unsigned bx, unsigned by, unsigned bz, unsigned shared, gp_h prod,
                        gp_h cons, int mode, const void *fbuf, const unsigned short *foff,
                        int fnargs, int fsize, const void *cbuf, const unsigned short *coff,
                        int cnargs, int csize, long long n) {
	gp_ret out = {0};
	unsigned long long fvals[GP_MAX_ARG_BYTES / 8], cvals[GP_MAX_ARG_BYTES / 8];
	void *fparams[GP_MAX_ARGS], *cparams[GP_MAX_ARGS];
	CUevent e1 = 0, e2 = 0;
	CUdeviceptr flags = 0;
	if ((out.rc = gp_use_ctx(ctx))) {
		return out;
	}
	// The entry points the mode needs, each fetched once: a test hiding a
	// symbol meanwhile cannot leave one NULL.
	t_launch launch = (t_launch)fn(GP_cuLaunchKernel, &out.rc);
	t_event_create create = 0;
	t_event_destroy destroy = 0;
	t_mem_alloc mem_alloc = 0;
	t_mem_free mem_free = 0;
	t_memset_d32_async memset_d32 = 0;
	t_stream_sync sync = 0;
	orderers o = {0};
	if (mode == 1) {
		create = (t_event_create)fn(GP_cuEventCreate, &out.rc);
		o.record = (t_event_record)fn(GP_cuEventRecord, &out.rc);
		o.wait = (t_stream_wait_event)fn(GP_cuStreamWaitEvent, &out.rc);
		destroy = (t_event_destroy)fn(GP_cuEventDestroy, &out.rc);
	} else if (mode == 2) {
		mem_alloc = (t_mem_alloc)fn(GP_cuMemAlloc, &out.rc);
		mem_free = (t_mem_free)fn(GP_cuMemFree, &out.rc);
		memset_d32 = (t_memset_d32_async)fn(GP_cuMemsetD32Async, &out.rc);
		sync = (t_stream_sync)fn(GP_cuStreamSynchronize, &out.rc);
		o.write_value = (t_stream_value64)fn(GP_cuStreamWriteValue64, &out.rc);
		o.wait_value = (t_stream_value64)fn(GP_cuStreamWaitValue64, &out.rc);
	}
	if (out.rc) {
		return out;
	}
	if (!gp_marshal(fvals, fparams, fbuf, foff, fnargs, fsize) ||
	    !gp_marshal(cvals, cparams, cbuf, coff, cnargs, csize)) {
		out.rc = gp_pack(1 /* CUDA_ERROR_INVALID_VALUE */, GP_cuLaunchKernel);
		return out;
	}
	CUresult r = 0;
	int failed = GP_cuEventCreate;
	CUstream ps = P(prod), cs = mode ? P(cons) : P(prod);
	if (mode == 1) {
		// CU_EVENT_DISABLE_TIMING is 0x2, as the product's events use.
		r = create(&e1, 0x2);
		if (!r) r = create(&e2, 0x2);
	} else if (mode == 2) {
		failed = GP_cuMemAlloc;
		r = mem_alloc(&flags, 16);
		failed = GP_cuMemsetD32Async;
		if (!r) r = memset_d32(flags, 0, 4, ps);
		failed = GP_cuStreamSynchronize;
		if (!r) r = sync(ps);
	}
	// The flag values: CU_STREAM_WRITE_VALUE_DEFAULT (a write ordered after
	// the stream's earlier work) and CU_STREAM_WAIT_VALUE_GEQ are both 0.
	CUdeviceptr produced = flags, consumed = flags + 8;
	long long t0 = now_ns();
	for (long long i = 0; i < n && !r; i++) {
		unsigned long long seq = (unsigned long long)i + 1;
		failed = GP_cuLaunchKernel;
		if ((r = launch(P(fill), gx, gy, gz, bx, by, bz, shared, ps, fnargs ? fparams : 0, 0))) break;
		if ((r = order(&o, mode, ps, cs, e1, produced, seq, &failed))) break;
		failed = GP_cuLaunchKernel;
		if ((r = launch(P(copy), gx, gy, gz, bx, by, bz, shared, cs, cnargs ? cparams : 0, 0))) break;
		r = order(&o, mode, cs, ps, e2, consumed, seq, &failed);
	}
	long long t1 = now_ns();
	// Destroying an event with work pending on it is allowed: the driver
	// releases it once the work completes. The flags are freed only after
	// both streams passed their last use.
	if (e1) destroy(e1);
	if (e2) destroy(e2);
	if (flags) {
		CUresult r1 = sync(ps);
		CUresult r2 = sync(cs);
		CUresult r3 = mem_free(flags);
		if (!r && (r1 || r2 || r3)) {
			r = r1 ? r1 : r2 ? r2 : r3;
			failed = r1 || r2 ? GP_cuStreamSynchronize : GP_cuMemFree;
		}
	}
	if (r) {
		out.rc = gp_pack(r, failed);
		return out;
	}
	out.v = (unsigned long long)(t1 - t0);
	return out;
}
