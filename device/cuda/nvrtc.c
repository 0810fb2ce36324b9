//go:build cgo

// NVRTC through dlopen: CUDA C++ to PTX. No context is needed.

#include "extlib.h"

#include <dlfcn.h>
#include <glob.h>
#include <stdlib.h>
#include <string.h>

typedef int nvrtcResult;
typedef void *nvrtcProgram;

static struct {
	void *lib;
	nvrtcResult (*create)(nvrtcProgram *, const char *, const char *, int, const char *const *,
	                      const char *const *);
	nvrtcResult (*compile)(nvrtcProgram, int, const char *const *);
	nvrtcResult (*ptx_size)(nvrtcProgram, size_t *);
	nvrtcResult (*ptx)(nvrtcProgram, char *);
	nvrtcResult (*log_size)(nvrtcProgram, size_t *);
	nvrtcResult (*log)(nvrtcProgram, char *);
	nvrtcResult (*destroy)(nvrtcProgram *);
	const char *(*error_string)(nvrtcResult);
	// Optional (NVRTC 11.2+).
	nvrtcResult (*version)(int *, int *);
	nvrtcResult (*num_archs)(int *);
	nvrtcResult (*archs)(int *);
} gn;

// Opens path and resolves the entry points. NVRTC dlopens its builtins
// library (libnvrtc-builtins.so.MAJOR.MINOR) by soname at compile time;
// when path is outside the loader's path, builtins_glob names them beside
// it, and loading them first lets that later dlopen find them loaded.
int gp_nvrtc_open(const char *builtins_glob, const char *path, char *err, int errlen) {
	if (gn.lib) return 0;
	if (builtins_glob) {
		glob_t g;
		if (glob(builtins_glob, 0, 0, &g) == 0) {
			for (size_t i = 0; i < g.gl_pathc; i++) dlopen(g.gl_pathv[i], RTLD_NOW | RTLD_GLOBAL);
			globfree(&g);
		}
	}
	void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		const char *e = dlerror();
		err[0] = 0;
		strncat(err, e ? e : "dlopen failed", errlen - 1);
		return -1;
	}
	static const char *const names[] = {"nvrtcCreateProgram", "nvrtcCompileProgram", "nvrtcGetPTXSize",
	                                    "nvrtcGetPTX", "nvrtcGetProgramLogSize", "nvrtcGetProgramLog",
	                                    "nvrtcDestroyProgram", "nvrtcGetErrorString"};
	void *fn[8];
	for (int i = 0; i < 8; i++) {
		fn[i] = dlsym(h, names[i]);
		if (!fn[i]) {
			err[0] = 0;
			strncat(err, path, errlen - 1);
			strncat(err, " does not export ", errlen - 1 - strlen(err));
			strncat(err, names[i], errlen - 1 - strlen(err));
			dlclose(h);
			return -1;
		}
	}
	gn.create = fn[0];
	gn.compile = fn[1];
	gn.ptx_size = fn[2];
	gn.ptx = fn[3];
	gn.log_size = fn[4];
	gn.log = fn[5];
	gn.destroy = fn[6];
	gn.error_string = fn[7];
	gn.version = dlsym(h, "nvrtcVersion");
	gn.num_archs = dlsym(h, "nvrtcGetNumSupportedArchs");
	gn.archs = dlsym(h, "nvrtcGetSupportedArchs");
	gn.lib = h;
	return 0;
}

int gp_nvrtc_version(void) {
	int major = 0, minor = 0;
	if (!gn.version || gn.version(&major, &minor)) return -1;
	return major * 1000 + minor * 10;
}

int gp_nvrtc_archs(int *out, int max) {
	int n = 0;
	if (!gn.num_archs || !gn.archs || gn.num_archs(&n) || n <= 0) return -1;
	int *all = malloc(sizeof(int) * (size_t)n);
	if (!all) return -1;
	if (gn.archs(all)) {
		free(all);
		return -1;
	}
	int k = n < max ? n : max;
	memcpy(out, all, sizeof(int) * (size_t)k);
	free(all);
	return k;
}

const char *gp_nvrtc_error_string(int rc) { return gn.error_string ? gn.error_string(rc) : 0; }

// Copies the program's log (or PTX) into a malloc'd buffer.
static nvrtcResult take(nvrtcProgram p, nvrtcResult (*size)(nvrtcProgram, size_t *),
                        nvrtcResult (*get)(nvrtcProgram, char *), char **buf, size_t *len) {
	size_t n = 0;
	nvrtcResult r = size(p, &n);
	if (r) return r;
	char *b = malloc(n + 1);
	if (!b) return 1; // NVRTC_ERROR_OUT_OF_MEMORY
	b[0] = 0;
	if (n && (r = get(p, b))) {
		free(b);
		return r;
	}
	b[n] = 0;
	*buf = b;
	*len = strlen(b);
	return 0;
}

gp_nret gp_nvrtc_compile(const char *src, const char *name, int nopts, const char *const *opts) {
	gp_nret out = {0};
	nvrtcProgram p = 0;
	out.which = GP_NVRTC_CREATE;
	if ((out.rc = gn.create(&p, src, name, 0, 0, 0))) return out;
	nvrtcResult rc = gn.compile(p, nopts, opts);
	// The log comes first: it explains a failure and carries warnings.
	out.which = GP_NVRTC_LOG;
	if ((out.rc = take(p, gn.log_size, gn.log, &out.log, &out.loglen))) goto done;
	out.which = GP_NVRTC_COMPILE;
	if ((out.rc = rc)) goto done;
	out.which = GP_NVRTC_PTX;
	out.rc = take(p, gn.ptx_size, gn.ptx, &out.ptx, &out.ptxlen);
done:
	gn.destroy(&p);
	return out;
}
