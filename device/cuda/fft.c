//go:build cgo

// cuFFT through dlopen: plans made with the caller's workspace
// (cufftSetAutoAllocation(0), cufftMakePlanMany64 with the advanced data
// layout), executed on a stream with a work area set per call, and
// destroyed. Each call is made with the device's context current
// (gp_use_ctx): cuFFT, like the CUDA runtime it uses, works in the
// current context.

#include "extlib.h"

#include <dlfcn.h>
#include <string.h>

typedef int cufftResult;
typedef int cufftHandle;

// cufftType values (cufft.h).
enum { T_R2C = 0x2a, T_C2R = 0x2c, T_C2C = 0x29, T_D2Z = 0x6a, T_Z2D = 0x6c, T_Z2Z = 0x69 };
// Directions.
enum { FORWARD = -1, INVERSE = 1 };

#define FFT_SYMBOLS(X)                               \
	X(CREATE, "cufftCreate")                         \
	X(DESTROY, "cufftDestroy")                       \
	X(SET_AUTO, "cufftSetAutoAllocation")            \
	X(MAKE_MANY64, "cufftMakePlanMany64")            \
	X(SET_WORK, "cufftSetWorkArea")                  \
	X(SET_STREAM, "cufftSetStream")                  \
	X(EXEC_C2C, "cufftExecC2C")                      \
	X(EXEC_R2C, "cufftExecR2C")                      \
	X(EXEC_C2R, "cufftExecC2R")                      \
	X(EXEC_Z2Z, "cufftExecZ2Z")                      \
	X(EXEC_D2Z, "cufftExecD2Z")                      \
	X(EXEC_Z2D, "cufftExecZ2D")

#define FSYM_ENUM(id, name) F_##id,
enum { FFT_SYMBOLS(FSYM_ENUM) F_COUNT };
#define FSYM_NAME(id, name) name,
static const char *const fsym_names[] = {FFT_SYMBOLS(FSYM_NAME)};

static struct {
	void *lib;
	void *fn[F_COUNT];
} gf;

typedef cufftResult (*create_t)(cufftHandle *);
typedef cufftResult (*destroy_t)(cufftHandle);
typedef cufftResult (*set_auto_t)(cufftHandle, int);
typedef cufftResult (*make_many64_t)(cufftHandle, int, long long *, long long *, long long, long long, long long *,
                                     long long, long long, int, long long, size_t *);
typedef cufftResult (*set_work_t)(cufftHandle, void *);
typedef cufftResult (*set_stream_t)(cufftHandle, CUstream);
typedef cufftResult (*exec_c2c_t)(cufftHandle, void *, void *, int);
typedef cufftResult (*exec_r2c_t)(cufftHandle, void *, void *);

#define FFN(id, type) ((type)gf.fn[F_##id])

// Opens path (after its dependencies, best effort) and resolves every
// entry point; a missing one fails the open. Called once, from Go,
// before any other gp_fft function.
int gp_fft_open(const char *const *deps, int ndeps, const char *path, char *err, int errlen) {
	if (gf.lib) return 0;
	for (int i = 0; i < ndeps; i++) dlopen(deps[i], RTLD_NOW | RTLD_GLOBAL);
	void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		if (errlen > 0) {
			err[0] = 0;
			strncat(err, dlerror(), errlen - 1);
		}
		return -1;
	}
	for (int i = 0; i < F_COUNT; i++) {
		gf.fn[i] = dlsym(h, fsym_names[i]);
		if (!gf.fn[i]) {
			if (errlen > 0) {
				err[0] = 0;
				strncat(err, path, errlen - 1);
				strncat(err, " does not export ", errlen - 1 - strlen(err));
				strncat(err, fsym_names[i], errlen - 1 - strlen(err));
			}
			dlclose(h);
			return -1;
		}
	}
	gf.lib = h;
	return 0;
}

// The export name of entry point which, for errors.
const char *gp_fft_name(int which) { return which >= 0 && which < F_COUNT ? fsym_names[which] : "cuFFT"; }

#define FCTX(out, ctx)              \
	do {                            \
		(out).cu = gp_use_ctx(ctx); \
		if ((out).cu) return (out); \
	} while (0)

// cufft_type is the cufftType of a transform kind (driver.FFTKind: 1 C2C,
// 2 R2C, 3 C2R) in double precision or not.
static int cufft_type(int kind, int dbl) {
	switch (kind) {
	case 1: return dbl ? T_Z2Z : T_C2C;
	case 2: return dbl ? T_D2Z : T_R2C;
	case 3: return dbl ? T_Z2D : T_C2R;
	}
	return 0;
}

// Makes a plan of p that uses the caller's workspace: out.v is the
// handle, out.work the workspace bytes its executions need.
gp_fret gp_fft_plan(gp_h ctx, const gp_fplan *p) {
	gp_fret out = {0};
	FCTX(out, ctx);
	cufftHandle h = 0;
	out.which = F_CREATE;
	if ((out.status = FFN(CREATE, create_t)(&h))) return out;
	out.which = F_SET_AUTO;
	if ((out.status = FFN(SET_AUTO, set_auto_t)(h, 0))) goto fail;
	long long n[3] = {0}, inembed[3] = {0}, onembed[3] = {0};
	for (int i = 0; i < p->rank && i < 3; i++) n[i] = inembed[i] = onembed[i] = p->n[i];
	long long half = n[p->rank - 1] / 2 + 1;
	if (p->kind == 2) onembed[p->rank - 1] = half;
	if (p->kind == 3) inembed[p->rank - 1] = half;
	size_t work = 0;
	out.which = F_MAKE_MANY64;
	out.status = FFN(MAKE_MANY64, make_many64_t)(h, p->rank, n, inembed, p->istride, p->idist, onembed, p->ostride,
	                                             p->odist, cufft_type(p->kind, p->dbl), p->batch, &work);
	if (out.status) goto fail;
	out.v = (unsigned long long)h;
	out.work = work;
	return out;
fail:
	FFN(DESTROY, destroy_t)(h);
	return out;
}

// Queues one execution of plan h on stream st with the work area (none
// when 0): the stream and the work area are set on the plan for this
// call, so one plan serves any stream, one call at a time.
gp_fret gp_fft_exec(gp_h ctx, int h, gp_h st, int kind, int dbl, int inverse, CUdeviceptr in, CUdeviceptr outp,
                    CUdeviceptr work) {
	gp_fret out = {0};
	FCTX(out, ctx);
	out.which = F_SET_STREAM;
	if ((out.status = FFN(SET_STREAM, set_stream_t)(h, (CUstream)st))) return out;
	if (work) {
		out.which = F_SET_WORK;
		if ((out.status = FFN(SET_WORK, set_work_t)(h, (void *)work))) return out;
	}
	void *i = (void *)in, *o = (void *)outp;
	switch (kind) {
	case 1:
		out.which = dbl ? F_EXEC_Z2Z : F_EXEC_C2C;
		out.status = ((exec_c2c_t)gf.fn[out.which])(h, i, o, inverse ? INVERSE : FORWARD);
		break;
	case 2:
		out.which = dbl ? F_EXEC_D2Z : F_EXEC_R2C;
		out.status = ((exec_r2c_t)gf.fn[out.which])(h, i, o);
		break;
	case 3:
		out.which = dbl ? F_EXEC_Z2D : F_EXEC_C2R;
		out.status = ((exec_r2c_t)gf.fn[out.which])(h, i, o);
		break;
	default:
		out.which = -1;
		out.status = GP_FFT_BAD_KIND;
	}
	return out;
}

gp_fret gp_fft_destroy(gp_h ctx, int h) {
	gp_fret out = {0};
	FCTX(out, ctx);
	out.which = F_DESTROY;
	out.status = FFN(DESTROY, destroy_t)(h);
	return out;
}
