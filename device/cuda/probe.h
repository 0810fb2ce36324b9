//go:build cgo && gpuarrbench

// Benchmark probes (probe.c, probe.go; only in builds with -tags
// gpuarrbench): one trivial driver call through the binding, and the
// driver calls the binding makes, in C loops timed in C. Each returns its
// result as the shim's wrappers do (shim.h): rc 0 or the packed failure,
// and in v the value or the loop's nanoseconds.

#ifndef GPUARR_CUDA_PROBE_H
#define GPUARR_CUDA_PROBE_H

#include "shim.h"

gp_ret gp_ctx_get_current(void);
gp_ret gp_bench_ctx_get_current(long long n);
gp_rc gp_noop(void);
gp_ret gp_bench_launch(gp_h ctx, gp_h f, unsigned gx, unsigned gy, unsigned gz,
                       unsigned bx, unsigned by, unsigned bz, unsigned shared, gp_h s,
                       const void *buf, const unsigned short *off, int nargs, int size,
                       long long n);
gp_ret gp_bench_launch_spaced(gp_h ctx, gp_h f, gp_h s, long long n, long long gap_ns);
gp_ret gp_bench_handoff(gp_h ctx, gp_h fill, gp_h copy, unsigned gx, unsigned gy, unsigned gz,
                        unsigned bx, unsigned by, unsigned bz, unsigned shared, gp_h prod,
                        gp_h cons, int mode, const void *fbuf, const unsigned short *foff,
                        int fnargs, int fsize, const void *cbuf, const unsigned short *coff,
                        int cnargs, int csize, long long n);

#endif
