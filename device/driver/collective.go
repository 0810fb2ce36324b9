package driver

import (
	"fmt"
	"time"

	"github.com/gpuarr/gpuarr/device/dtype"
)

// CollType reports whether collectives take elements of type t: NCCL's
// types, the integers of 8, 32 and 64 bits and the floats (Float16 and
// BFloat16 reduce as NCCL does, each step rounded to the type).
func CollType(t dtype.DType) bool {
	switch t {
	case dtype.Int8, dtype.Uint8, dtype.Int32, dtype.Uint32, dtype.Int64, dtype.Uint64,
		dtype.Float16, dtype.BFloat16, dtype.Float32, dtype.Float64:
		return true
	}
	return false
}

// ReduceOp is a collective's reduction; the values are NCCL's ncclRedOp_t.
type ReduceOp int

// The reductions (nccl.h: ncclSum 0, ncclProd 1, ncclMax 2, ncclMin 3,
// ncclAvg 4). Avg divides the sum by the rank count (integers truncate
// toward zero, as NCCL does).
const (
	Sum  ReduceOp = 0
	Prod ReduceOp = 1
	Max  ReduceOp = 2
	Min  ReduceOp = 3
	Avg  ReduceOp = 4
)

func (o ReduceOp) String() string {
	switch o {
	case Sum:
		return "sum"
	case Prod:
		return "prod"
	case Max:
		return "max"
	case Min:
		return "min"
	case Avg:
		return "avg"
	}
	return fmt.Sprintf("ReduceOp(%d)", int(o))
}

// CollKind names a collective.
type CollKind uint8

// The collectives.
const (
	AllReduce CollKind = iota + 1
	Broadcast
	Reduce
	AllGather
	ReduceScatter
)

func (k CollKind) String() string {
	switch k {
	case AllReduce:
		return "AllReduce"
	case Broadcast:
		return "Broadcast"
	case Reduce:
		return "Reduce"
	case AllGather:
		return "AllGather"
	case ReduceScatter:
		return "ReduceScatter"
	}
	return fmt.Sprintf("CollKind(%d)", int(k))
}

// Coll is one rank's part of one collective, queued on Stream (a stream of
// the communicator's device). Count is in elements, as NCCL counts them:
// the whole buffer for AllReduce, Broadcast and Reduce; what each rank
// sends for AllGather (Recv holds Count·ranks); what each rank receives for
// ReduceScatter (Send holds Count·ranks). Send == Recv (or Recv at its
// rank's offset, for AllGather and ReduceScatter) works in place. Root is
// the rank that sends (Broadcast) or receives (Reduce).
type Coll struct {
	Comm   Communicator
	Kind   CollKind
	Send   Ptr
	Recv   Ptr
	Count  uint64
	Type   dtype.DType // CollType
	Op     ReduceOp
	Root   int
	Stream Stream
}

// Collectives is an optional capability of a backend's Device: NCCL on
// CUDA, goroutine ranks on the host. A backend without its library still
// implements it and fails with NotSupported naming the library.
//
// Every rank must issue the same collectives in the same order (NCCL's
// rule); a rank's collective runs when its stream reaches it and completes
// once every rank's has.
type Collectives interface {
	// NewComms makes one communicator over devs (this device first; every
	// device of the same backend), rank i on devs[i].
	NewComms(devs []Device) ([]Communicator, error)
	// UniqueID makes the identifier the ranks of a multi-process
	// communicator share (ncclGetUniqueId).
	UniqueID() (UniqueID, error)
	// JoinComm makes this device rank rank of nranks (ncclCommInitRank);
	// it returns once every rank has joined.
	JoinComm(id UniqueID, nranks, rank int) (Communicator, error)
	// JoinAt makes this device rank rank of nranks in the communicator
	// whose ranks meet at addr (host:port), NCCL's own bootstrap
	// (NCCL_COMM_ID=addr: every rank derives the same id, rank 0 listens
	// at addr, the others connect). It returns once every rank has joined;
	// after timeout (> 0) it gives up, aborting the rank, with a TimedOut
	// error. The communicator it returns behaves as JoinComm's does.
	JoinAt(addr string, nranks, rank int, timeout time.Duration) (Communicator, error)
	// RunColls issues calls as one group (ncclGroupStart … ncclGroupEnd):
	// each call on its own communicator and stream. It returns once they
	// are queued.
	RunColls(calls []Coll) error
}

// UniqueID is ncclUniqueId: 128 opaque bytes.
type UniqueID [128]byte

// Communicator is one rank of a communicator.
type Communicator interface {
	Rank() int
	Size() int
	// Close destroys the rank (ncclCommDestroy).
	Close() error
}

// NCCLLibrary names the NCCL soname, as errors for a missing library say.
const NCCLLibrary = "libnccl.so.2"
