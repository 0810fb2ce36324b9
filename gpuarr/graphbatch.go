package gpuarr

import (
	"errors"
	"fmt"

	"github.com/gpuarr/gpuarr/device"
	"github.com/gpuarr/gpuarr/internal/lifetime"
)

// One graph for many batch sizes: Capture with Batched(max) records fn
// once, for the largest batch; ReplayBatch(n) then runs it for the first
// n rows by giving the instantiated graph's kernel, copy and memset nodes new
// sizes in place (the driver's graph-exec node updates), so every batch
// size 1..max costs one capture and one graph's memory.
//
// Which operations scale: an array is batched when its leading extent is
// max. During the capture, each operation that touches a batched array
// must say how it resizes, right after issuing its one node:
//
//   - an elementwise kernel (Eval, EvalInto, the arithmetic built on
//     them) writing a batched array, every array operand batched with the
//     same element count and laid out contiguously: its element count and
//     grid scale with n (rows are a prefix of the flat index space);
//   - a copy between two batched arrays of one device, or a fill (Zeros,
//     Ones, Full) of a batched array: its length scales.
//
// Operations on arrays that are not batched (weights, say) stay as
// captured. Anything else that touches a batched array makes Capture fail
// with a *NotResizableError naming the operation: a reduction over the
// batch (compiled for one size), a matrix product or other library call,
// a kernel of the caller's own (Launch), a broadcast or strided operand.

// ErrNotResizable: an operation in a Batched capture cannot be replayed
// for smaller batches (see NotResizableError).
var ErrNotResizable = errors.New("operation cannot be resized to a smaller batch")

// ErrBatchSize: a batch size outside 1..max of a Batched graph.
var ErrBatchSize = errors.New("batch size out of range")

// NotResizableError is the error of a Batched capture that recorded an
// operation which cannot follow the batch size. It matches ErrNotResizable.
type NotResizableError struct {
	Op  string // the operation, as "Sum"
	Why string
}

func (e *NotResizableError) Error() string {
	return fmt.Sprintf("gpuarr.%s in a Batched capture: %s", e.Op, e.Why)
}

// Is makes errors.Is(err, ErrNotResizable) hold.
func (e *NotResizableError) Is(target error) bool { return target == ErrNotResizable }

type batchedOpt struct{ max int }

func (batchedOpt) isCaptureOption() {}

// Batched makes Capture record one graph for every batch size 1..max: fn
// runs once and must work on batches of max rows (the arrays' leading
// axis); ReplayBatch(n) replays it for the first n rows, by giving the
// instantiated graph's kernel, copy and memset nodes the sizes of n rows
// (rows n and beyond are not touched). max must be at least 1.
//
// An array is batched when its leading extent is max. Each operation the
// capture records that touches a batched array must be one that resizes:
// an elementwise kernel (Eval, EvalInto) whose output and array operands
// are all batched, contiguous and of one shape, a Copy between two batched
// arrays, or a fill (Zeros, Ones, Full) of a batched array. Work on arrays
// that are not batched (weights) replays as captured at every size.
// Anything else that touches a batched array (a reduction, Matmul, a
// kernel of your own, a broadcast or strided operand, random numbers)
// makes Capture fail with a *NotResizableError naming the operation. Since
// the rule goes by the leading extent, choose max to differ from the
// extents of batch-independent arrays.
func Batched(max int) CaptureOption { return batchedOpt{max} }

// whyFixed is why an operation without a resize rule cannot follow the
// batch size.
const whyFixed = "it touches an array whose leading extent is the batch maximum, and only elementwise " +
	"kernels over contiguous rows, fills and copies between batched arrays can be resized to a smaller batch " +
	"(a reduction, matrix product, library call, kernel of your own or strided operation is recorded for one size); " +
	"run it outside the capture, or capture one graph per batch size"

// batchOp is one operation of a Batched capture.
type batchOp struct {
	call    string
	batched bool             // touches an array whose leading extent is the maximum
	why     string           // why it cannot be resized, when it has no rule
	rule    *lifetime.Resize // how it resizes, once it said so
}

// MaxBatch is the largest batch of a Batched capture, 0 for another
// (lifetime.Batcher).
func (c *capture) MaxBatch() int { return c.max }

// Claimed records an operation of a Batched capture (lifetime.Batcher).
func (c *capture) Claimed(call string, batched bool) {
	c.mu.Lock()
	c.ops = append(c.ops, batchOp{call: call, batched: batched, why: whyFixed})
	c.mu.Unlock()
}

// Resizes records that the operation just issued on s (the latest one
// claimed) follows the batch size as r says; issued tells whether it
// became a node (lifetime.Batcher).
func (c *capture) Resizes(s *device.Stream, r lifetime.Resize, issued bool) {
	if issued {
		n, err := s.LastCaptured()
		if err != nil {
			c.mu.Lock()
			c.err = errors.Join(c.err, fmt.Errorf("naming the node of a captured operation: %w", err))
			c.mu.Unlock()
			return
		}
		r.Node = n
	}
	c.mu.Lock()
	if k := len(c.ops); k > 0 {
		c.ops[k-1].rule = &r
	}
	c.mu.Unlock()
}

// Fixed records why the operation just claimed cannot be resized (a more
// precise reason than whyFixed).
func (c *capture) Fixed(why string) {
	c.mu.Lock()
	if k := len(c.ops); k > 0 {
		c.ops[k-1].why = why
	}
	c.mu.Unlock()
}

// resizers checks a finished Batched capture: the rules of its nodes, or
// the first operation that cannot follow the batch size.
func (c *capture) resizers() ([]lifetime.Resize, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.err != nil {
		return nil, c.err
	}
	var rs []lifetime.Resize
	for _, o := range c.ops {
		switch {
		case o.rule != nil:
			if o.rule.Node.Valid() {
				rs = append(rs, *o.rule)
			}
		case o.batched:
			return nil, &NotResizableError{Op: o.call, Why: o.why}
		}
	}
	return rs, nil
}

// resizeLocked updates g's nodes for batch size n (g.mu held).
func (g *graph) resizeLocked(n int) error {
	if n == g.cur {
		return nil
	}
	g.cur = 0 // unknown until every node is updated
	for i := range g.rs {
		r := &g.rs[i]
		switch {
		case r.K == nil && r.Memset:
			if err := g.g.UpdateMemset(r.Node, r.RowBytes*uint64(n)); err != nil {
				return err
			}
			continue
		case r.K == nil:
			if err := g.g.UpdateCopy(r.Node, r.RowBytes*uint64(n)); err != nil {
				return err
			}
			continue
		}
		count := r.PerRow * uint64(n)
		if !r.Args.SetU64(r.CountArg, count) {
			return fmt.Errorf("kernel %s: argument %d is not the element count: %w", r.K.Name(), r.CountArg, ErrArgument)
		}
		cfg := device.Linear((count+r.Vector-1)/r.Vector, r.Block)
		if err := g.g.UpdateLaunch(r.Node, r.K, cfg, r.Args); err != nil {
			return err
		}
	}
	g.cur = n
	return nil
}

// MaxBatch is the largest batch size of a graph captured with Batched, 0
// for any other graph.
func (g *Graph) MaxBatch() int {
	if g == nil || g.graph == nil {
		return 0
	}
	return g.max
}

// ReplayBatch runs a graph captured with Batched(max) for the first n
// rows of its batched arrays (1 ≤ n ≤ max), on the stream opts name, with
// the ordering Replay gives. Rows n and beyond of the arrays it writes
// keep their values. Changing n updates the graph's nodes (a few
// microseconds per node on a GPU); replaying one size again costs what
// Replay costs.
func (g *Graph) ReplayBatch(n int, opts ...Option) error {
	const call = "Graph.ReplayBatch"
	if g == nil || g.graph == nil {
		return fmt.Errorf("gpuarr.%s: nil graph: %w", call, ErrArgument)
	}
	if g.max == 0 {
		return fmt.Errorf("gpuarr.%s: the graph was captured without Batched; use Replay: %w", call, ErrArgument)
	}
	if n < 1 || n > g.max {
		return fmt.Errorf("gpuarr.%s: batch size %d, the graph was captured for 1..%d: %w", call, n, g.max, ErrBatchSize)
	}
	return g.replay(call, n, opts)
}
