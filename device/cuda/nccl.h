// NCCL through dlopen (nccl.c): the types and values gpuarr needs,
// declared with nccl.h's layouts, so the build needs no NCCL header.

#ifndef GPUARR_CUDA_NCCL_H
#define GPUARR_CUDA_NCCL_H

#include "extlib.h"

// An NCCL call's outcome: cu is a failed context switch (a shim rc);
// otherwise status is the ncclResult_t of the call numbered which
// (GP_NCCL_*), made for element index of the batch.
typedef struct {
	gp_rc cu;
	int status, which, index;
} gp_ncret;

enum {
	GP_NCCL_GET_UNIQUE_ID,
	GP_NCCL_INIT_RANK,
	GP_NCCL_INIT_ALL,
	GP_NCCL_DESTROY,
	GP_NCCL_GROUP_START,
	GP_NCCL_GROUP_END,
	GP_NCCL_ALL_REDUCE,
	GP_NCCL_BROADCAST,
	GP_NCCL_REDUCE,
	GP_NCCL_ALL_GATHER,
	GP_NCCL_REDUCE_SCATTER,
	GP_NCCL_ASYNC_ERROR,
	GP_NCCL_COUNT,
	GP_NCCL_CU_DEVICE,
	GP_NCCL_USER_RANK,
	GP_NCCL_INIT_RANK_CONFIG,
	GP_NCCL_SPLIT,
	GP_NCCL_ABORT,
};

// ncclResult_t values the Go side tests for.
enum { GP_NCCL_IN_PROGRESS = 7 };

// One rank's part of one collective. kind is driver.CollKind (1 AllReduce,
// 2 Broadcast, 3 Reduce, 4 AllGather, 5 ReduceScatter); type and op are
// ncclDataType_t and ncclRedOp_t values.
typedef struct {
	gp_h ctx, comm, stream;
	CUdeviceptr send, recv;
	size_t count;
	int kind, type, op, root;
} gp_ncoll;

int gp_nccl_open(const char *path, char *err, int errlen);
int gp_nccl_version(void); // ncclGetVersion's code, or -1
const char *gp_nccl_error_string(int status);
gp_ncret gp_nccl_unique_id(unsigned char *out128);
gp_ncret gp_nccl_init_all(int n, const int *ordinals, gp_h *comms);
gp_ncret gp_nccl_init_rank(gp_h ctx, const unsigned char *id128, int nranks, int rank, gp_h *comm);
gp_ncret gp_nccl_destroy(gp_h ctx, gp_h comm);
gp_ncret gp_nccl_async_error(gp_h comm, int *status);
// ncclCommCount, ncclCommCuDevice and ncclCommUserRank of comm.
gp_ncret gp_nccl_comm_info(gp_h comm, int *count, int *dev, int *rank);
gp_ncret gp_nccl_run(int n, const gp_ncoll *calls);

// The rendezvous at an address (NCCL's own bootstrap, NCCL_COMM_ID):
// NCCL 2.18 or later. gp_nccl_has_rendezvous says whether the library
// exports what it needs (ncclCommInitRankConfig, ncclCommSplit,
// ncclCommAbort).
int gp_nccl_has_rendezvous(void);
// Starts rank rank of nranks as a nonblocking communicator at the address
// NCCL_COMM_ID names (the caller sets it): ncclGetUniqueId (the id is the
// address) and ncclCommInitRankConfig (rank 0 starts the bootstrap root
// there before it returns). status is 0 or GP_NCCL_IN_PROGRESS (poll
// gp_nccl_async_error) or a failure.
gp_ncret gp_nccl_join_at(gp_h ctx, int nranks, int rank, gp_h *comm);
// Starts a blocking copy of parent with every rank (ncclCommSplit, color
// 0, key rank). NCCL writes the new communicator into *slot from its own
// thread once the parent's state (gp_nccl_async_error) leaves
// GP_NCCL_IN_PROGRESS: slot is malloc'd here and must stay allocated until
// then (freed by gp_nccl_slot_take, leaked if the split is aborted).
gp_ncret gp_nccl_split(gp_h ctx, gp_h parent, gp_h *slot);
// The communicator NCCL wrote into slot; frees slot.
gp_h gp_nccl_slot_take(gp_h slot);
// ncclCommAbort: stops whatever comm is doing (its initialization too)
// and frees it.
gp_ncret gp_nccl_abort(gp_h ctx, gp_h comm);

#endif
