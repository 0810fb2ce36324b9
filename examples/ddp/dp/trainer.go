package dp

import (
	"errors"
	"fmt"
	"unsafe"

	"github.com/gpuarr/gpuarr/collective"
	"github.com/gpuarr/gpuarr/device"
	"github.com/gpuarr/gpuarr/gpuarr"
)

// Config is the model and how it trains.
type Config struct {
	// Widths are the layer widths: inputs, hidden layers, outputs (at
	// least two).
	Widths []int
	// BucketBytes is the gradient bytes each all-reduce carries: a bucket
	// takes layers, last first, until it holds at least this many; 0
	// means DDP's 25 MiB.
	BucketBytes int
	// LR is the learning rate η of plain SGD.
	LR float64
	// Seed draws the initial weights (the same on every rank).
	Seed uint64
}

// DefaultBucketBytes is PyTorch DDP's default bucket_cap_mb.
const DefaultBucketBytes = 25 << 20

// Trainer trains one replica per local rank of a communicator, each on
// its rank's device; Step advances them together. Not safe for
// concurrent use.
type Trainer[T gpuarr.Float] struct {
	comm     *collective.Comm
	cfg      Config
	lay      layout
	rows     int
	reps     []*replica[T]
	commOn   collective.Option
	bucketsB [][]*gpuarr.Array[T] // bucketsB[b][r]: bucket b of local rank r
	summed   bool                 // Loss has all-reduced this step's loss sums
	released bool
}

// NewTrainer makes the replicas of comm's local ranks, rows samples per
// rank and step (the global batch is rows·comm.Size()), and broadcasts
// rank 0's initial weights to every rank (the replicas start equal, as
// DDP makes them). Every rank must call it with the same Config and rows.
func NewTrainer[T gpuarr.Float](comm *collective.Comm, cfg Config, rows int) (*Trainer[T], error) {
	if comm == nil {
		return nil, errors.New("dp.NewTrainer: nil communicator")
	}
	if len(cfg.Widths) < 2 {
		return nil, fmt.Errorf("dp.NewTrainer: widths %v: want inputs, outputs and any hidden widths between", cfg.Widths)
	}
	for _, w := range cfg.Widths {
		if w < 1 {
			return nil, fmt.Errorf("dp.NewTrainer: widths %v: every width must be positive", cfg.Widths)
		}
	}
	if rows < 1 {
		return nil, fmt.Errorf("dp.NewTrainer: %d rows per rank: want at least one", rows)
	}
	if cfg.BucketBytes == 0 {
		cfg.BucketBytes = DefaultBucketBytes
	}
	sizes := make([]int, len(cfg.Widths)-1)
	for i := range sizes {
		sizes[i] = cfg.Widths[i] * cfg.Widths[i+1]
	}
	var zero T
	t := &Trainer[T]{comm: comm, cfg: cfg, rows: rows, lay: newLayout(sizes, int(unsafe.Sizeof(zero)), cfg.BucketBytes)}
	streams := make([]*device.Stream, comm.Local())
	for i := range comm.Local() {
		r, err := newReplica[T](comm.Device(i), cfg, t.lay, rows, rows*comm.Size())
		if err != nil {
			t.Release()
			return nil, fmt.Errorf("dp.NewTrainer: rank %d on %s: %w", comm.Rank(i), comm.Device(i), err)
		}
		t.reps = append(t.reps, r)
		streams[i] = r.comm
	}
	t.commOn = collective.On(streams...)
	t.bucketsB = make([][]*gpuarr.Array[T], len(t.lay.buckets))
	for b := range t.bucketsB {
		for _, r := range t.reps {
			t.bucketsB[b] = append(t.bucketsB[b], r.buckets[b])
		}
	}
	for i := range t.reps[0].w {
		ws := make([]*gpuarr.Array[T], len(t.reps))
		for k, r := range t.reps {
			ws[k] = r.w[i]
		}
		if err := collective.Broadcast(comm, nil, ws, 0, t.commOn); err != nil {
			t.Release()
			return nil, fmt.Errorf("dp.NewTrainer: broadcasting layer %d: %w", i, err)
		}
	}
	return t, nil
}

// Step trains on one batch: x[k] ([rows widths[0]]) and y[k] ([rows
// widths[last]]) are local rank k's shard, on its device. It returns once
// the step is queued; the arrays may be reused or released at once
// (tracking keeps them until the step has read them).
func (t *Trainer[T]) Step(x, y []*gpuarr.Array[T]) error {
	if t.released {
		return errors.New("dp.Trainer.Step: the trainer was released")
	}
	if len(x) != len(t.reps) || len(y) != len(t.reps) {
		return fmt.Errorf("dp.Trainer.Step: %d inputs and %d targets for %d local ranks", len(x), len(y), len(t.reps))
	}
	in, out := t.cfg.Widths[0], t.cfg.Widths[len(t.cfg.Widths)-1]
	for k, r := range t.reps {
		if err := checkShard(x[k], r.dev, t.rows, in); err != nil {
			return fmt.Errorf("dp.Trainer.Step: input of rank %d: %w", t.comm.Rank(k), err)
		}
		if err := checkShard(y[k], r.dev, t.rows, out); err != nil {
			return fmt.Errorf("dp.Trainer.Step: target of rank %d: %w", t.comm.Rank(k), err)
		}
	}
	t.summed = false
	for k, r := range t.reps {
		if err := r.forward(x[k], y[k]); err != nil {
			return fmt.Errorf("dp.Trainer.Step: rank %d: %w", t.comm.Rank(k), err)
		}
	}
	// The backward pass, last layer first, all local ranks in step; each
	// full bucket is all-reduced on the communication streams at once.
	for i := len(t.reps[0].w) - 1; i >= 0; i-- {
		for k, r := range t.reps {
			if err := r.backward(i); err != nil {
				return fmt.Errorf("dp.Trainer.Step: rank %d: %w", t.comm.Rank(k), err)
			}
		}
		if t.lay.last(i) {
			b := t.lay.of[i]
			if err := collective.AllReduce(t.comm, t.bucketsB[b], nil, collective.Sum, t.commOn); err != nil {
				return fmt.Errorf("dp.Trainer.Step: all-reducing gradient bucket %d: %w", b, err)
			}
		}
	}
	for k, r := range t.reps {
		if err := r.update(); err != nil {
			return fmt.Errorf("dp.Trainer.Step: rank %d: %w", t.comm.Rank(k), err)
		}
	}
	return nil
}

func checkShard[T gpuarr.Float](a *gpuarr.Array[T], dev *device.Device, rows, cols int) error {
	switch {
	case a == nil:
		return errors.New("nil array")
	case a.Released():
		return errors.New("released array")
	case a.Device() != dev:
		return fmt.Errorf("on %s, but the rank is on %s", a.Device(), dev)
	}
	if sh := a.Shape(); len(sh) != 2 || sh[0] != rows || sh[1] != cols {
		return fmt.Errorf("shape %v, want [%d %d]", sh, rows, cols)
	}
	return nil
}

// Loss is the last step's mean squared error over the global batch (an
// all-reduce of every rank's sum, so every rank must call it at the same
// step). It waits for the step.
func (t *Trainer[T]) Loss() (float64, error) {
	if t.released {
		return 0, errors.New("dp.Trainer.Loss: the trainer was released")
	}
	sums := make([]*gpuarr.Array[T], len(t.reps))
	for k, r := range t.reps {
		if r.loss == nil {
			return 0, errors.New("dp.Trainer.Loss: no step yet")
		}
		sums[k] = r.loss
	}
	if !t.summed {
		if err := collective.AllReduce(t.comm, sums, nil, collective.Sum, t.commOn); err != nil {
			return 0, fmt.Errorf("dp.Trainer.Loss: %w", err)
		}
		t.summed = true
	}
	v, err := sums[0].Item()
	if err != nil {
		return 0, fmt.Errorf("dp.Trainer.Loss: %w", err)
	}
	n := t.rows * t.comm.Size() * t.cfg.Widths[len(t.cfg.Widths)-1]
	return float64(v) / float64(n), nil
}

// Weights copies local rank k's weights of layer i to the host (waiting
// for the steps queued before).
func (t *Trainer[T]) Weights(k, i int) ([]T, error) {
	if k < 0 || k >= len(t.reps) || i < 0 || i >= len(t.reps[k].w) {
		return nil, fmt.Errorf("dp.Trainer.Weights: rank %d layer %d: out of range", k, i)
	}
	return t.reps[k].w[i].ToSlice()
}

// Synchronize waits for every step queued so far.
func (t *Trainer[T]) Synchronize() error {
	for _, r := range t.reps {
		if err := r.compute.Synchronize(); err != nil {
			return err
		}
		if err := r.comm.Synchronize(); err != nil {
			return err
		}
	}
	return nil
}

// Buckets is the number of gradient buckets (all-reduces per step).
func (t *Trainer[T]) Buckets() int { return len(t.lay.buckets) }

// Release frees the replicas' arrays and streams (after their work);
// calling it again does nothing.
func (t *Trainer[T]) Release() {
	for _, r := range t.reps {
		r.release()
	}
	t.reps = nil
	t.released = true
}
