//go:build cgo

// cuSOLVER through dlopen: a dense handle per stream with its 64-bit API
// parameters and Jacobi settings, the buffer-size queries and the
// routines gpuarr's linalg uses, each made with the device's context
// current (gp_use_ctx). Where the 64-bit API (cusolverDnX*) has a routine
// it is used; orgqr, gesvdj and the batched routines exist only in the
// legacy API. Host workspaces of the 64-bit API are allocated here for the
// call and freed when it returns: cuSOLVER uses them during the call.

#include "extlib.h"

#include <dlfcn.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

typedef int cusolverStatus_t;
typedef void *cusolverDnHandle_t;
typedef void *cusolverDnParams_t;
typedef void *gesvdjInfo_t;
typedef void *syevjInfo_t;

// cudaDataType_t, cublasFillMode_t, cublasOperation_t, cusolverEigMode_t.
enum { R_32F = 0, R_64F = 1 };
enum { FILL_LOWER = 0, FILL_UPPER = 1 };
enum { OP_N = 0, OP_T = 1 };
enum { EIG_NOVECTOR = 0, EIG_VECTOR = 1 };

// driver.SolverOp values.
enum {
	GETRF = 1,
	GETRS,
	POTRF,
	POTRS,
	GEQRF,
	ORGQR,
	SYEVD,
	GESVD,
	GESVDJ,
	GETRF_BATCHED,
	GETRS_BATCHED,
	POTRF_BATCHED,
	POTRS_BATCHED,
	SYEVJ_BATCHED,
	GESVDJ_BATCHED
};

// The entry points, by index (which), as they are exported.
#define SOLVER_SYMBOLS(X)                                                           \
	X(CREATE, "cusolverDnCreate")                                                   \
	X(DESTROY, "cusolverDnDestroy")                                                 \
	X(SET_STREAM, "cusolverDnSetStream")                                            \
	X(CREATE_PARAMS, "cusolverDnCreateParams")                                      \
	X(DESTROY_PARAMS, "cusolverDnDestroyParams")                                    \
	X(XGETRF_BS, "cusolverDnXgetrf_bufferSize")                                     \
	X(XGETRF, "cusolverDnXgetrf")                                                   \
	X(XGETRS, "cusolverDnXgetrs")                                                   \
	X(XPOTRF_BS, "cusolverDnXpotrf_bufferSize")                                     \
	X(XPOTRF, "cusolverDnXpotrf")                                                   \
	X(XPOTRS, "cusolverDnXpotrs")                                                   \
	X(XGEQRF_BS, "cusolverDnXgeqrf_bufferSize")                                     \
	X(XGEQRF, "cusolverDnXgeqrf")                                                   \
	X(SORGQR_BS, "cusolverDnSorgqr_bufferSize")                                     \
	X(DORGQR_BS, "cusolverDnDorgqr_bufferSize")                                     \
	X(SORGQR, "cusolverDnSorgqr")                                                   \
	X(DORGQR, "cusolverDnDorgqr")                                                   \
	X(XSYEVD_BS, "cusolverDnXsyevd_bufferSize")                                     \
	X(XSYEVD, "cusolverDnXsyevd")                                                   \
	X(XGESVD_BS, "cusolverDnXgesvd_bufferSize")                                     \
	X(XGESVD, "cusolverDnXgesvd")                                                   \
	X(CREATE_GESVDJ, "cusolverDnCreateGesvdjInfo")                                  \
	X(DESTROY_GESVDJ, "cusolverDnDestroyGesvdjInfo")                                \
	X(SGESVDJ_BS, "cusolverDnSgesvdj_bufferSize")                                   \
	X(DGESVDJ_BS, "cusolverDnDgesvdj_bufferSize")                                   \
	X(SGESVDJ, "cusolverDnSgesvdj")                                                 \
	X(DGESVDJ, "cusolverDnDgesvdj")                                                 \
	X(SPOTRF_BATCHED, "cusolverDnSpotrfBatched")                                    \
	X(DPOTRF_BATCHED, "cusolverDnDpotrfBatched")                                    \
	X(SPOTRS_BATCHED, "cusolverDnSpotrsBatched")                                    \
	X(DPOTRS_BATCHED, "cusolverDnDpotrsBatched")                                    \
	X(CREATE_SYEVJ, "cusolverDnCreateSyevjInfo")                                    \
	X(DESTROY_SYEVJ, "cusolverDnDestroySyevjInfo")                                  \
	X(SSYEVJ_BATCHED_BS, "cusolverDnSsyevjBatched_bufferSize")                      \
	X(DSYEVJ_BATCHED_BS, "cusolverDnDsyevjBatched_bufferSize")                      \
	X(SSYEVJ_BATCHED, "cusolverDnSsyevjBatched")                                    \
	X(DSYEVJ_BATCHED, "cusolverDnDsyevjBatched")                                    \
	X(SGESVDJ_BATCHED_BS, "cusolverDnSgesvdjBatched_bufferSize")                    \
	X(DGESVDJ_BATCHED_BS, "cusolverDnDgesvdjBatched_bufferSize")                    \
	X(SGESVDJ_BATCHED, "cusolverDnSgesvdjBatched")                                  \
	X(DGESVDJ_BATCHED, "cusolverDnDgesvdjBatched")

#define SYM_ENUM(id, name) S_##id,
enum { SOLVER_SYMBOLS(SYM_ENUM) S_COUNT };
#define SYM_NAME(id, name) name,
static const char *const sym_names[] = {SOLVER_SYMBOLS(SYM_NAME)};

static struct {
	void *lib;
	void *fn[S_COUNT];
} gs;

// The calls, typed. A missing optional entry point is NULL in gs.fn and
// makes only the routines that need it fail (GP_SOLVER_MISSING).
typedef cusolverStatus_t (*create_t)(cusolverDnHandle_t *);
typedef cusolverStatus_t (*destroy_t)(cusolverDnHandle_t);
typedef cusolverStatus_t (*set_stream_t)(cusolverDnHandle_t, CUstream);
typedef cusolverStatus_t (*create_params_t)(cusolverDnParams_t *);
typedef cusolverStatus_t (*destroy_params_t)(cusolverDnParams_t);
typedef cusolverStatus_t (*create_info_t)(void **);
typedef cusolverStatus_t (*destroy_info_t)(void *);

typedef cusolverStatus_t (*xgetrf_bs_t)(cusolverDnHandle_t, cusolverDnParams_t, int64_t, int64_t, int, const void *,
                                        int64_t, int, size_t *, size_t *);
typedef cusolverStatus_t (*xgetrf_t)(cusolverDnHandle_t, cusolverDnParams_t, int64_t, int64_t, int, void *, int64_t,
                                     int64_t *, int, void *, size_t, void *, size_t, int *);
typedef cusolverStatus_t (*xgetrs_t)(cusolverDnHandle_t, cusolverDnParams_t, int, int64_t, int64_t, int, const void *,
                                     int64_t, const int64_t *, int, void *, int64_t, int *);
typedef cusolverStatus_t (*xpotrf_bs_t)(cusolverDnHandle_t, cusolverDnParams_t, int, int64_t, int, const void *,
                                        int64_t, int, size_t *, size_t *);
typedef cusolverStatus_t (*xpotrf_t)(cusolverDnHandle_t, cusolverDnParams_t, int, int64_t, int, void *, int64_t, int,
                                     void *, size_t, void *, size_t, int *);
typedef cusolverStatus_t (*xpotrs_t)(cusolverDnHandle_t, cusolverDnParams_t, int, int64_t, int64_t, int, const void *,
                                     int64_t, int, void *, int64_t, int *);
typedef cusolverStatus_t (*xgeqrf_bs_t)(cusolverDnHandle_t, cusolverDnParams_t, int64_t, int64_t, int, const void *,
                                        int64_t, int, const void *, int, size_t *, size_t *);
typedef cusolverStatus_t (*xgeqrf_t)(cusolverDnHandle_t, cusolverDnParams_t, int64_t, int64_t, int, void *, int64_t, int,
                                     void *, int, void *, size_t, void *, size_t, int *);
typedef cusolverStatus_t (*orgqr_bs_t)(cusolverDnHandle_t, int, int, int, const void *, int, const void *, int *);
typedef cusolverStatus_t (*orgqr_t)(cusolverDnHandle_t, int, int, int, void *, int, const void *, void *, int, int *);
typedef cusolverStatus_t (*xsyevd_bs_t)(cusolverDnHandle_t, cusolverDnParams_t, int, int, int64_t, int, const void *,
                                        int64_t, int, const void *, int, size_t *, size_t *);
typedef cusolverStatus_t (*xsyevd_t)(cusolverDnHandle_t, cusolverDnParams_t, int, int, int64_t, int, void *, int64_t,
                                     int, void *, int, void *, size_t, void *, size_t, int *);
typedef cusolverStatus_t (*xgesvd_bs_t)(cusolverDnHandle_t, cusolverDnParams_t, signed char, signed char, int64_t,
                                        int64_t, int, const void *, int64_t, int, const void *, int, const void *,
                                        int64_t, int, const void *, int64_t, int, size_t *, size_t *);
typedef cusolverStatus_t (*xgesvd_t)(cusolverDnHandle_t, cusolverDnParams_t, signed char, signed char, int64_t, int64_t,
                                     int, void *, int64_t, int, void *, int, void *, int64_t, int, void *, int64_t, int,
                                     void *, size_t, void *, size_t, int *);
typedef cusolverStatus_t (*gesvdj_bs_t)(cusolverDnHandle_t, int, int, int, int, const void *, int, const void *,
                                        const void *, int, const void *, int, int *, gesvdjInfo_t);
typedef cusolverStatus_t (*gesvdj_t)(cusolverDnHandle_t, int, int, int, int, void *, int, void *, void *, int, void *,
                                     int, void *, int, int *, gesvdjInfo_t);
typedef cusolverStatus_t (*potrf_batched_t)(cusolverDnHandle_t, int, int, void **, int, int *, int);
typedef cusolverStatus_t (*potrs_batched_t)(cusolverDnHandle_t, int, int, int, void **, int, void **, int, int *, int);
typedef cusolverStatus_t (*syevj_batched_bs_t)(cusolverDnHandle_t, int, int, int, const void *, int, const void *,
                                               int *, syevjInfo_t, int);
typedef cusolverStatus_t (*syevj_batched_t)(cusolverDnHandle_t, int, int, int, void *, int, void *, void *, int, int *,
                                            syevjInfo_t, int);
typedef cusolverStatus_t (*gesvdj_batched_bs_t)(cusolverDnHandle_t, int, int, int, const void *, int, const void *,
                                                const void *, int, const void *, int, int *, gesvdjInfo_t, int);
typedef cusolverStatus_t (*gesvdj_batched_t)(cusolverDnHandle_t, int, int, int, void *, int, void *, void *, int,
                                             void *, int, void *, int, int *, gesvdjInfo_t, int);

#define FN(id, type) ((type)gs.fn[S_##id])

static void set_err(char *err, int errlen, const char *a, const char *b) {
	if (errlen <= 0) return;
	err[0] = 0;
	strncat(err, a ? a : "", errlen - 1);
	if (b) strncat(err, b, errlen - 1 - strlen(err));
}

// Opens path after its dependencies (each best effort: cuSOLVER links
// cuBLAS, cuBLASLt, cuSPARSE and nvJitLink by soname, which the loader
// then finds already loaded when they sit outside its path) and resolves
// the entry points. The handle calls are required; the rest are resolved
// when present. Called once, from Go, before any other gp_solver function.
int gp_solver_open(const char *const *deps, int ndeps, const char *path, char *err, int errlen) {
	if (gs.lib) return 0;
	for (int i = 0; i < ndeps; i++) dlopen(deps[i], RTLD_NOW | RTLD_GLOBAL);
	void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		set_err(err, errlen, dlerror(), 0);
		return -1;
	}
	for (int i = 0; i < S_COUNT; i++) {
		gs.fn[i] = dlsym(h, sym_names[i]);
		if (!gs.fn[i] && i <= S_DESTROY_PARAMS) {
			set_err(err, errlen, path, " does not export ");
			strncat(err, sym_names[i], errlen - 1 - strlen(err));
			dlclose(h);
			return -1;
		}
	}
	gs.lib = h;
	return 0;
}

// The export name of entry point which, for errors.
const char *gp_solver_name(int which) { return which >= 0 && which < S_COUNT ? sym_names[which] : "cuSOLVER"; }

// A stream's solver state: the handle, the 64-bit API's parameters and the
// Jacobi settings (default tolerance and sweeps), made once per handle.
typedef struct {
	cusolverDnHandle_t h;
	cusolverDnParams_t params;
	gesvdjInfo_t gesvdj;
	syevjInfo_t syevj;
} solver;

#define SCTX(out, ctx)              \
	do {                            \
		(out).cu = gp_use_ctx(ctx); \
		if ((out).cu) return (out); \
	} while (0)

static void solver_free(solver *s) {
	if (s->syevj && gs.fn[S_DESTROY_SYEVJ]) FN(DESTROY_SYEVJ, destroy_info_t)(s->syevj);
	if (s->gesvdj && gs.fn[S_DESTROY_GESVDJ]) FN(DESTROY_GESVDJ, destroy_info_t)(s->gesvdj);
	if (s->params) FN(DESTROY_PARAMS, destroy_params_t)(s->params);
	if (s->h) FN(DESTROY, destroy_t)(s->h);
	free(s);
}

gp_bret gp_solver_create(gp_h ctx, gp_h st) {
	gp_bret out = {0};
	SCTX(out, ctx);
	solver *s = calloc(1, sizeof *s);
	if (!s) {
		out.which = S_CREATE;
		out.status = 2; // CUSOLVER_STATUS_ALLOC_FAILED
		return out;
	}
	out.which = S_CREATE;
	if ((out.status = FN(CREATE, create_t)(&s->h))) goto fail;
	out.which = S_SET_STREAM;
	if ((out.status = FN(SET_STREAM, set_stream_t)(s->h, (CUstream)st))) goto fail;
	out.which = S_CREATE_PARAMS;
	if ((out.status = FN(CREATE_PARAMS, create_params_t)(&s->params))) goto fail;
	out.v = (uintptr_t)s;
	return out;
fail:
	solver_free(s);
	return out;
}

gp_bret gp_solver_set_stream(gp_h ctx, gp_h h, gp_h st) {
	gp_bret out = {0};
	SCTX(out, ctx);
	out.which = S_SET_STREAM;
	out.status = FN(SET_STREAM, set_stream_t)(((solver *)h)->h, (CUstream)st);
	return out;
}

gp_bret gp_solver_destroy(gp_h ctx, gp_h h) {
	gp_bret out = {0};
	SCTX(out, ctx);
	solver_free((solver *)h);
	return out;
}

// jacobi makes the handle's gesvdj or syevj settings on first use.
static cusolverStatus_t jacobi(solver *s, int syevj, int *which) {
	void **p = syevj ? &s->syevj : &s->gesvdj;
	if (*p) return 0;
	*which = syevj ? S_CREATE_SYEVJ : S_CREATE_GESVDJ;
	if (!gs.fn[*which]) return GP_SOLVER_MISSING;
	return ((create_info_t)gs.fn[*which])(p);
}

// entry is the entry point that runs op, or -1.
static int entry(int op, int dbl) {
	switch (op) {
	case GETRF: return S_XGETRF;
	case GETRS: return S_XGETRS;
	case POTRF: return S_XPOTRF;
	case POTRS: return S_XPOTRS;
	case GEQRF: return S_XGEQRF;
	case ORGQR: return dbl ? S_DORGQR : S_SORGQR;
	case SYEVD: return S_XSYEVD;
	case GESVD: return S_XGESVD;
	case GESVDJ: return dbl ? S_DGESVDJ : S_SGESVDJ;
	case POTRF_BATCHED: return dbl ? S_DPOTRF_BATCHED : S_SPOTRF_BATCHED;
	case POTRS_BATCHED: return dbl ? S_DPOTRS_BATCHED : S_SPOTRS_BATCHED;
	case SYEVJ_BATCHED: return dbl ? S_DSYEVJ_BATCHED : S_SSYEVJ_BATCHED;
	case GESVDJ_BATCHED: return dbl ? S_DGESVDJ_BATCHED : S_SGESVDJ_BATCHED;
	}
	return -1;
}

// need checks that entry point i exists.
#define NEED(i)                                   \
	do {                                          \
		*which = (i);                             \
		if (!gs.fn[i]) return GP_SOLVER_MISSING;  \
	} while (0)

// query reports the device (*dev) and host (*host) workspace bytes of c.
static cusolverStatus_t query(solver *s, const gp_scall *c, size_t *dev, size_t *host, int *which) {
	int dt = c->type == 2 ? R_64F : R_32F, dbl = c->type == 2;
	size_t es = dbl ? 8 : 4;
	int lwork = 0;
	cusolverStatus_t st = 0;
	*dev = *host = 0;
	switch (c->op) {
	case GETRF:
		NEED(S_XGETRF_BS);
		return FN(XGETRF_BS, xgetrf_bs_t)(s->h, s->params, c->m, c->n, dt, (const void *)c->a, c->lda, dt, dev, host);
	case POTRF:
		NEED(S_XPOTRF_BS);
		return FN(XPOTRF_BS, xpotrf_bs_t)(s->h, s->params, c->upper ? FILL_UPPER : FILL_LOWER, c->n, dt,
		                                  (const void *)c->a, c->lda, dt, dev, host);
	case GEQRF:
		NEED(S_XGEQRF_BS);
		return FN(XGEQRF_BS, xgeqrf_bs_t)(s->h, s->params, c->m, c->n, dt, (const void *)c->a, c->lda, dt,
		                                  (const void *)c->vals, dt, dev, host);
	case ORGQR:
		NEED(dbl ? S_DORGQR_BS : S_SORGQR_BS);
		st = ((orgqr_bs_t)gs.fn[*which])(s->h, (int)c->m, (int)c->n, (int)c->k, (const void *)c->a, (int)c->lda,
		                                  (const void *)c->vals, &lwork);
		break;
	case SYEVD:
		NEED(S_XSYEVD_BS);
		return FN(XSYEVD_BS, xsyevd_bs_t)(s->h, s->params, c->vectors ? EIG_VECTOR : EIG_NOVECTOR,
		                                  c->upper ? FILL_UPPER : FILL_LOWER, c->n, dt, (const void *)c->a, c->lda,
		                                  dt, (const void *)c->vals, dt, dev, host);
	case GESVD:
		NEED(S_XGESVD_BS);
		return FN(XGESVD_BS, xgesvd_bs_t)(s->h, s->params, (signed char)c->job, (signed char)c->job, c->m, c->n, dt,
		                                  (const void *)c->a, c->lda, dt, (const void *)c->vals, dt,
		                                  (const void *)c->u, c->ldu, dt, (const void *)c->v, c->ldv, dt, dev, host);
	case GESVDJ:
		if ((st = jacobi(s, 0, which))) return st;
		NEED(dbl ? S_DGESVDJ_BS : S_SGESVDJ_BS);
		st = ((gesvdj_bs_t)gs.fn[*which])(s->h, c->vectors ? EIG_VECTOR : EIG_NOVECTOR, c->econ, (int)c->m,
		                                   (int)c->n, (const void *)c->a, (int)c->lda, (const void *)c->vals,
		                                   (const void *)c->u, (int)c->ldu, (const void *)c->v, (int)c->ldv, &lwork,
		                                   s->gesvdj);
		break;
	case SYEVJ_BATCHED:
		if ((st = jacobi(s, 1, which))) return st;
		NEED(dbl ? S_DSYEVJ_BATCHED_BS : S_SSYEVJ_BATCHED_BS);
		st = ((syevj_batched_bs_t)gs.fn[*which])(s->h, c->vectors ? EIG_VECTOR : EIG_NOVECTOR,
		                                          c->upper ? FILL_UPPER : FILL_LOWER, (int)c->n, (const void *)c->a,
		                                          (int)c->lda, (const void *)c->vals, &lwork, s->syevj, (int)c->batch);
		break;
	case GESVDJ_BATCHED:
		if ((st = jacobi(s, 0, which))) return st;
		NEED(dbl ? S_DGESVDJ_BATCHED_BS : S_SGESVDJ_BATCHED_BS);
		st = ((gesvdj_batched_bs_t)gs.fn[*which])(s->h, c->vectors ? EIG_VECTOR : EIG_NOVECTOR, (int)c->m,
		                                           (int)c->n, (const void *)c->a, (int)c->lda, (const void *)c->vals,
		                                           (const void *)c->u, (int)c->ldu, (const void *)c->v, (int)c->ldv,
		                                           &lwork, s->gesvdj, (int)c->batch);
		break;
	case GETRS:
	case POTRS:
	case POTRF_BATCHED:
	case POTRS_BATCHED:
		return 0; // no workspace
	default:
		return GP_SOLVER_BAD_OP;
	}
	if (!st) *dev = (size_t)(lwork > 0 ? lwork : 0) * es;
	return st;
}

gp_bret gp_solver_buffer(gp_h ctx, gp_h h, const gp_scall *c) {
	gp_bret out = {0};
	SCTX(out, ctx);
	size_t dev = 0, host = 0;
	out.status = query((solver *)h, c, &dev, &host, &out.which);
	out.v = dev;
	return out;
}

// run issues c; the workspace must be at least what query reports.
static cusolverStatus_t run(solver *s, const gp_scall *c, int *which, unsigned long long *need) {
	int dt = c->type == 2 ? R_64F : R_32F, dbl = c->type == 2;
	size_t es = dbl ? 8 : 4;
	int fill = c->upper ? FILL_UPPER : FILL_LOWER, jobz = c->vectors ? EIG_VECTOR : EIG_NOVECTOR;
	size_t dev = 0, host = 0;
	cusolverStatus_t st = query(s, c, &dev, &host, which);
	if (st) return st;
	if (dev > c->work_bytes) {
		*need = dev;
		return GP_SOLVER_SHORT_WORK;
	}
	int lwork = (int)(dev / es); // the legacy routines' workspace, in elements
	int e = entry(c->op, dbl);
	if (e < 0) return GP_SOLVER_BAD_OP;
	*which = e;
	if (!gs.fn[e]) return GP_SOLVER_MISSING;
	void *hbuf = 0;
	if (host && !(hbuf = malloc(host))) {
		*which = -1;
		return 2; // CUSOLVER_STATUS_ALLOC_FAILED
	}
	void *a = (void *)c->a, *work = (void *)c->work, *vals = (void *)c->vals;
	int *info = (int *)c->info;
	switch (c->op) {
	case GETRF:
		st = FN(XGETRF, xgetrf_t)(s->h, s->params, c->m, c->n, dt, a, c->lda, (int64_t *)c->ipiv, dt, work,
		                          c->work_bytes, hbuf, host, info);
		break;
	case GETRS:
		st = FN(XGETRS, xgetrs_t)(s->h, s->params, c->trans ? OP_T : OP_N, c->n, c->nrhs, dt, a, c->lda,
		                          (const int64_t *)c->ipiv, dt, (void *)c->b, c->ldb, info);
		break;
	case POTRF:
		st = FN(XPOTRF, xpotrf_t)(s->h, s->params, fill, c->n, dt, a, c->lda, dt, work, c->work_bytes, hbuf, host,
		                          info);
		break;
	case POTRS:
		st = FN(XPOTRS, xpotrs_t)(s->h, s->params, fill, c->n, c->nrhs, dt, a, c->lda, dt, (void *)c->b, c->ldb,
		                          info);
		break;
	case GEQRF:
		st = FN(XGEQRF, xgeqrf_t)(s->h, s->params, c->m, c->n, dt, a, c->lda, dt, vals, dt, work, c->work_bytes,
		                          hbuf, host, info);
		break;
	case ORGQR:
		st = ((orgqr_t)gs.fn[*which])(s->h, (int)c->m, (int)c->n, (int)c->k, a, (int)c->lda, vals, work, lwork,
		                              info);
		break;
	case SYEVD:
		st = FN(XSYEVD, xsyevd_t)(s->h, s->params, jobz, fill, c->n, dt, a, c->lda, dt, vals, dt, work,
		                          c->work_bytes, hbuf, host, info);
		break;
	case GESVD:
		st = FN(XGESVD, xgesvd_t)(s->h, s->params, (signed char)c->job, (signed char)c->job, c->m, c->n, dt, a,
		                          c->lda, dt, vals, dt, (void *)c->u, c->ldu, dt, (void *)c->v, c->ldv, dt, work,
		                          c->work_bytes, hbuf, host, info);
		break;
	case GESVDJ:
		st = ((gesvdj_t)gs.fn[*which])(s->h, jobz, c->econ, (int)c->m, (int)c->n, a, (int)c->lda, vals,
		                               (void *)c->u, (int)c->ldu, (void *)c->v, (int)c->ldv, work, lwork, info,
		                               s->gesvdj);
		break;
	case POTRF_BATCHED:
		st = ((potrf_batched_t)gs.fn[*which])(s->h, fill, (int)c->n, (void **)c->a, (int)c->lda, info,
		                                      (int)c->batch);
		break;
	case POTRS_BATCHED:
		st = ((potrs_batched_t)gs.fn[*which])(s->h, fill, (int)c->n, (int)c->nrhs, (void **)c->a, (int)c->lda,
		                                      (void **)c->b, (int)c->ldb, info, (int)c->batch);
		break;
	case SYEVJ_BATCHED:
		st = ((syevj_batched_t)gs.fn[*which])(s->h, jobz, fill, (int)c->n, a, (int)c->lda, vals, work, lwork, info,
		                                      s->syevj, (int)c->batch);
		break;
	case GESVDJ_BATCHED:
		st = ((gesvdj_batched_t)gs.fn[*which])(s->h, jobz, (int)c->m, (int)c->n, a, (int)c->lda, vals,
		                                       (void *)c->u, (int)c->ldu, (void *)c->v, (int)c->ldv, work, lwork,
		                                       info, s->gesvdj, (int)c->batch);
		break;
	default:
		st = GP_SOLVER_BAD_OP;
	}
	free(hbuf);
	return st;
}

gp_bret gp_solver_run(gp_h ctx, gp_h h, const gp_scall *c) {
	gp_bret out = {0};
	SCTX(out, ctx);
	out.status = run((solver *)h, c, &out.which, &out.v);
	return out;
}
