// cuBLAS and NVRTC, the CUDA libraries gpuarr uses besides the driver:
// dlopened on first use (blas.c, nvrtc.c), like libcuda in shim.c, with
// the few types and values they need declared here.

#ifndef GPUARR_CUDA_EXTLIB_H
#define GPUARR_CUDA_EXTLIB_H

#include "shim.h"

// The context switch of shim.c, for calls made outside it.
gp_rc gp_use_ctx(gp_h ctx);
// Forgets the current context after a library switched it behind the shim.
void gp_forget_ctx(void);

// A cuBLAS call's outcome: cu is a failed context switch (a shim rc);
// otherwise status is the cublasStatus_t of the call numbered which
// (GP_BLAS_*), and v its output.
typedef struct {
	gp_rc cu;
	int status, which;
	unsigned long long v;
} gp_bret;

enum { GP_BLAS_CREATE, GP_BLAS_DESTROY, GP_BLAS_SET_STREAM, GP_BLAS_SET_MATH, GP_BLAS_SGEMM, GP_BLAS_DGEMM };

int gp_blas_open(const char *dep, const char *path, char *err, int errlen);
gp_bret gp_blas_create(gp_h ctx, gp_h s);
gp_bret gp_blas_set_stream(gp_h ctx, gp_h h, gp_h s);
gp_bret gp_blas_destroy(gp_h ctx, gp_h h);
gp_bret gp_blas_gemm(gp_h ctx, gp_h h, int dbl, int math, int ta, int tb, int m, int n, int k,
                     double alpha, CUdeviceptr a, int lda, CUdeviceptr b, int ldb, double beta,
                     CUdeviceptr c, int ldc);

// An NVRTC compilation: rc is the nvrtcResult of the call numbered which
// (GP_NVRTC_*); ptx and log are malloc'd (the caller frees them).
typedef struct {
	int rc, which;
	char *ptx;
	size_t ptxlen;
	char *log;
	size_t loglen;
} gp_nret;

enum { GP_NVRTC_CREATE, GP_NVRTC_COMPILE, GP_NVRTC_PTX, GP_NVRTC_LOG };

int gp_nvrtc_open(const char *builtins_glob, const char *path, char *err, int errlen);
int gp_nvrtc_version(void); // 1000*major + 10*minor, or -1
int gp_nvrtc_archs(int *out, int max); // supported compute_XY as XY, or -1
const char *gp_nvrtc_error_string(int rc);
gp_nret gp_nvrtc_compile(const char *src, const char *name, int nopts, const char *const *opts);

#endif
