package main

import (
	"fmt"
	"math/rand/v2"

	"github.com/gpuarr/gpuarr/collective"
	"github.com/gpuarr/gpuarr/device"
	"github.com/gpuarr/gpuarr/gpuarr"
)

// config is the problem: batches of batch rows, features columns,
// batches distinct batches cycled through.
type config struct {
	batch, features, batches, steps int
	lr                              float64
	seed                            uint64
}

func defaultConfig() config {
	return config{batch: 1024, features: 32, batches: 8, steps: 50, lr: 0.05, seed: 1}
}

// data generates every batch: y = X·w* + noise, the same for every run.
func data(cfg config) (x [][]float64, y []float64) {
	r := rand.New(rand.NewPCG(cfg.seed, 2))
	truth := make([]float64, cfg.features)
	for i := range truth {
		truth[i] = r.NormFloat64()
	}
	rows := cfg.batch * cfg.batches
	x = make([][]float64, rows)
	y = make([]float64, rows)
	for i := range rows {
		x[i] = make([]float64, cfg.features)
		var dot float64
		for j := range x[i] {
			x[i][j] = r.NormFloat64()
			dot += x[i][j] * truth[j]
		}
		y[i] = dot + 0.01*r.NormFloat64()
	}
	return x, y
}

// rank is one device's share: its rows of every batch and its copy of the
// weights.
type rank struct {
	dev  *device.Device
	rows int // rows per batch on this rank
	x, y *gpuarr.Array[float64]
	w    *gpuarr.Array[float64]
	// grad and loss are what the collectives sum each step.
	grad, loss *gpuarr.Array[float64]
}

func newRank(cfg config, dev *device.Device, i, n int) (*rank, error) {
	if cfg.batch%n != 0 {
		return nil, fmt.Errorf("batch %d does not split across %d ranks", cfg.batch, n)
	}
	x, y := data(cfg)
	m := cfg.batch / n
	var xs, ys []float64
	for b := range cfg.batches {
		for j := b*cfg.batch + i*m; j < b*cfg.batch+(i+1)*m; j++ {
			xs = append(xs, x[j]...)
			ys = append(ys, y[j])
		}
	}
	on := gpuarr.OnDevice(dev)
	rk := &rank{dev: dev, rows: m}
	var err error
	if rk.x, err = gpuarr.FromSlice(xs, gpuarr.Shape{len(ys), cfg.features}, on); err != nil {
		return nil, err
	}
	if rk.y, err = gpuarr.FromSlice(ys, gpuarr.Shape{len(ys), 1}, on); err != nil {
		return nil, err
	}
	if rk.w, err = gpuarr.Zeros[float64](gpuarr.Shape{cfg.features, 1}, on); err != nil {
		return nil, err
	}
	return rk, nil
}

func (rk *rank) release() {
	for _, a := range []*gpuarr.Array[float64]{rk.x, rk.y, rk.w, rk.grad, rk.loss} {
		if a != nil && !a.Released() {
			_ = a.Release()
		}
	}
}

// local computes the rank's share of step's batch: the gradient sum
// Xbᵀ(Xb·w − yb) and the squared-error sum, into rk.grad and rk.loss.
func (rk *rank) local(b int) error {
	xb, err := rk.x.Slice(b*rk.rows, (b+1)*rk.rows)
	if err != nil {
		return err
	}
	yb, err := rk.y.Slice(b*rk.rows, (b+1)*rk.rows)
	if err != nil {
		return err
	}
	pred, err := gpuarr.Matmul(xb, rk.w)
	if err != nil {
		return err
	}
	defer pred.Release()
	r, err := gpuarr.Eval(gpuarr.Sub(pred, yb))
	if err != nil {
		return err
	}
	defer r.Release()
	xbT, err := xb.Transpose()
	if err != nil {
		return err
	}
	if rk.grad != nil {
		_ = rk.grad.Release()
		_ = rk.loss.Release()
	}
	if rk.grad, err = gpuarr.Matmul(xbT, r); err != nil {
		return err
	}
	rk.loss, err = gpuarr.Sum(gpuarr.Mul(r, r))
	return err
}

// result is the loss before each step.
type result struct{ losses []float64 }

func (r *result) final() float64 { return r.losses[len(r.losses)-1] }

// train runs the steps: local gradients, one grouped all-reduce of the
// gradients and losses, the same update everywhere.
func train(cfg config, comm *collective.Comm, ranks []*rank) (*result, error) {
	res := &result{}
	scale := gpuarr.Scalar(-cfg.lr * 2 / float64(cfg.batch))
	grads := make([]*gpuarr.Array[float64], len(ranks))
	losses := make([]*gpuarr.Array[float64], len(ranks))
	for step := range cfg.steps {
		b := step % cfg.batches
		for i, rk := range ranks {
			if err := rk.local(b); err != nil {
				return nil, fmt.Errorf("step %d on %s: %w", step, rk.dev, err)
			}
			grads[i], losses[i] = rk.grad, rk.loss
		}
		err := comm.Group(func() error {
			if err := collective.AllReduce(comm, grads, nil, collective.Sum); err != nil {
				return err
			}
			return collective.AllReduce(comm, losses, nil, collective.Sum)
		})
		if err != nil {
			return nil, fmt.Errorf("step %d: %w", step, err)
		}
		for _, rk := range ranks {
			if err := gpuarr.EvalInto(rk.w, gpuarr.FMA(rk.grad, scale, rk.w)); err != nil {
				return nil, err
			}
		}
		l, err := ranks[0].loss.Item()
		if err != nil {
			return nil, err
		}
		res.losses = append(res.losses, l/float64(cfg.batch))
	}
	return res, nil
}
