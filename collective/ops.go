package collective

import (
	"errors"
	"fmt"
	"reflect"
	"slices"

	"github.com/gpuarr/gpuarr/device"
	"github.com/gpuarr/gpuarr/device/dtype"
	"github.com/gpuarr/gpuarr/gpuarr"
	"github.com/gpuarr/gpuarr/internal/arrayhook"
)

// Op is a reduction.
type Op = device.ReduceOp

// The reductions. Avg is the sum divided by the rank count (integer
// division for integer types).
const (
	Sum  Op = 0
	Prod Op = 1
	Max  Op = 2
	Min  Op = 3
	Avg  Op = 4
)

// Option changes where a collective runs.
type Option interface{ isOption() }

type onStreams []*device.Stream

func (onStreams) isOption() {}

// On runs local rank i's part on streams[i] (a stream of that rank's
// device) instead of the device's default stream.
func On(streams ...*device.Stream) Option { return onStreams(streams) }

// A batch is the collectives of one launch: their driver calls and the
// arrays they use.
type batch struct {
	calls []device.Coll
	uses  []arrayhook.Use
	ptrs  []func(*device.Coll) // fill in the addresses once the arrays are claimed
	err   error
}

// wireType is how a collective of kind k with reduction op moves and
// combines elements of type t: NCCL's element type and the number of its
// elements per element of t. NCCL's own types travel as themselves; bool
// as uint8 (0 or 1: Max is any, Min and Prod all); a complex number as
// its two parts, for the collectives that treat parts alike (moving data,
// Sum, Avg). Anything else is an error matching ErrArgument that says why
// and what to do.
func wireType(call string, t dtype.DType, name string, k device.CollKind, op Op) (dtype.DType, uint64, error) {
	reduces := k == device.AllReduce || k == device.Reduce || k == device.ReduceScatter
	switch {
	case device.CollType(t):
		return t, 1, nil
	case t == dtype.Bool:
		if reduces && (op == Sum || op == Avg) {
			return 0, 0, argErr(call, "%v of %s: the count would not fit in a bool; cast to an integer type first (gpuarr.Cast[int32])", op, name)
		}
		return dtype.Uint8, 1, nil
	case t.IsComplex():
		if reduces && op != Sum && op != Avg {
			return 0, 0, argErr(call, "%v of %s: complex numbers are not ordered and their product mixes the parts; collectives reduce them with Sum and Avg only", op, name)
		}
		part := dtype.Float32
		if t == dtype.Complex128 {
			part = dtype.Float64
		}
		return part, 2, nil
	}
	return 0, 0, argErr(call, "element type %s: NCCL has no such type (it has int8, uint8, int32, uint32, int64, uint64, float16, bfloat16, float32, float64; bool and complex travel as uint8 and pairs of floats)", name)
}

// spec is one collective as the user called it, checked by plan.
type spec[T gpuarr.Element] struct {
	call       string
	kind       device.CollKind
	send, recv []*gpuarr.Array[T]
	op         Op
	root       int
	opts       []Option
}

func argErr(call, format string, args ...any) error {
	return fmt.Errorf("collective.%s: %s: %w", call, fmt.Sprintf(format, args...), ErrArgument)
}

// plan checks every argument against the communicator and turns the call
// into one driver call per local rank, added to b.
func plan[T gpuarr.Element](c *Comm, sp spec[T], b *batch) error {
	call := sp.call
	et, per, err := wireType(call, dtype.Of[T](), reflect.TypeFor[T]().String(), sp.kind, sp.op)
	if err != nil {
		return err
	}
	n := c.Local()
	if len(sp.send) != n {
		return argErr(call, "%d send arrays for %d local ranks: pass one per rank", len(sp.send), n)
	}
	if sp.recv != nil && len(sp.recv) != n {
		return argErr(call, "%d receive arrays for %d local ranks: pass one per rank (or nil: in place)", len(sp.recv), n)
	}
	if (sp.kind == device.Broadcast || sp.kind == device.Reduce) && (sp.root < 0 || sp.root >= c.size) {
		return argErr(call, "root %d out of range for %d ranks", sp.root, c.size)
	}
	var streams []*device.Stream
	for _, o := range sp.opts {
		if s, ok := o.(onStreams); ok {
			streams = s
		}
	}
	if streams != nil && len(streams) != n {
		return argErr(call, "%d streams for %d local ranks", len(streams), n)
	}
	// The reference shape: the first array the collective reads or writes
	// with the same role on every rank.
	var refShape gpuarr.Shape
	var refLen, refRank = -1, -1
	for i := range n {
		rank := c.Rank(i)
		dev := c.Device(i)
		send := sp.send[i]
		var recv *gpuarr.Array[T]
		if sp.recv != nil {
			recv = sp.recv[i]
		}
		isRoot := rank == sp.root
		// Which arrays this rank needs.
		needSend := !(sp.kind == device.Broadcast && !isRoot)
		needRecv := !(sp.kind == device.Reduce && !isRoot)
		if sp.kind == device.Broadcast && send == nil {
			send = recv // non-root ranks only receive
		}
		if recv == nil && (sp.kind == device.AllReduce || sp.kind == device.Broadcast || sp.kind == device.Reduce) {
			recv = send // in place
		}
		if needSend && send == nil {
			return argErr(call, "rank %d: nil send array", rank)
		}
		if needRecv && recv == nil {
			return argErr(call, "rank %d: nil receive array (AllGather and ReduceScatter need one)", rank)
		}
		if send == nil {
			send = recv
		}
		if !needRecv && recv == nil {
			recv = send
		}
		for _, a := range []struct {
			what string
			arr  *gpuarr.Array[T]
		}{{"send", send}, {"receive", recv}} {
			if err := a.arr.Err(); err != nil {
				if errors.Is(err, ErrArgument) {
					return fmt.Errorf("collective.%s: rank %d: the %s array: %w", call, rank, a.what, err)
				}
				return fmt.Errorf("collective.%s: rank %d: the %s array was released: %w: %w", call, rank, a.what, err, ErrArgument)
			}
			if a.arr.Device() != dev {
				return argErr(call, "rank %d: the %s array is on %s but the rank is on %s", rank, a.what, a.arr.Device(), dev)
			}
		}
		// Lengths: the per-rank count and the role's shape must agree.
		count := send.Len()
		sendWant, recvWant := count, count
		switch sp.kind {
		case device.AllGather:
			recvWant = count * c.size
		case device.ReduceScatter:
			if count%c.size != 0 {
				return argErr(call, "rank %d: send length %d is not a multiple of %d ranks", rank, count, c.size)
			}
			count = count / c.size
			recvWant = count
		}
		if needRecv && recv.Len() != recvWant {
			return argErr(call, "rank %d: receive array has %d elements, want %d (send has %d, %d ranks)", rank, recv.Len(), recvWant, sendWant, c.size)
		}
		shapeArr := send
		if !needSend {
			shapeArr = recv
			if sp.kind == device.Broadcast {
				count = recv.Len()
			}
		}
		if refLen < 0 {
			refShape, refLen, refRank = shapeArr.Shape(), count, rank
		} else if count != refLen || !slices.Equal(shapeArr.Shape(), refShape) {
			return argErr(call, "rank %d's arrays have shape %v (%d elements per rank) but rank %d's have %v (%d): every rank must pass the same shapes",
				rank, shapeArr.Shape(), count, refRank, refShape, refLen)
		}
		s := dev.DefaultStream()
		if streams != nil {
			s = streams[i]
			if s == nil || s.Device() != dev {
				return argErr(call, "rank %d: stream %d is not a stream of %s", rank, i, dev)
			}
		}
		// Tracking: what the rank's stream reads and writes.
		switch {
		case send == recv && needRecv:
			b.uses = append(b.uses, arrayhook.ReadsWrites(recv, s))
		default:
			if needSend {
				b.uses = append(b.uses, arrayhook.Reads(send, s))
			}
			if needRecv {
				b.uses = append(b.uses, arrayhook.Writes(recv, s))
			}
		}
		b.calls = append(b.calls, device.Coll{Comm: c.ranks[i], Kind: sp.kind, Count: uint64(count) * per, Type: et,
			Op: sp.op, Root: sp.root, Stream: s})
		sendArr, recvArr := send, recv
		b.ptrs = append(b.ptrs, func(d *device.Coll) {
			d.Send, d.Recv = arrayhook.DevicePtr(sendArr), arrayhook.DevicePtr(recvArr)
		})
	}
	return nil
}

// issue plans one collective and runs it, or adds it to the open group.
func issue[T gpuarr.Element](c *Comm, sp spec[T]) error {
	c.mu.Lock()
	closed, g := c.closed, c.group
	c.mu.Unlock()
	if closed {
		return fmt.Errorf("collective.%s: communicator used after Close: %w", sp.call, ErrClosed)
	}
	if g != nil {
		if err := plan(c, sp, g); err != nil {
			if g.err == nil {
				g.err = err
			}
			return err
		}
		return nil
	}
	var b batch
	if err := plan(c, sp, &b); err != nil {
		return err
	}
	return c.run(sp.call, &b)
}

// run claims every array (tracking), fills in the device pointers and
// queues the batch as one group.
func (c *Comm) run(call string, b *batch) error {
	if len(b.calls) == 0 {
		return nil
	}
	c.mu.Lock()
	closed := c.closed
	c.mu.Unlock()
	if closed {
		return fmt.Errorf("collective.%s: communicator used after Close: %w", call, ErrClosed)
	}
	err := arrayhook.Track(call, b.uses, func() error {
		for i := range b.calls {
			b.ptrs[i](&b.calls[i])
		}
		return device.RunColls(b.calls)
	})
	if err != nil {
		return fmt.Errorf("collective.%s: %w", call, err)
	}
	return nil
}

// AllReduce combines send across every rank with op and writes the result
// to recv on every rank. send[i] and recv[i] are local rank i's arrays;
// recv nil (or recv[i] == send[i]) works in place.
func AllReduce[T gpuarr.Element](c *Comm, send, recv []*gpuarr.Array[T], op Op, opts ...Option) error {
	if op < Sum || op > Avg {
		return argErr("AllReduce", "unknown reduction %v", op)
	}
	return issue(c, spec[T]{call: "AllReduce", kind: device.AllReduce, send: send, recv: recv, op: op, opts: opts})
}

// Broadcast copies root's send array to recv on every rank. Ranks other
// than root may pass nil send arrays (send may be nil as a whole: then
// recv on root is the source, in place); recv nil means in place.
func Broadcast[T gpuarr.Element](c *Comm, send, recv []*gpuarr.Array[T], root int, opts ...Option) error {
	if send == nil {
		send = make([]*gpuarr.Array[T], len(recv))
		copy(send, recv)
	}
	return issue(c, spec[T]{call: "Broadcast", kind: device.Broadcast, send: send, recv: recv, root: root, opts: opts})
}

// Reduce combines send across every rank with op into recv on root only;
// other ranks' recv may be nil. recv nil means in place on root.
func Reduce[T gpuarr.Element](c *Comm, send, recv []*gpuarr.Array[T], op Op, root int, opts ...Option) error {
	if op < Sum || op > Avg {
		return argErr("Reduce", "unknown reduction %v", op)
	}
	return issue(c, spec[T]{call: "Reduce", kind: device.Reduce, send: send, recv: recv, op: op, root: root, opts: opts})
}

// AllGather concatenates every rank's send (n elements each) in rank
// order into recv (n·Size elements) on every rank. In place: send[i] a
// Slice of recv[i] at rank·n.
func AllGather[T gpuarr.Element](c *Comm, send, recv []*gpuarr.Array[T], opts ...Option) error {
	if recv == nil {
		return argErr("AllGather", "nil receive arrays")
	}
	return issue(c, spec[T]{call: "AllGather", kind: device.AllGather, send: send, recv: recv, opts: opts})
}

// ReduceScatter combines send (n·Size elements) across ranks with op and
// writes block rank (n elements) of the result to recv on each rank. In
// place: recv[i] a Slice of send[i] at rank·n.
func ReduceScatter[T gpuarr.Element](c *Comm, send, recv []*gpuarr.Array[T], op Op, opts ...Option) error {
	if recv == nil {
		return argErr("ReduceScatter", "nil receive arrays")
	}
	if op < Sum || op > Avg {
		return argErr("ReduceScatter", "unknown reduction %v", op)
	}
	return issue(c, spec[T]{call: "ReduceScatter", kind: device.ReduceScatter, send: send, recv: recv, op: op, opts: opts})
}
