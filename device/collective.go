package device

import (
	"encoding/hex"
	"net"
	"sync/atomic"
	"time"

	"github.com/gpuarr/gpuarr/device/driver"
)

// Collective reductions and kinds; see driver.ReduceOp and
// driver.CollKind. Element types are DTypes (driver.CollType says which).
type (
	ReduceOp = driver.ReduceOp
	CollKind = driver.CollKind
)

// CollType reports whether collectives take elements of type t; see
// driver.CollType.
func CollType(t DType) bool { return driver.CollType(t) }

// UniqueID identifies a communicator whose ranks join one by one
// (ncclUniqueId). String and ParseUniqueID carry it through environment
// variables, flags or files.
type UniqueID driver.UniqueID

// String is the id as hexadecimal text.
func (id UniqueID) String() string { return hex.EncodeToString(id[:]) }

// ParseUniqueID reads what String wrote.
func ParseUniqueID(s string) (UniqueID, error) {
	var id UniqueID
	b, err := hex.DecodeString(s)
	if err != nil || len(b) != len(id) {
		return id, invalid("ParseUniqueID", "want %d hexadecimal digits, got %q", 2*len(id), s)
	}
	copy(id[:], b)
	return id, nil
}

// Communicator is one rank of an NCCL communicator (or the host
// backend's goroutine ranks).
type Communicator struct {
	drv    driver.Communicator
	dev    *Device
	closed atomic.Bool
}

// Device is the rank's device.
func (c *Communicator) Device() *Device { return c.dev }

// Rank is this rank's index; Size the number of ranks.
func (c *Communicator) Rank() int { return c.drv.Rank() }
func (c *Communicator) Size() int { return c.drv.Size() }

// Close destroys the rank; twice is an error matching ErrClosed.
func (c *Communicator) Close() error {
	if !c.closed.CompareAndSwap(false, true) {
		return closedError("Communicator.Close twice")
	}
	return c.drv.Close()
}

// Closed reports whether Close was called.
func (c *Communicator) Closed() bool { return c.closed.Load() }

func collectives(call string, d *Device) (driver.Collectives, error) {
	cl, ok := d.drv.(driver.Collectives)
	if !ok {
		return nil, driver.PlainErrorf(call, driver.NotSupported, "the %s backend has no collectives (%s)", d.Backend(), driver.NCCLLibrary)
	}
	return cl, nil
}

// CollectiveVersion reports the version code of the library that runs d's
// collectives where it has one (NCCL's ncclGetVersion, 22803 for 2.28.3);
// otherwise an error matching ErrNotSupported.
func (d *Device) CollectiveVersion() (int, error) {
	const call = "Device.CollectiveVersion"
	cl, err := collectives(call, d)
	if err != nil {
		return 0, err
	}
	v, ok := cl.(interface{ CollectiveVersion() (int, error) })
	if !ok {
		return 0, driver.PlainErrorf(call, driver.NotSupported, "the %s backend's collectives have no library version", d.Backend())
	}
	return v.CollectiveVersion()
}

// NewComms makes a communicator over devs, rank i on devs[i], all in this
// process (ncclCommInitAll). The devices must be distinct and of one
// backend.
func NewComms(devs []*Device) ([]*Communicator, error) {
	const call = "NewComms"
	if len(devs) == 0 {
		return nil, invalid(call, "no devices")
	}
	drvs := make([]driver.Device, len(devs))
	for i, d := range devs {
		if d == nil {
			return nil, invalid(call, "device %d is nil", i)
		}
		if d.Backend() != devs[0].Backend() {
			return nil, invalid(call, "device %d is %s, device 0 is %s: one backend per communicator", i, d, devs[0])
		}
		for j := range i {
			if devs[j] == d {
				return nil, invalid(call, "%s is given twice (ranks %d and %d): one rank per device", d, j, i)
			}
		}
		drvs[i] = d.drv
	}
	cl, err := collectives(call, devs[0])
	if err != nil {
		return nil, err
	}
	cs, err := cl.NewComms(drvs)
	if err != nil {
		return nil, err
	}
	out := make([]*Communicator, len(cs))
	for i, c := range cs {
		out[i] = &Communicator{drv: c, dev: devs[i]}
	}
	return out, nil
}

// NewUniqueID makes the id that the ranks of a multi-process communicator
// pass to JoinComm (rank 0 makes it and hands it to the others).
func NewUniqueID(d *Device) (UniqueID, error) {
	cl, err := collectives("NewUniqueID", d)
	if err != nil {
		return UniqueID{}, err
	}
	id, err := cl.UniqueID()
	return UniqueID(id), err
}

// JoinComm makes d rank rank of nranks in the communicator id names
// (ncclCommInitRank). It returns once every rank has joined.
func JoinComm(d *Device, id UniqueID, nranks, rank int) (*Communicator, error) {
	const call = "JoinComm"
	if nranks < 1 || rank < 0 || rank >= nranks {
		return nil, invalid(call, "rank %d of %d ranks: want 0 ≤ rank < nranks", rank, nranks)
	}
	cl, err := collectives(call, d)
	if err != nil {
		return nil, err
	}
	c, err := cl.JoinComm(driver.UniqueID(id), nranks, rank)
	if err != nil {
		return nil, err
	}
	return &Communicator{drv: c, dev: d}, nil
}

// JoinCommAt makes d rank rank of nranks in the communicator whose ranks
// meet at addr, a host:port that every rank is given (NCCL's own
// bootstrap, NCCL_COMM_ID: rank 0 listens there and the others connect,
// so no id has to be handed around). It returns once every rank has
// joined. If they have not all joined within timeout (> 0), it aborts
// the rank and fails with an error matching ErrTimeout.
//
// On CUDA it needs NCCL 2.18 or later (ncclCommInitRankConfig,
// ncclCommSplit, ncclCommAbort; ErrNotSupported otherwise). The host
// backend's ranks meet only within one process.
func JoinCommAt(d *Device, addr string, nranks, rank int, timeout time.Duration) (*Communicator, error) {
	const call = "JoinCommAt"
	switch {
	case d == nil:
		return nil, invalid(call, "nil device")
	case nranks < 1 || rank < 0 || rank >= nranks:
		return nil, invalid(call, "rank %d of %d ranks: want 0 ≤ rank < nranks", rank, nranks)
	case timeout <= 0:
		return nil, invalid(call, "timeout %v: want a positive duration", timeout)
	}
	if _, _, err := net.SplitHostPort(addr); err != nil {
		return nil, invalid(call, "address %q: want host:port (%v)", addr, err)
	}
	cl, err := collectives(call, d)
	if err != nil {
		return nil, err
	}
	c, err := cl.JoinAt(addr, nranks, rank, timeout)
	if err != nil {
		return nil, err
	}
	return &Communicator{drv: c, dev: d}, nil
}

// Coll is one rank's part of one collective; see driver.Coll. Stream must
// be a stream of Comm's device.
type Coll struct {
	Comm   *Communicator
	Kind   CollKind
	Send   Ptr
	Recv   Ptr
	Count  uint64
	Type   DType
	Op     ReduceOp
	Root   int
	Stream *Stream
}

// RunColls issues calls as one group (ncclGroupStart … ncclGroupEnd) and
// returns once they are queued. In one process with several ranks, every
// rank's part of a collective must be in the same group.
func RunColls(calls []Coll) error {
	const call = "RunColls"
	if len(calls) == 0 {
		return nil
	}
	d := calls[0].Comm.dev
	drv := make([]driver.Coll, len(calls))
	for i, c := range calls {
		switch {
		case c.Comm == nil || c.Stream == nil:
			return invalid(call, "call %d has no communicator or stream", i)
		case c.Comm.closed.Load():
			return closedError(call + ": communicator rank used after Close")
		case c.Stream.dev != c.Comm.dev:
			return invalid(call, "call %d: a stream of %s for the rank on %s", i, c.Stream.dev, c.Comm.dev)
		case c.Comm.dev.Backend() != d.Backend():
			return invalid(call, "call %d is on %s, call 0 on %s", i, c.Comm.dev, d)
		case !driver.CollType(c.Type):
			return invalid(call, "call %d: element type %v", i, c.Type)
		}
		if err := c.Stream.check(call); err != nil {
			return err
		}
		drv[i] = driver.Coll{Comm: c.Comm.drv, Kind: c.Kind, Send: c.Send, Recv: c.Recv, Count: c.Count,
			Type: c.Type, Op: c.Op, Root: c.Root, Stream: c.Stream.drv}
	}
	cl, err := collectives(call, d)
	if err != nil {
		return err
	}
	return cl.RunColls(drv)
}

// The collectives.
const (
	AllReduce     = driver.AllReduce
	Broadcast     = driver.Broadcast
	Reduce        = driver.Reduce
	AllGather     = driver.AllGather
	ReduceScatter = driver.ReduceScatter
)
