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
};

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

#endif
