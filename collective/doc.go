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
// rank per process: it reads the launcher's environment (ReadJob:
// torchrun, Open MPI, MPICH and Intel MPI, Slurm's srun, or none for a
// one-rank job), picks the rank's device (its local rank among the
// visible devices), and makes the communicator through NCCL's own
// bootstrap, so gpuarr opens no connection of its own and the same
// program runs unchanged under each launcher. A bad environment is an
// *EnvError naming the variable; ranks that do not all arrive within
// GPUARR_INIT_TIMEOUT (default 10 minutes) fail with ErrTimeout.
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
// uint64, float16, bfloat16, float32 and float64 (and types defined on
// them); bool travels as uint8 (0 or 1: Max is any, Min and Prod all; Sum
// and Avg are refused, their counts would not fit), complex64 and
// complex128 as pairs of float32 or float64 (moved, summed, averaged;
// Prod, Max and Min are refused: the product mixes the parts and complex
// numbers are not ordered); int16 and uint16 are refused. One call has
// one T, so types cannot differ across local ranks; shapes, lengths,
// devices, roots, stream counts and element types are checked before
// anything is launched (errors match ErrArgument).
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
