package collective

import (
	"fmt"
	"sync"

	"github.com/gpuarr/gpuarr/device"
)

// Comm is a communicator: the ranks of one collective job that live in
// this process. NewComm makes all ranks here (one per device); JoinComm
// makes one rank of a job run one process per device. Collectives take
// one array per local rank, in local rank order.
//
// A Comm is safe for concurrent use, but collectives issued from two
// goroutines at once are ordered by whichever gets there first, which may
// differ between processes: keep one goroutine per communicator.
type Comm struct {
	ranks []*device.Communicator
	size  int

	mu     sync.Mutex
	closed bool
	group  *batch // collectives held until the Group's function returns
}

// NewComm makes a communicator over devs in this process, rank i on
// devs[i] (ncclCommInitAll on CUDA). Every device must be distinct and of
// one backend. On one GPU, a one-rank communicator works like any other.
func NewComm(devs []*device.Device) (*Comm, error) {
	ranks, err := device.NewComms(devs)
	if err != nil {
		return nil, fmt.Errorf("collective.NewComm: %w", err)
	}
	return &Comm{ranks: ranks, size: len(ranks)}, nil
}

// ID names a communicator whose ranks are in different processes. Rank 0
// makes it with NewUniqueID and hands it to the others, as text (String,
// ParseID) through an environment variable, a flag or a file.
type ID = device.UniqueID

// NewUniqueID makes an ID (ncclGetUniqueId). With the host backend the id
// is valid only in the process that made it.
func NewUniqueID(dev *device.Device) (ID, error) {
	id, err := device.NewUniqueID(dev)
	if err != nil {
		return id, fmt.Errorf("collective.NewUniqueID: %w", err)
	}
	return id, nil
}

// ParseID reads an ID's String.
func ParseID(s string) (ID, error) { return device.ParseUniqueID(s) }

// JoinComm makes dev rank rank of nranks in the communicator id names
// (ncclCommInitRank). It returns once all nranks ranks have joined.
func JoinComm(id ID, nranks, rank int, dev *device.Device) (*Comm, error) {
	r, err := device.JoinComm(dev, id, nranks, rank)
	if err != nil {
		return nil, fmt.Errorf("collective.JoinComm: %w", err)
	}
	return &Comm{ranks: []*device.Communicator{r}, size: nranks}, nil
}

// Size is the number of ranks in the whole job.
func (c *Comm) Size() int { return c.size }

// Local is the number of ranks in this process: the arrays a collective
// takes.
func (c *Comm) Local() int { return len(c.ranks) }

// Rank is the job-wide rank of local rank i. It panics, saying so, when i
// is not a local rank (0 ≤ i < Local()).
func (c *Comm) Rank(i int) int { return c.local("Rank", i).Rank() }

// Device is local rank i's device. It panics, saying so, when i is not a
// local rank (0 ≤ i < Local()).
func (c *Comm) Device(i int) *device.Device { return c.local("Device", i).Device() }

// local is local rank i, or a panic naming method and the valid range.
func (c *Comm) local(method string, i int) *device.Communicator {
	if n := len(c.ranks); i < 0 || i >= n {
		ranks := fmt.Sprintf("%d local ranks (0 to %d)", n, n-1)
		if n == 1 {
			ranks = "1 local rank (0)"
		}
		panic(fmt.Sprintf("collective: Comm.%s(%d): local rank out of range: the communicator has %s of %d in all", method, i, ranks, c.size))
	}
	return c.ranks[i]
}

// Close destroys every local rank. Collectives already queued complete;
// any use afterwards, and a second Close, fail with an error matching
// ErrClosed.
func (c *Comm) Close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return fmt.Errorf("collective.Comm.Close: closed twice: %w", ErrClosed)
	}
	c.closed = true
	var first error
	for _, r := range c.ranks {
		if err := r.Close(); err != nil && first == nil {
			first = err
		}
	}
	return first
}

// Group issues every collective fn issues on c as one launch
// (ncclGroupStart … ncclGroupEnd): nothing is queued until fn returns,
// then all of them are, together. If fn returns an error (or a collective
// in it was refused), nothing is issued. Groups do not nest.
func (c *Comm) Group(fn func() error) error {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return fmt.Errorf("collective.Group: %w", ErrClosed)
	}
	if c.group != nil {
		c.mu.Unlock()
		return fmt.Errorf("collective.Group: groups do not nest: %w", ErrArgument)
	}
	b := &batch{}
	c.group = b
	c.mu.Unlock()

	err := fn()

	c.mu.Lock()
	c.group = nil
	c.mu.Unlock()
	if err != nil {
		return err
	}
	if b.err != nil {
		return b.err
	}
	return c.run("Group", b)
}
