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

// Status for an optional cuBLAS entry point the library does not export.
#define GP_BLAS_MISSING (-1)

enum {
	GP_BLAS_CREATE,
	GP_BLAS_DESTROY,
	GP_BLAS_SET_STREAM,
	GP_BLAS_SET_MATH,
	GP_BLAS_SGEMM,
	GP_BLAS_DGEMM,
	GP_BLAS_SET_WORKSPACE,
	GP_BLAS_GETRF_BATCHED,
	GP_BLAS_GETRS_BATCHED,
	GP_BLAS_GEMM_EX,
	GP_BLAS_CGEMM,
	GP_BLAS_ZGEMM,
	GP_BLAS_SGEMM_BATCHED,
	GP_BLAS_DGEMM_BATCHED
};

// The products gp_blas_gemm_ex computes.
enum { GP_GEMM_F16, GP_GEMM_BF16, GP_GEMM_C64, GP_GEMM_C128 };

int gp_blas_open(const char *dep, const char *path, char *err, int errlen);
gp_bret gp_blas_create(gp_h ctx, gp_h s);
gp_bret gp_blas_set_stream(gp_h ctx, gp_h h, gp_h s);
gp_bret gp_blas_destroy(gp_h ctx, gp_h h);
gp_bret gp_blas_gemm(gp_h ctx, gp_h h, int dbl, int math, int ta, int tb, int m, int n, int k,
                     double alpha, CUdeviceptr a, int lda, CUdeviceptr b, int ldb, double beta,
                     CUdeviceptr c, int ldc);
gp_bret gp_blas_gemm_ex(gp_h ctx, gp_h h, int kind, int ta, int tb, int m, int n, int k, double alpha,
                        CUdeviceptr a, int lda, CUdeviceptr b, int ldb, double beta, CUdeviceptr c, int ldc);
gp_bret gp_blas_gemm_batched(gp_h ctx, gp_h h, int dbl, int math, int ta, int tb, int m, int n, int k,
                             double alpha, CUdeviceptr a, int lda, long long sa, CUdeviceptr b, int ldb,
                             long long sb, double beta, CUdeviceptr c, int ldc, long long sc, int batch);
gp_bret gp_blas_set_workspace(gp_h ctx, gp_h h, CUdeviceptr ws, size_t size);
gp_bret gp_blas_getrf_batched(gp_h ctx, gp_h h, int dbl, int n, CUdeviceptr a, int lda, CUdeviceptr ipiv,
                              CUdeviceptr info, int batch);
gp_bret gp_blas_getrs_batched(gp_h ctx, gp_h h, int dbl, int trans, int n, int nrhs, CUdeviceptr a, int lda,
                              CUdeviceptr ipiv, CUdeviceptr b, int ldb, int batch);

// A cuSOLVER call (solver.c): the fields of driver.SolverCall, with op
// as its Go value (driver.SolverOp) and type 1 for float32, 2 for float64.
typedef struct {
	int op, type;
	long long m, n, k, nrhs, batch;
	int upper, trans, vectors, econ, job;
	CUdeviceptr a, b, u, v, vals, ipiv, info, work;
	long long lda, ldb, ldu, ldv;
	unsigned long long work_bytes;
} gp_scall;

// Statuses the shim reports besides cusolverStatus_t values.
#define GP_SOLVER_MISSING (-1)     // the library does not export the entry point
#define GP_SOLVER_SHORT_WORK (-2)  // the workspace is shorter than the query says (v: bytes needed)
#define GP_SOLVER_BAD_OP (-3)      // not a routine of this file

int gp_solver_open(const char *const *deps, int ndeps, const char *path, char *err, int errlen);
const char *gp_solver_name(int which);
gp_bret gp_solver_create(gp_h ctx, gp_h s);
gp_bret gp_solver_set_stream(gp_h ctx, gp_h h, gp_h s);
gp_bret gp_solver_destroy(gp_h ctx, gp_h h);
gp_bret gp_solver_buffer(gp_h ctx, gp_h h, const gp_scall *c);
gp_bret gp_solver_run(gp_h ctx, gp_h h, const gp_scall *c);

// A cuFFT plan (fft.c): the fields of driver.FFTPlan, kind as its Go
// value (driver.FFTKind), dbl for Complex128.
typedef struct {
	int kind, dbl, rank;
	long long n[3];
	long long batch, istride, idist, ostride, odist;
} gp_fplan;

// A cuFFT call's outcome: cu is a failed context switch; otherwise
// status is the cufftResult of the entry point numbered which; v is a new
// plan's handle and work its workspace bytes.
typedef struct {
	gp_rc cu;
	int status, which;
	unsigned long long v, work;
} gp_fret;

// Status for a transform kind fft.c does not know.
#define GP_FFT_BAD_KIND (-3)

int gp_fft_open(const char *const *deps, int ndeps, const char *path, char *err, int errlen);
const char *gp_fft_name(int which);
gp_fret gp_fft_plan(gp_h ctx, const gp_fplan *p);
gp_fret gp_fft_exec(gp_h ctx, int h, gp_h st, int kind, int dbl, int inverse, CUdeviceptr in, CUdeviceptr out,
                    CUdeviceptr work);
gp_fret gp_fft_destroy(gp_h ctx, int h);

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
