//go:build cgo

// cuBLAS through dlopen: the handle calls and the two GEMMs gpuarr uses,
// each made with the device's context current (gp_use_ctx), so the
// library's runtime adopts the primary context that the driver API uses.

#include "extlib.h"

#include <dlfcn.h>
#include <string.h>

typedef int cublasStatus_t;
typedef void *cublasHandle_t;

static struct {
	void *lib;
	cublasStatus_t (*create)(cublasHandle_t *);
	cublasStatus_t (*destroy)(cublasHandle_t);
	cublasStatus_t (*set_stream)(cublasHandle_t, CUstream);
	cublasStatus_t (*set_math)(cublasHandle_t, int);
	cublasStatus_t (*sgemm)(cublasHandle_t, int, int, int, int, int, const float *, const float *, int,
	                        const float *, int, const float *, float *, int);
	cublasStatus_t (*dgemm)(cublasHandle_t, int, int, int, int, int, const double *, const double *, int,
	                        const double *, int, const double *, double *, int);
	// Optional: a library without them still multiplies.
	cublasStatus_t (*set_workspace)(cublasHandle_t, void *, size_t);
	cublasStatus_t (*sgetrf_batched)(cublasHandle_t, int, float *const[], int, int *, int *, int);
	cublasStatus_t (*dgetrf_batched)(cublasHandle_t, int, double *const[], int, int *, int *, int);
	cublasStatus_t (*sgetrs_batched)(cublasHandle_t, int, int, int, const float *const[], int, const int *,
	                                 float *const[], int, int *, int);
	cublasStatus_t (*dgetrs_batched)(cublasHandle_t, int, int, int, const double *const[], int, const int *,
	                                 double *const[], int, int *, int);
	cublasStatus_t (*sgemm_batched)(cublasHandle_t, int, int, int, int, int, const float *, const float *, int,
	                                long long, const float *, int, long long, const float *, float *, int, long long,
	                                int);
	cublasStatus_t (*dgemm_batched)(cublasHandle_t, int, int, int, int, int, const double *, const double *, int,
	                                long long, const double *, int, long long, const double *, double *, int,
	                                long long, int);
} gb;

static void set_err(char *err, int errlen, const char *a, const char *b) {
	if (errlen <= 0) return;
	err[0] = 0;
	strncat(err, a ? a : "", errlen - 1);
	if (b) strncat(err, b, errlen - 1 - strlen(err));
}

// Opens path (after dep, when given: cuBLAS needs cuBLASLt, which the
// loader then finds already loaded) and resolves every entry point.
// Called once, from Go, before any other gp_blas function.
int gp_blas_open(const char *dep, const char *path, char *err, int errlen) {
	if (gb.lib) return 0;
	if (dep) dlopen(dep, RTLD_NOW | RTLD_GLOBAL); // best effort
	void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		set_err(err, errlen, dlerror(), 0);
		return -1;
	}
	static const char *const names[] = {"cublasCreate_v2", "cublasDestroy_v2", "cublasSetStream_v2",
	                                    "cublasSetMathMode", "cublasSgemm_v2", "cublasDgemm_v2"};
	void *fn[6];
	for (int i = 0; i < 6; i++) {
		fn[i] = dlsym(h, names[i]);
		if (!fn[i]) {
			set_err(err, errlen, path, " does not export ");
			strncat(err, names[i], errlen - 1 - strlen(err));
			dlclose(h);
			return -1;
		}
	}
	gb.create = fn[0];
	gb.destroy = fn[1];
	gb.set_stream = fn[2];
	gb.set_math = fn[3];
	gb.sgemm = fn[4];
	gb.dgemm = fn[5];
	gb.set_workspace = dlsym(h, "cublasSetWorkspace_v2");
	gb.sgetrf_batched = dlsym(h, "cublasSgetrfBatched");
	gb.dgetrf_batched = dlsym(h, "cublasDgetrfBatched");
	gb.sgetrs_batched = dlsym(h, "cublasSgetrsBatched");
	gb.dgetrs_batched = dlsym(h, "cublasDgetrsBatched");
	gb.sgemm_batched = dlsym(h, "cublasSgemmStridedBatched");
	gb.dgemm_batched = dlsym(h, "cublasDgemmStridedBatched");
	gb.lib = h;
	return 0;
}

#define BCTX(out, ctx)                     \
	do {                                   \
		(out).cu = gp_use_ctx(ctx);        \
		if ((out).cu) return (out);        \
	} while (0)

gp_bret gp_blas_create(gp_h ctx, gp_h s) {
	gp_bret out = {0};
	BCTX(out, ctx);
	cublasHandle_t h = 0;
	out.which = GP_BLAS_CREATE;
	if ((out.status = gb.create(&h))) return out;
	out.which = GP_BLAS_SET_STREAM;
	if ((out.status = gb.set_stream(h, (CUstream)s))) {
		gb.destroy(h);
		return out;
	}
	out.v = (uintptr_t)h;
	return out;
}

gp_bret gp_blas_set_stream(gp_h ctx, gp_h h, gp_h s) {
	gp_bret out = {0};
	BCTX(out, ctx);
	out.which = GP_BLAS_SET_STREAM;
	out.status = gb.set_stream((cublasHandle_t)h, (CUstream)s);
	return out;
}

gp_bret gp_blas_destroy(gp_h ctx, gp_h h) {
	gp_bret out = {0};
	BCTX(out, ctx);
	out.which = GP_BLAS_DESTROY;
	out.status = gb.destroy((cublasHandle_t)h);
	return out;
}

// Sets the handle's workspace (cublasSetWorkspace_v2): ws of size bytes,
// or the library's own pool when ws is 0.
gp_bret gp_blas_set_workspace(gp_h ctx, gp_h h, CUdeviceptr ws, size_t size) {
	gp_bret out = {0};
	BCTX(out, ctx);
	out.which = GP_BLAS_SET_WORKSPACE;
	if (!gb.set_workspace) {
		out.status = GP_BLAS_MISSING;
		return out;
	}
	out.status = gb.set_workspace((cublasHandle_t)h, (void *)ws, ws ? size : 0);
	return out;
}

// LU factorizations of batch n×n matrices (cublas<t>getrfBatched): a is
// the device array of their addresses, ipiv n·batch int32 pivots, info
// one int32 per matrix, all on the device.
gp_bret gp_blas_getrf_batched(gp_h ctx, gp_h h, int dbl, int n, CUdeviceptr a, int lda, CUdeviceptr ipiv,
                              CUdeviceptr info, int batch) {
	gp_bret out = {0};
	BCTX(out, ctx);
	cublasHandle_t hd = (cublasHandle_t)h;
	out.which = GP_BLAS_GETRF_BATCHED;
	if (!(dbl ? (void *)gb.dgetrf_batched : (void *)gb.sgetrf_batched)) {
		out.status = GP_BLAS_MISSING;
		return out;
	}
	if (dbl)
		out.status = gb.dgetrf_batched(hd, n, (double *const *)a, lda, (int *)ipiv, (int *)info, batch);
	else
		out.status = gb.sgetrf_batched(hd, n, (float *const *)a, lda, (int *)ipiv, (int *)info, batch);
	return out;
}

// Solves with getrfBatched's factors (cublas<t>getrsBatched); trans is a
// cublasOperation_t. Its info is a host word that reports a bad argument
// (returned in v, as -i for argument i).
gp_bret gp_blas_getrs_batched(gp_h ctx, gp_h h, int dbl, int trans, int n, int nrhs, CUdeviceptr a, int lda,
                              CUdeviceptr ipiv, CUdeviceptr b, int ldb, int batch) {
	gp_bret out = {0};
	BCTX(out, ctx);
	cublasHandle_t hd = (cublasHandle_t)h;
	out.which = GP_BLAS_GETRS_BATCHED;
	if (!(dbl ? (void *)gb.dgetrs_batched : (void *)gb.sgetrs_batched)) {
		out.status = GP_BLAS_MISSING;
		return out;
	}
	int info = 0;
	if (dbl)
		out.status = gb.dgetrs_batched(hd, trans, n, nrhs, (const double *const *)a, lda, (const int *)ipiv,
		                               (double *const *)b, ldb, &info, batch);
	else
		out.status = gb.sgetrs_batched(hd, trans, n, nrhs, (const float *const *)a, lda, (const int *)ipiv,
		                               (float *const *)b, ldb, &info, batch);
	out.v = (unsigned long long)(long long)info;
	return out;
}

// One GEMM on the handle's stream: math is the cublasMath_t for float32
// (CUBLAS_DEFAULT_MATH 0, CUBLAS_TF32_TENSOR_OP_MATH 3); ta and tb are
// cublasOperation_t (CUBLAS_OP_N 0, CUBLAS_OP_T 1). Alpha and beta live on
// this stack: the handle's pointer mode is the default, HOST, so cuBLAS
// reads them before it returns.
gp_bret gp_blas_gemm(gp_h ctx, gp_h h, int dbl, int math, int ta, int tb, int m, int n, int k,
                     double alpha, CUdeviceptr a, int lda, CUdeviceptr b, int ldb, double beta,
                     CUdeviceptr c, int ldc) {
	gp_bret out = {0};
	BCTX(out, ctx);
	cublasHandle_t hd = (cublasHandle_t)h;
	if (dbl) {
		out.which = GP_BLAS_DGEMM;
		out.status = gb.dgemm(hd, ta, tb, m, n, k, &alpha, (const double *)a, lda, (const double *)b, ldb,
		                      &beta, (double *)c, ldc);
		return out;
	}
	out.which = GP_BLAS_SET_MATH;
	if ((out.status = gb.set_math(hd, math))) return out;
	float fa = (float)alpha, fb = (float)beta;
	out.which = GP_BLAS_SGEMM;
	out.status = gb.sgemm(hd, ta, tb, m, n, k, &fa, (const float *)a, lda, (const float *)b, ldb, &fb,
	                      (float *)c, ldc);
	return out;
}

// A strided batch of GEMMs on the handle's stream
// (cublas<t>gemmStridedBatched): product i reads a + i·sa, b + i·sb and
// writes c + i·sc (strides in elements); the rest as gp_blas_gemm. A
// library without the entry point reports GP_BLAS_MISSING.
gp_bret gp_blas_gemm_batched(gp_h ctx, gp_h h, int dbl, int math, int ta, int tb, int m, int n, int k,
                             double alpha, CUdeviceptr a, int lda, long long sa, CUdeviceptr b, int ldb,
                             long long sb, double beta, CUdeviceptr c, int ldc, long long sc, int batch) {
	gp_bret out = {0};
	BCTX(out, ctx);
	cublasHandle_t hd = (cublasHandle_t)h;
	if (dbl) {
		out.which = GP_BLAS_DGEMM_BATCHED;
		if (!gb.dgemm_batched) {
			out.status = GP_BLAS_MISSING;
			return out;
		}
		out.status = gb.dgemm_batched(hd, ta, tb, m, n, k, &alpha, (const double *)a, lda, sa, (const double *)b,
		                              ldb, sb, &beta, (double *)c, ldc, sc, batch);
		return out;
	}
	out.which = GP_BLAS_SGEMM_BATCHED;
	if (!gb.sgemm_batched) {
		out.status = GP_BLAS_MISSING;
		return out;
	}
	out.which = GP_BLAS_SET_MATH;
	if ((out.status = gb.set_math(hd, math))) return out;
	float fa = (float)alpha, fb = (float)beta;
	out.which = GP_BLAS_SGEMM_BATCHED;
	out.status = gb.sgemm_batched(hd, ta, tb, m, n, k, &fa, (const float *)a, lda, sa, (const float *)b, ldb, sb,
	                              &fb, (float *)c, ldc, sc, batch);
	return out;
}
