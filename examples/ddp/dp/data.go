package dp

import (
	"fmt"
	"math"

	"github.com/gpuarr/gpuarr/device"
	"github.com/gpuarr/gpuarr/gpuarr"
)

// Data is a synthetic regression set on one device: batches of global
// rows each, inputs x standard normal, targets y = tanh(x·M/√inputs) for
// a hidden matrix M. gpuarr's generator depends only on the seed and the
// element's position, so every device (and backend) makes the same set,
// and each rank takes its shard of each batch without any data moving.
type Data[T gpuarr.Float] struct {
	X, Y          *gpuarr.Array[T] // [batches·global inputs], [batches·global outputs]
	global, count int
}

// NewData makes the set on dev.
func NewData[T gpuarr.Float](dev *device.Device, inputs, outputs, global, batches int, seed uint64) (*Data[T], error) {
	on := gpuarr.OnDevice(dev)
	g := gpuarr.NewRNG(seed)
	x, err := gpuarr.Eval(gpuarr.NormalExpr[T](g, gpuarr.Shape{batches * global, inputs}), on)
	if err != nil {
		return nil, fmt.Errorf("dp.NewData: inputs: %w", err)
	}
	m, err := gpuarr.Eval(gpuarr.Mul(gpuarr.NormalExpr[T](g, gpuarr.Shape{inputs, outputs}), gpuarr.Scalar(T(1/math.Sqrt(float64(inputs))))), on)
	if err != nil {
		_ = x.Release()
		return nil, fmt.Errorf("dp.NewData: hidden matrix: %w", err)
	}
	defer m.Release()
	xm, err := gpuarr.Matmul(x, m)
	if err != nil {
		_ = x.Release()
		return nil, fmt.Errorf("dp.NewData: targets: %w", err)
	}
	defer xm.Release()
	y, err := gpuarr.Eval(gpuarr.Tanh(xm))
	if err != nil {
		_ = x.Release()
		return nil, fmt.Errorf("dp.NewData: targets: %w", err)
	}
	return &Data[T]{X: x, Y: y, global: global, count: batches}, nil
}

// Shard is rank's rows of batch b (batches cycle) when ranks ranks split
// each batch evenly: views into the set, to release after use.
func (d *Data[T]) Shard(b, rank, ranks int) (x, y *gpuarr.Array[T], err error) {
	if ranks < 1 || d.global%ranks != 0 || rank < 0 || rank >= ranks {
		return nil, nil, fmt.Errorf("dp.Data.Shard: rank %d of %d: a batch of %d rows splits into equal shards only for a divisor of %d", rank, ranks, d.global, d.global)
	}
	m := d.global / ranks
	lo := (b%d.count)*d.global + rank*m
	if x, err = d.X.Slice(lo, lo+m); err != nil {
		return nil, nil, err
	}
	if y, err = d.Y.Slice(lo, lo+m); err != nil {
		_ = x.Release()
		return nil, nil, err
	}
	return x, y, nil
}

// Release frees the set.
func (d *Data[T]) Release() {
	_ = d.X.Release()
	_ = d.Y.Release()
}
