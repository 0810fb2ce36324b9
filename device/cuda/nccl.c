//go:build cgo

// NCCL through dlopen: communicator set-up and the five collectives,
// each made with the rank's context current (gp_use_ctx), so NCCL's
// runtime adopts the primary context the driver API uses. NCCL's own
// runtime switches devices (ncclCommInitAll sets each in turn; a group
// over several devices does too), so after every NCCL call the shim
// forgets its cached current context.

#include "nccl.h"

#include <dlfcn.h>
#include <limits.h>
#include <sched.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
	char internal[128];
} ncclUniqueId;
typedef void *ncclComm_t;
typedef int ncclResult_t;

_Static_assert(sizeof(ncclUniqueId) == 128, "ncclUniqueId is 128 bytes");

// ncclConfig_t as NCCL 2.18 declares it. NCCL copies min(size, its own
// sizeof) bytes and gives every field a version after 2.18 added (or one
// beyond size) its default, so a newer library reads this correctly.
typedef struct {
	size_t size;
	unsigned int magic;
	unsigned int version;
	int blocking;
	int cgaClusterSize;
	int minCTAs;
	int maxCTAs;
	const char *netName;
	int splitShare;
} gp_nccl_config;

#define GP_NCCL_CONFIG_MAGIC 0xcafebeefu
#define GP_NCCL_CONFIG_VERSION 21800 // NCCL_VERSION(2, 18, 0)
#define GP_NCCL_UNDEF_INT INT_MIN    // NCCL_CONFIG_UNDEF_INT: NCCL's default

static void config_init(gp_nccl_config *c, int blocking) {
	memset(c, 0, sizeof *c);
	c->size = offsetof(gp_nccl_config, splitShare) + sizeof(int); // no padding
	c->magic = GP_NCCL_CONFIG_MAGIC;
	c->version = GP_NCCL_CONFIG_VERSION;
	c->blocking = blocking;
	c->cgaClusterSize = GP_NCCL_UNDEF_INT;
	c->minCTAs = GP_NCCL_UNDEF_INT;
	c->maxCTAs = GP_NCCL_UNDEF_INT;
	c->netName = NULL;
	c->splitShare = 0; // the copy owns its resources: the parent is destroyed
}

static struct {
	void *lib;
	ncclResult_t (*get_version)(int *);
	ncclResult_t (*get_unique_id)(ncclUniqueId *);
	ncclResult_t (*init_rank)(ncclComm_t *, int, ncclUniqueId, int);
	ncclResult_t (*init_all)(ncclComm_t *, int, const int *);
	ncclResult_t (*destroy)(ncclComm_t);
	ncclResult_t (*count)(const ncclComm_t, int *);
	ncclResult_t (*cu_device)(const ncclComm_t, int *);
	ncclResult_t (*user_rank)(const ncclComm_t, int *);
	ncclResult_t (*all_reduce)(const void *, void *, size_t, int, int, ncclComm_t, CUstream);
	ncclResult_t (*broadcast)(const void *, void *, size_t, int, int, ncclComm_t, CUstream);
	ncclResult_t (*reduce)(const void *, void *, size_t, int, int, int, ncclComm_t, CUstream);
	ncclResult_t (*all_gather)(const void *, void *, size_t, int, ncclComm_t, CUstream);
	ncclResult_t (*reduce_scatter)(const void *, void *, size_t, int, int, ncclComm_t, CUstream);
	ncclResult_t (*group_start)(void);
	ncclResult_t (*group_end)(void);
	const char *(*error_string)(ncclResult_t);
	ncclResult_t (*async_error)(ncclComm_t, ncclResult_t *);
	// Optional (NCCL 2.18+): the rendezvous at an address.
	ncclResult_t (*init_rank_config)(ncclComm_t *, int, ncclUniqueId, int, gp_nccl_config *);
	ncclResult_t (*split)(ncclComm_t, int, int, ncclComm_t *, gp_nccl_config *);
	ncclResult_t (*abort)(ncclComm_t);
} gn;

static void nset_err(char *err, int errlen, const char *a, const char *b, const char *c) {
	if (errlen <= 0) return;
	err[0] = 0;
	strncat(err, a ? a : "", errlen - 1);
	if (b) strncat(err, b, errlen - 1 - strlen(err));
	if (c) strncat(err, c, errlen - 1 - strlen(err));
}

// Opens path and resolves every entry point. Called once, from Go, before
// any other gp_nccl function.
int gp_nccl_open(const char *path, char *err, int errlen) {
	if (gn.lib) return 0;
	void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		nset_err(err, errlen, dlerror(), 0, 0);
		return -1;
	}
	static const char *const names[] = {
	    "ncclGetVersion", "ncclGetUniqueId", "ncclCommInitRank", "ncclCommInitAll", "ncclCommDestroy",
	    "ncclCommCount", "ncclCommCuDevice", "ncclCommUserRank", "ncclAllReduce", "ncclBroadcast",
	    "ncclReduce", "ncclAllGather", "ncclReduceScatter", "ncclGroupStart", "ncclGroupEnd",
	    "ncclGetErrorString", "ncclCommGetAsyncError"};
	enum { N = sizeof(names) / sizeof(names[0]) };
	void *fn[N];
	for (int i = 0; i < N; i++) {
		fn[i] = dlsym(h, names[i]);
		if (!fn[i]) {
			nset_err(err, errlen, path, " does not export ", names[i]);
			dlclose(h);
			return -1;
		}
	}
	gn.get_version = fn[0];
	gn.get_unique_id = fn[1];
	gn.init_rank = fn[2];
	gn.init_all = fn[3];
	gn.destroy = fn[4];
	gn.count = fn[5];
	gn.cu_device = fn[6];
	gn.user_rank = fn[7];
	gn.all_reduce = fn[8];
	gn.broadcast = fn[9];
	gn.reduce = fn[10];
	gn.all_gather = fn[11];
	gn.reduce_scatter = fn[12];
	gn.group_start = fn[13];
	gn.group_end = fn[14];
	gn.error_string = fn[15];
	gn.async_error = fn[16];
	gn.init_rank_config = dlsym(h, "ncclCommInitRankConfig");
	gn.split = dlsym(h, "ncclCommSplit");
	gn.abort = dlsym(h, "ncclCommAbort");
	gn.lib = h;
	return 0;
}

int gp_nccl_version(void) {
	int v = -1;
	if (!gn.lib || gn.get_version(&v)) return -1;
	return v;
}

const char *gp_nccl_error_string(int status) {
	const char *s = gn.lib ? gn.error_string(status) : 0;
	return s ? s : "unknown NCCL error";
}

gp_ncret gp_nccl_unique_id(unsigned char *out128) {
	gp_ncret out = {0};
	ncclUniqueId id;
	out.which = GP_NCCL_GET_UNIQUE_ID;
	out.status = gn.get_unique_id(&id);
	if (!out.status) memcpy(out128, id.internal, 128);
	return out;
}

// ncclCommInitAll over device ordinals (the runtime's numbering, which is
// the driver's): one call makes every rank, so no group is needed.
gp_ncret gp_nccl_init_all(int n, const int *ordinals, gp_h *comms) {
	gp_ncret out = {0};
	ncclComm_t c[n];
	out.which = GP_NCCL_INIT_ALL;
	out.status = gn.init_all(c, n, ordinals);
	gp_forget_ctx();
	if (!out.status) {
		for (int i = 0; i < n; i++) comms[i] = (gp_h)c[i];
	}
	return out;
}

gp_ncret gp_nccl_init_rank(gp_h ctx, const unsigned char *id128, int nranks, int rank, gp_h *comm) {
	gp_ncret out = {0};
	if ((out.cu = gp_use_ctx(ctx))) return out;
	ncclUniqueId id;
	memcpy(id.internal, id128, 128);
	ncclComm_t c = 0;
	out.which = GP_NCCL_INIT_RANK;
	out.status = gn.init_rank(&c, nranks, id, rank);
	gp_forget_ctx();
	if (!out.status) *comm = (gp_h)c;
	return out;
}

gp_ncret gp_nccl_destroy(gp_h ctx, gp_h comm) {
	gp_ncret out = {0};
	if ((out.cu = gp_use_ctx(ctx))) return out;
	out.which = GP_NCCL_DESTROY;
	out.status = gn.destroy((ncclComm_t)comm);
	gp_forget_ctx();
	return out;
}

gp_ncret gp_nccl_async_error(gp_h comm, int *status) {
	gp_ncret out = {0};
	ncclResult_t r = 0;
	out.which = GP_NCCL_ASYNC_ERROR;
	out.status = gn.async_error((ncclComm_t)comm, &r);
	*status = r;
	return out;
}

gp_ncret gp_nccl_comm_info(gp_h comm, int *count, int *dev, int *rank) {
	gp_ncret out = {0};
	ncclComm_t c = (ncclComm_t)comm;
	out.which = GP_NCCL_COUNT;
	if ((out.status = gn.count(c, count))) return out;
	out.which = GP_NCCL_CU_DEVICE;
	if ((out.status = gn.cu_device(c, dev))) return out;
	out.which = GP_NCCL_USER_RANK;
	out.status = gn.user_rank(c, rank);
	return out;
}

static ncclResult_t one(const gp_ncoll *c) {
	const void *s = (const void *)(uintptr_t)c->send;
	void *r = (void *)(uintptr_t)c->recv;
	ncclComm_t comm = (ncclComm_t)c->comm;
	CUstream st = (CUstream)c->stream;
	switch (c->kind) {
	case 1: return gn.all_reduce(s, r, c->count, c->type, c->op, comm, st);
	case 2: return gn.broadcast(s, r, c->count, c->type, c->root, comm, st);
	case 3: return gn.reduce(s, r, c->count, c->type, c->op, c->root, comm, st);
	case 4: return gn.all_gather(s, r, c->count, c->type, comm, st);
	case 5: return gn.reduce_scatter(s, r, c->count, c->type, c->op, comm, st);
	}
	return 4; // ncclInvalidArgument
}

int gp_nccl_has_rendezvous(void) { return gn.lib && gn.init_rank_config && gn.split && gn.abort; }

gp_ncret gp_nccl_join_at(gp_h ctx, int nranks, int rank, gp_h *comm) {
	gp_ncret out = {0};
	if ((out.cu = gp_use_ctx(ctx))) return out;
	ncclUniqueId id;
	out.which = GP_NCCL_GET_UNIQUE_ID;
	out.status = gn.get_unique_id(&id);
	if (!out.status) {
		gp_nccl_config cfg;
		config_init(&cfg, 0);
		ncclComm_t c = 0;
		out.which = GP_NCCL_INIT_RANK_CONFIG;
		out.status = gn.init_rank_config(&c, nranks, id, rank, &cfg);
		if (!out.status || out.status == GP_NCCL_IN_PROGRESS) *comm = (gp_h)c;
	}
	gp_forget_ctx();
	return out;
}

gp_ncret gp_nccl_split(gp_h ctx, gp_h parent, gp_h *slot) {
	gp_ncret out = {0};
	int key = 0;
	out.which = GP_NCCL_USER_RANK;
	if ((out.status = gn.user_rank((ncclComm_t)parent, &key))) return out;
	ncclComm_t *s = calloc(1, sizeof *s);
	out.which = GP_NCCL_SPLIT;
	if (!s) {
		out.status = 2; // ncclSystemError
		return out;
	}
	if ((out.cu = gp_use_ctx(ctx))) {
		free(s);
		return out;
	}
	gp_nccl_config cfg;
	config_init(&cfg, 1);
	out.status = gn.split((ncclComm_t)parent, 0, key, s, &cfg);
	gp_forget_ctx();
	if (out.status && out.status != GP_NCCL_IN_PROGRESS) {
		free(s);
		return out;
	}
	*slot = (gp_h)s;
	return out;
}

gp_h gp_nccl_slot_take(gp_h slot) {
	ncclComm_t *s = (ncclComm_t *)slot;
	ncclComm_t c = __atomic_load_n(s, __ATOMIC_ACQUIRE);
	free(s);
	return (gp_h)c;
}

gp_ncret gp_nccl_abort(gp_h ctx, gp_h comm) {
	gp_ncret out = {0};
	if ((out.cu = gp_use_ctx(ctx))) return out;
	out.which = GP_NCCL_ABORT;
	out.status = gn.abort((ncclComm_t)comm);
	gp_forget_ctx();
	return out;
}

// Issues calls as one group from this one OS thread (a group over several
// devices of one process must be started and ended by the same thread;
// doing it in one cgo call guarantees that).
gp_ncret gp_nccl_run(int n, const gp_ncoll *calls) {
	gp_ncret out = {0};
	out.which = GP_NCCL_GROUP_START;
	if ((out.status = gn.group_start())) return out;
	for (int i = 0; i < n; i++) {
		out.index = i;
		if ((out.cu = gp_use_ctx(calls[i].ctx))) break;
		out.which = GP_NCCL_ALL_REDUCE + calls[i].kind - 1;
		if ((out.status = one(&calls[i]))) break;
	}
	// The group must be ended even after a failure, or this thread stays
	// inside it.
	ncclResult_t end = gn.group_end();
	gp_forget_ctx();
	if (!out.cu && !out.status && end == GP_NCCL_IN_PROGRESS) {
		// Nonblocking communicators (NCCL_COMM_BLOCKING=0 in the
		// environment makes every one so) finish the group on NCCL's own
		// thread: the work is queued on the streams once each
		// communicator's state leaves ncclInProgress, and the caller's
		// tracking needs it queued before this returns.
		end = 0;
		for (int i = 0; i < n && !end; i++) {
			ncclResult_t st = GP_NCCL_IN_PROGRESS;
			while (!end && st == GP_NCCL_IN_PROGRESS) {
				out.index = i;
				if ((end = gn.async_error((ncclComm_t)calls[i].comm, &st)) == 0 && st != GP_NCCL_IN_PROGRESS) end = st;
				if (st == GP_NCCL_IN_PROGRESS) sched_yield();
			}
		}
	}
	if (!out.cu && !out.status && end) {
		out.which = GP_NCCL_GROUP_END;
		out.status = end;
	}
	return out;
}
