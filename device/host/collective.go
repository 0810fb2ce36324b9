package host

import (
	"crypto/rand"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/gpuarr/gpuarr/device/driver"
	"github.com/gpuarr/gpuarr/device/dtype"
	"github.com/gpuarr/gpuarr/device/dtype/half"
)

// Collectives run as goroutine ranks: each rank's part of a collective is
// an operation on its stream, and the parts of one collective meet when
// every rank's stream has reached its own. The last to arrive computes
// the result for all of them (every participant's stream is blocked in
// the meeting meanwhile, so the buffers hold still) and releases the
// others. Parts are matched by issue order per rank, which is NCCL's rule
// (every rank issues the same collectives in the same order).
//
// A rank that never arrives would leave the others blocked: they give up
// after the timeout, failing their streams with an error that says which
// ranks were missing. Later arrivals at a failed meeting fail at once.

// EnvCollectiveTimeout is how long ranks wait for the others at a
// collective (and JoinComm for every rank to join); a Go duration, default
// 30s. It is read each time a communicator is made, so a test can shorten
// it for the communicators it makes.
const EnvCollectiveTimeout = "GPUARR_HOST_COLLECTIVE_TIMEOUT"

const defaultCollectiveTimeout = 30 * time.Second

func collectiveTimeout() (time.Duration, error) {
	v := strings.TrimSpace(os.Getenv(EnvCollectiveTimeout))
	if v == "" {
		return defaultCollectiveTimeout, nil
	}
	d, err := time.ParseDuration(v)
	if err != nil || d <= 0 {
		return 0, &driver.ConfigError{Var: EnvCollectiveTimeout, Value: v, Reason: "want a positive Go duration such as 30s"}
	}
	return d, nil
}

// clique is the state the ranks of one communicator share.
type clique struct {
	n       int
	timeout time.Duration

	mu       sync.Mutex
	meetings map[uint64]*meeting
}

func newClique(n int, timeout time.Duration) *clique {
	return &clique{n: n, timeout: timeout, meetings: map[uint64]*meeting{}}
}

// comm is one rank.
type comm struct {
	cl     *clique
	rank   int
	dev    *device
	mu     sync.Mutex // issue order: seq and the enqueue happen together
	seq    uint64
	closed atomic.Bool
}

func (c *comm) Rank() int { return c.rank }
func (c *comm) Size() int { return c.cl.n }

// Close ends the rank. Collectives already queued still run.
func (c *comm) Close() error {
	if !c.closed.CompareAndSwap(false, true) {
		return errorf("ncclCommDestroy", driver.Closed, "rank %d of %d on %s closed twice", c.rank, c.cl.n, c.dev)
	}
	return nil
}

// part is one rank's arrival at a meeting, holding its buffers pinned.
type part struct {
	rank       int
	c          driver.Coll
	send, recv []byte
	pins       []*allocation
}

func (p *part) unpin() {
	for _, a := range p.pins {
		a.unpin()
	}
	p.pins = nil
}

// meeting is one collective: the parts arrived so far.
type meeting struct {
	parts   []*part
	arrived int
	left    int // ranks that arrived, or gave up, and are gone
	failed  error
	running bool
	done    chan struct{}
}

// ncclHidden stands for a missing NCCL: HideSymbol("libnccl") takes the
// collectives away from the host backend as a missing library does on CUDA.
func (d *device) ncclHidden() error {
	if d.symbol("libnccl") != nil {
		return &driver.Error{Plain: true, Call: "dlopen " + driver.NCCLLibrary, Code: driver.NotSupported,
			Detail: "hidden by HideSymbol(\"libnccl\")"}
	}
	return nil
}

// commTimeout is how long the ranks of a communicator made now wait for
// each other, or why none can be made (NCCL hidden, a bad
// EnvCollectiveTimeout).
func (d *device) commTimeout() (time.Duration, error) {
	if err := d.ncclHidden(); err != nil {
		return 0, err
	}
	return collectiveTimeout()
}

var _ driver.Collectives = (*device)(nil)

// NewComms makes one communicator over devs; rank i is devs[i].
func (d *device) NewComms(devs []driver.Device) ([]driver.Communicator, error) {
	const call = "ncclCommInitAll"
	timeout, err := d.commTimeout()
	if err != nil {
		return nil, err
	}
	if len(devs) == 0 {
		return nil, errorf(call, driver.InvalidValue, "no devices")
	}
	cl := newClique(len(devs), timeout)
	out := make([]driver.Communicator, len(devs))
	seen := map[*device]int{}
	for i, dd := range devs {
		hd, ok := dd.(*device)
		if !ok {
			return nil, errorf(call, driver.InvalidValue, "device %d (%v) is not a host device", i, dd)
		}
		if j, dup := seen[hd]; dup {
			return nil, errorf(call, driver.InvalidValue, "%s is rank %d and rank %d", hd, j, i)
		}
		seen[hd] = i
		out[i] = &comm{cl: cl, rank: i, dev: hd}
	}
	return out, nil
}

// Unique ids and meeting addresses are registered in this process only:
// host devices of different processes share no memory, so their ranks
// cannot meet.
var joins struct {
	mu      sync.Mutex
	pending map[driver.UniqueID]*joining
	at      map[string]*joining
}

// joining is a communicator whose ranks are arriving one by one.
type joining struct {
	cl     *clique
	joined map[int]bool
	gaveUp map[int]bool // ranks that timed out and left
	ready  chan struct{}
	forget func() // drops the registry entry (under joins.mu)
}

// UniqueID makes a random id, valid for JoinComm in this process.
func (d *device) UniqueID() (driver.UniqueID, error) {
	var id driver.UniqueID
	if err := d.ncclHidden(); err != nil {
		return id, err
	}
	if _, err := rand.Read(id[:]); err != nil {
		return id, errorf("ncclGetUniqueId", driver.Unknown, "%v", err)
	}
	joins.mu.Lock()
	if joins.pending == nil {
		joins.pending = map[driver.UniqueID]*joining{}
	}
	joins.pending[id] = nil // known; the first JoinComm makes its clique
	joins.mu.Unlock()
	return id, nil
}

// JoinComm waits until nranks ranks have joined id, or the timeout.
func (d *device) JoinComm(id driver.UniqueID, nranks, rank int) (driver.Communicator, error) {
	const call = "ncclCommInitRank"
	timeout, err := d.commTimeout()
	if err != nil {
		return nil, err
	}
	joins.mu.Lock()
	j, known := joins.pending[id]
	if !known {
		joins.mu.Unlock()
		return nil, errorf(call, driver.InvalidValue,
			"unknown unique id: host-backend ids work only in the process that made them (host devices of two processes share no memory)")
	}
	if j == nil {
		j = &joining{cl: newClique(nranks, timeout), joined: map[int]bool{}, ready: make(chan struct{}),
			forget: func() { delete(joins.pending, id) }}
		joins.pending[id] = j
	}
	return d.join(call, j, nranks, rank, timeout, "the unique id", " ("+EnvCollectiveTimeout+" sets the limit)")
}

// JoinAt waits until nranks ranks of this process have joined at addr, or
// the timeout: the in-process equivalent of NCCL's bootstrap at
// NCCL_COMM_ID=addr. A completed communicator frees addr for the next.
func (d *device) JoinAt(addr string, nranks, rank int, timeout time.Duration) (driver.Communicator, error) {
	const call = "ncclCommInitRankConfig"
	if err := d.ncclHidden(); err != nil {
		return nil, err
	}
	if timeout <= 0 {
		return nil, errorf(call, driver.InvalidValue, "timeout %v: want a positive duration", timeout)
	}
	ctimeout, err := collectiveTimeout()
	if err != nil {
		return nil, err
	}
	joins.mu.Lock()
	if joins.at == nil {
		joins.at = map[string]*joining{}
	}
	j := joins.at[addr]
	if j == nil {
		j = &joining{cl: newClique(nranks, ctimeout), joined: map[int]bool{}, ready: make(chan struct{})}
		j.forget = func() {
			if joins.at[addr] == j {
				delete(joins.at, addr)
			}
		}
		joins.at[addr] = j
	}
	return d.join(call, j, nranks, rank, timeout, addr, "")
}

// join adds rank to j (joins.mu held; join releases it) and waits for the
// others. A rank that gives up leaves, and the last to leave an
// incomplete communicator forgets it, so that its meeting point (where,
// as errors name it) is free for the next attempt.
func (d *device) join(call string, j *joining, nranks, rank int, timeout time.Duration, where, limit string) (driver.Communicator, error) {
	switch {
	case j.cl.n != nranks:
		joins.mu.Unlock()
		return nil, errorf(call, driver.InvalidValue, "rank %d says %d ranks, an earlier rank at %s said %d", rank, nranks, where, j.cl.n)
	case j.joined[rank]:
		joins.mu.Unlock()
		return nil, errorf(call, driver.InvalidValue, "rank %d joined twice at %s", rank, where)
	}
	j.joined[rank] = true
	delete(j.gaveUp, rank)
	if len(j.joined) == nranks {
		close(j.ready)
		j.forget()
	}
	joins.mu.Unlock()
	t := time.NewTimer(timeout)
	defer t.Stop()
	select {
	case <-j.ready:
		return &comm{cl: j.cl, rank: rank, dev: d}, nil
	case <-t.C:
	}
	joins.mu.Lock()
	defer joins.mu.Unlock()
	select {
	case <-j.ready: // the last rank came while the timer fired
		return &comm{cl: j.cl, rank: rank, dev: d}, nil
	default:
	}
	var missing, left []int
	for r := range nranks {
		switch {
		case j.gaveUp[r]:
			left = append(left, r)
		case !j.joined[r]:
			missing = append(missing, r)
		}
	}
	n := len(j.joined)
	delete(j.joined, rank)
	if j.gaveUp == nil {
		j.gaveUp = map[int]bool{}
	}
	j.gaveUp[rank] = true
	if len(j.joined) == 0 {
		j.forget()
	}
	also := ""
	if len(left) > 0 {
		also = fmt.Sprintf(" (ranks %v came and gave up first)", left)
	}
	return nil, errorf(call, driver.TimedOut, "rank %d waited %v at %s for %d ranks, %d joined: ranks %v never arrived%s%s",
		rank, timeout, where, nranks, n, missing, also, limit)
}

// RunColls queues each call on its stream. A group changes nothing here:
// each part waits only for its own meeting.
func (d *device) RunColls(calls []driver.Coll) error {
	if err := d.ncclHidden(); err != nil {
		return err
	}
	for i := range calls {
		c := calls[i]
		cm, ok := c.Comm.(*comm)
		if !ok {
			return errorf("nccl"+c.Kind.String(), driver.InvalidValue, "not a host communicator")
		}
		s, ok := c.Stream.(*stream)
		if !ok {
			return errorf("nccl"+c.Kind.String(), driver.InvalidValue, "not a host stream")
		}
		if err := cm.issue(c, s); err != nil {
			return err
		}
	}
	return nil
}

func (c *comm) issue(call driver.Coll, s *stream) error {
	name := "nccl" + call.Kind.String()
	if c.closed.Load() {
		return errorf(name, driver.Closed, "rank %d of %d on %s is closed", c.rank, c.cl.n, c.dev)
	}
	if s.dev != c.dev {
		return errorf(name, driver.InvalidValue, "a stream of %s for rank %d, which is on %s", s.dev, c.rank, c.dev)
	}
	if !driver.CollType(call.Type) {
		return errorf(name, driver.InvalidValue, "element type %v", call.Type)
	}
	if (call.Kind == driver.Broadcast || call.Kind == driver.Reduce) && (call.Root < 0 || call.Root >= c.cl.n) {
		return errorf(name, driver.InvalidValue, "invalid argument: root %d for %d ranks", call.Root, c.cl.n)
	}
	if call.Kind < driver.AllReduce || call.Kind > driver.ReduceScatter || call.Op < driver.Sum || call.Op > driver.Avg {
		return errorf(name, driver.InvalidValue, "invalid argument: %v with op %v", call.Kind, call.Op)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	seq := c.seq
	if err := s.enqueueLive(name, func() error { return c.arrive(seq, call) }); err != nil {
		return err
	}
	c.seq++
	return nil
}

// sizes is the bytes each rank's send and receive buffers span; zero
// where the rank does not use the buffer.
func sizes(c driver.Coll, rank, n int) (send, recv uint64) {
	b := c.Count * uint64(c.Type.Size())
	switch c.Kind {
	case driver.AllReduce:
		return b, b
	case driver.Broadcast:
		if rank == c.Root {
			return b, b
		}
		return 0, b
	case driver.Reduce:
		if rank == c.Root {
			return b, b
		}
		return b, 0
	case driver.AllGather:
		return b, b * uint64(n)
	case driver.ReduceScatter:
		return b * uint64(n), b
	}
	return 0, 0
}

// arrive runs on the rank's stream when it reaches the collective.
func (c *comm) arrive(seq uint64, call driver.Coll) error {
	name := "nccl" + call.Kind.String()
	p := &part{rank: c.rank, c: call}
	sb, rb := sizes(call, c.rank, c.cl.n)
	for _, b := range []struct {
		ptr driver.Ptr
		n   uint64
		dst *[]byte
	}{{call.Send, sb, &p.send}, {call.Recv, rb, &p.recv}} {
		if b.n == 0 {
			continue
		}
		a, mem, why := index.pin(b.ptr, b.n)
		if a == nil {
			p.unpin()
			// The others must not wait for this rank: fail the meeting.
			err := illegal(name, why)
			c.cl.fail(seq, c.rank, err)
			return err
		}
		p.pins = append(p.pins, a)
		*b.dst = mem
	}
	defer p.unpin()

	cl := c.cl
	cl.mu.Lock()
	m := cl.meetingLocked(seq)
	if m.failed != nil {
		m.leaveLocked(cl, seq)
		cl.mu.Unlock()
		return m.failed
	}
	if first := m.first(); first != nil && !sameColl(first.c, call) {
		m.failed = errorf(name, driver.InvalidValue,
			"collective #%d: rank %d issued %s of %d %v (op %v, root %d) but rank %d issued %s of %d %v (op %v, root %d): every rank must issue the same collectives in the same order",
			seq, c.rank, call.Kind, call.Count, call.Type, call.Op, call.Root,
			first.rank, first.c.Kind, first.c.Count, first.c.Type, first.c.Op, first.c.Root)
		m.leaveLocked(cl, seq)
		close(m.done)
		cl.mu.Unlock()
		return m.failed
	}
	m.parts[c.rank] = p
	m.arrived++
	if m.arrived == cl.n {
		m.running = true
		cl.mu.Unlock()
		compute(m.parts)
		cl.mu.Lock()
		m.leaveLocked(cl, seq)
		close(m.done)
		cl.mu.Unlock()
		return nil
	}
	cl.mu.Unlock()

	t := time.NewTimer(cl.timeout)
	defer t.Stop()
	select {
	case <-m.done:
	case <-t.C:
		cl.mu.Lock()
		if !m.running && m.failed == nil {
			var missing []int
			for r, q := range m.parts {
				if q == nil {
					missing = append(missing, r)
				}
			}
			m.failed = errorf(name, driver.Unknown,
				"timed out: rank %d waited %v at collective #%d for ranks %v, which never reached it (%s sets the limit)",
				c.rank, cl.timeout, seq, missing, EnvCollectiveTimeout)
			close(m.done)
		}
		cl.mu.Unlock()
		<-m.done
	}
	cl.mu.Lock()
	m.parts[c.rank] = nil
	m.leaveLocked(cl, seq)
	err := m.failed
	cl.mu.Unlock()
	return err
}

func (cl *clique) meetingLocked(seq uint64) *meeting {
	m := cl.meetings[seq]
	if m == nil {
		m = &meeting{parts: make([]*part, cl.n), done: make(chan struct{})}
		cl.meetings[seq] = m
	}
	return m
}

// fail marks meeting seq failed for a rank that cannot take part.
func (cl *clique) fail(seq uint64, rank int, err error) {
	cl.mu.Lock()
	defer cl.mu.Unlock()
	m := cl.meetingLocked(seq)
	if m.failed == nil && !m.running {
		m.failed = fmt.Errorf("rank %d failed: %w", rank, err)
		close(m.done)
	}
	m.leaveLocked(cl, seq)
}

// leaveLocked counts a rank out; the last one forgets the meeting (a
// failed meeting stays until then, so late ranks see the failure).
func (m *meeting) leaveLocked(cl *clique, seq uint64) {
	m.left++
	if m.left == cl.n {
		delete(cl.meetings, seq)
	}
}

func (m *meeting) first() *part {
	for _, p := range m.parts {
		if p != nil {
			return p
		}
	}
	return nil
}

func sameColl(a, b driver.Coll) bool {
	if a.Kind != b.Kind || a.Count != b.Count || a.Type != b.Type {
		return false
	}
	switch a.Kind {
	case driver.AllReduce, driver.ReduceScatter:
		return a.Op == b.Op
	case driver.Broadcast:
		return a.Root == b.Root
	case driver.Reduce:
		return a.Op == b.Op && a.Root == b.Root
	}
	return true
}

// compute does the collective for every part (all present).
func compute(parts []*part) {
	c := parts[0].c
	switch c.Type {
	case dtype.Int8:
		computeT[int8](parts)
	case dtype.Uint8:
		computeT[uint8](parts)
	case dtype.Int32:
		computeT[int32](parts)
	case dtype.Uint32:
		computeT[uint32](parts)
	case dtype.Int64:
		computeT[int64](parts)
	case dtype.Uint64:
		computeT[uint64](parts)
	case dtype.Float32:
		computeT[float32](parts)
	case dtype.Float64:
		computeT[float64](parts)
	case dtype.Float16:
		computeHalf(parts, half.F16ToF32, half.F32ToF16)
	case dtype.BFloat16:
		computeHalf(parts, half.BF16ToF32, half.F32ToBF16)
	}
}

// computeHalf does a collective of 16-bit floats: data moves as the bits;
// reductions combine the ranks in order in float32, each step rounded to
// the type, as NCCL's half arithmetic does (Avg divides the rounded sum).
func computeHalf(parts []*part, toF32 func(uint16) float32, fromF32 func(float32) uint16) {
	c := parts[0].c
	if c.Kind == driver.Broadcast || c.Kind == driver.AllGather {
		computeT[uint16](parts)
		return
	}
	srcs := sends[uint16](parts)
	res := append([]uint16(nil), srcs[0]...)
	for _, s := range srcs[1:] {
		for i, v := range s {
			a, b := toF32(res[i]), toF32(v)
			var x float32
			switch c.Op {
			case driver.Sum, driver.Avg:
				x = a + b
			case driver.Prod:
				x = a * b
			case driver.Max:
				x = max(a, b)
			case driver.Min:
				x = min(a, b)
			}
			res[i] = fromF32(x)
		}
	}
	if c.Op == driver.Avg {
		n := float32(len(srcs))
		for i, v := range res {
			res[i] = fromF32(toF32(v) / n)
		}
	}
	switch c.Kind {
	case driver.AllReduce:
		toAll(parts, res)
	case driver.Reduce:
		copy(view[uint16](parts[c.Root].recv), res)
	case driver.ReduceScatter:
		cnt := int(c.Count)
		for r, p := range parts {
			copy(view[uint16](p.recv), res[r*cnt:(r+1)*cnt])
		}
	}
}

type elem interface {
	~int8 | ~uint8 | ~uint16 | ~int32 | ~uint32 | ~int64 | ~uint64 | ~float32 | ~float64
}

func view[T elem](b []byte) []T {
	if len(b) == 0 {
		return nil
	}
	var z T
	return unsafe.Slice((*T)(unsafe.Pointer(&b[0])), len(b)/int(unsafe.Sizeof(z)))
}

// reduceInto combines srcs element-wise in rank order into a new slice.
func reduceInto[T elem](op driver.ReduceOp, srcs [][]T) []T {
	out := append([]T(nil), srcs[0]...)
	for _, s := range srcs[1:] {
		for i, v := range s {
			switch op {
			case driver.Sum, driver.Avg:
				out[i] += v
			case driver.Prod:
				out[i] *= v
			case driver.Max:
				out[i] = max(out[i], v)
			case driver.Min:
				out[i] = min(out[i], v)
			}
		}
	}
	if op == driver.Avg {
		n := T(len(srcs))
		for i := range out {
			out[i] /= n
		}
	}
	return out
}

func computeT[T elem](parts []*part) {
	c := parts[0].c
	cnt := int(c.Count)
	switch c.Kind {
	case driver.AllReduce:
		toAll(parts, reduceInto(c.Op, sends[T](parts)))
	case driver.Broadcast:
		// A copy: the root's receive buffer may be its send buffer.
		toAll(parts, slices.Clone(view[T](parts[c.Root].send)))
	case driver.Reduce:
		copy(view[T](parts[c.Root].recv), reduceInto(c.Op, sends[T](parts)))
	case driver.AllGather:
		toAll(parts, slices.Concat(sends[T](parts)...))
	case driver.ReduceScatter:
		res := reduceInto(c.Op, sends[T](parts))
		for r, p := range parts {
			copy(view[T](p.recv), res[r*cnt:(r+1)*cnt])
		}
	}
}

// sends is every rank's send buffer, in rank order.
func sends[T elem](parts []*part) [][]T {
	out := make([][]T, len(parts))
	for r, p := range parts {
		out[r] = view[T](p.send)
	}
	return out
}

// toAll copies res into every rank's receive buffer.
func toAll[T elem](parts []*part, res []T) {
	for _, p := range parts {
		copy(view[T](p.recv), res)
	}
}
