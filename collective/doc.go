// Package collective owns collectives across devices on gpuarr arrays:
// all-reduce, broadcast, reduce, all-gather and reduce-scatter, run by
// NCCL on CUDA (loaded with dlopen: libnccl.so.2, or the file
// GPUARR_NCCL_LIB names) and by goroutine ranks over host devices on the
// host backend, with the same semantics. ExampleAllReduce sums across
// the devices of this process; ExampleInit makes a launched job's rank.
//
// # Communicators
//
// Init makes this process's rank of a job that a launcher started, one
// rank per process: it reads the launcher's environment (ReadJob), picks
// the rank's device (its local rank among the visible devices), and makes
// the communicator through NCCL's own bootstrap, so gpuarr opens no
// connection of its own. The same program runs unchanged under each of
// these, looked for in this order:
//
//   - torchrun: RANK, WORLD_SIZE, LOCAL_RANK and LOCAL_WORLD_SIZE (may be
//     absent); MASTER_ADDR and MASTER_PORT are required.
//   - Open MPI's mpirun: OMPI_COMM_WORLD_RANK, _SIZE, _LOCAL_RANK and
//     _LOCAL_SIZE; MASTER_ADDR defaults to 127.0.0.1 when every rank is on
//     this node (it is required otherwise), MASTER_PORT to 29500.
//   - the mpiexec of MPICH and Intel MPI (Hydra): PMI_RANK, PMI_SIZE,
//     MPI_LOCALRANKID and MPI_LOCALNRANKS; defaults as for Open MPI.
//   - Slurm's srun: SLURM_PROCID, SLURM_STEP_NUM_TASKS and SLURM_LOCALID
//     (SLURM_NODEID with SLURM_STEP_TASKS_PER_NODE give the local size);
//     MASTER_ADDR defaults to the first host of SLURM_STEP_NODELIST,
//     MASTER_PORT to 20000 + (31·SLURM_JOB_ID + SLURM_STEP_ID) mod 20000.
//   - none: a one-rank job on device.Default.
//
// The first launcher in that order whose variables are set wins (torchrun
// under srun, mpirun inside a Slurm allocation); Slurm's variables count
// only inside an srun step. The ranks meet at MASTER_PORT+1 (torchrun's
// store listens at MASTER_PORT), or at NCCL_COMM_ID when set: rank 0
// listens there as NCCL's bootstrap root and the others connect. A
// variable missing from a launcher's set, malformed, or at odds with
// another is an *EnvError naming it; a job whose ranks have not all
// arrived within GPUARR_INIT_TIMEOUT (default 10 minutes; the Timeout
// option) fails with ErrTimeout. The host backend runs a job's ranks in
// one process only (the Env option gives each goroutine its rank's
// environment) and refuses a launched job's processes with
// ErrNotSupported.
//
// NewComm makes every rank in this process, one per device (single-node
// data parallelism). JoinComm makes one rank of a job whose ranks the
// program starts itself: rank 0 calls NewUniqueID and hands the ID to the
// others as text (ID.String, ParseID). Host-backend IDs are valid in
// their own process only.
//
// # Calls
//
// A collective takes one array per local rank, in local rank order: a
// slice of length Comm.Local() (every rank's for NewComm; one for Init
// and JoinComm), for both the send and the receive side. Receive arrays may be
// the send arrays (nil: in place); AllGather and ReduceScatter work in
// place when one side is a Slice of the other at the rank's block. Every
// rank must issue the same collectives in the same order (NCCL's rule).
//
// Element types are the ones NCCL has: int8, uint8, int32, uint32, int64,
// uint64, float32 and float64 (and types defined on them); int16 and
// uint16 are refused. One call has one T, so types cannot differ across
// local ranks; shapes, lengths, devices, roots and stream counts are
// checked before anything is launched (errors match ErrArgument).
//
// # Ordering and memory
//
// Collectives take part in gpuarr's tracking like any operation: each
// rank's part runs on its device's default stream (or the stream On
// gives), waits on the device for other streams' writes of its inputs and
// uses of its outputs, marks its outputs written, and the arrays' memory
// stays allocated until the collective is done, even if they are released
// at once. Nothing blocks the CPU. Comm.Group issues several collectives
// as one NCCL group (one launch).
//
// With the host backend, a rank that never reaches a collective fails the
// waiting ranks' streams after GPUARR_HOST_COLLECTIVE_TIMEOUT (default
// 30s) with an error naming the missing ranks; NCCL has no such timeout.
//
// # Boundaries
//
// This package sits above gpuarr (it issues through arrayhook.Track) and
// device (device.RunColls); gpuarr must not import it. It does not
// allocate arrays or copy between devices (package p2p does).
package collective
