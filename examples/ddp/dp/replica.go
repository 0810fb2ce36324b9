package dp

import (
	"fmt"
	"math"

	"github.com/gpuarr/gpuarr/device"
	"github.com/gpuarr/gpuarr/gpuarr"
)

// replica is one local rank: its copy of the weights, its activations and
// gradients for a shard of rows, and its two streams.
type replica[T gpuarr.Float] struct {
	dev                *device.Device
	compute, comm      *device.Stream
	onCompute          gpuarr.Option
	w, wT              []*gpuarr.Array[T] // layer i: [widths[i] widths[i+1]], and its transposed view
	act, actT          []*gpuarr.Array[T] // act[i]: layer i's output [rows widths[i+1]] (act[last] becomes the output's gradient)
	dz                 []*gpuarr.Array[T] // dz[i]: the gradient at layer i's output, i < last
	buckets            []*gpuarr.Array[T] // flat gradient buckets
	grad               []*gpuarr.Array[T] // grad[i]: layer i's weight gradient, a view into its bucket
	loss               *gpuarr.Array[T]   // this step's squared-error sum over the rank's rows
	owned              []*gpuarr.Array[T] // everything to release
	streamsOwned       bool
	rows, lastLayer    int
	widths             []int
	inT                *gpuarr.Array[T] // the transposed view of this step's input (its rows are act[-1])
	inOf               *gpuarr.Array[T] // the input inT views
	scale, negLR, zero gpuarr.Expr[T]
}

func newReplica[T gpuarr.Float](dev *device.Device, cfg Config, lay layout, rows, globalRows int) (r *replica[T], err error) {
	r = &replica[T]{dev: dev, rows: rows, widths: cfg.Widths, lastLayer: len(cfg.Widths) - 2}
	defer func() {
		if err != nil {
			r.release()
			r = nil
		}
	}()
	if r.compute, err = dev.NewStream(); err != nil {
		return r, err
	}
	if r.comm, err = dev.NewStream(); err != nil {
		return r, err
	}
	r.streamsOwned = true
	r.onCompute = gpuarr.On(r.compute)
	keep := func(a *gpuarr.Array[T]) *gpuarr.Array[T] { r.owned = append(r.owned, a); return a }

	// He initialization from the seed: every replica draws the same
	// numbers (gpuarr's generator depends only on seed and position), and
	// Trainer broadcasts rank 0's anyway.
	g := gpuarr.NewRNG(cfg.Seed)
	nl := len(cfg.Widths) - 1
	for i := range nl {
		in, out := cfg.Widths[i], cfg.Widths[i+1]
		std := gpuarr.Scalar(T(math.Sqrt(2 / float64(in))))
		w, err := gpuarr.Eval(gpuarr.Mul(gpuarr.NormalExpr[T](g, gpuarr.Shape{in, out}), std), r.onCompute)
		if err != nil {
			return r, fmt.Errorf("layer %d weights: %w", i, err)
		}
		r.w = append(r.w, keep(w))
		wt, err := w.Transpose()
		if err != nil {
			return r, err
		}
		r.wT = append(r.wT, keep(wt))
		a, err := gpuarr.Empty[T](gpuarr.Shape{rows, out}, r.onCompute)
		if err != nil {
			return r, err
		}
		r.act = append(r.act, keep(a))
		at, err := a.Transpose()
		if err != nil {
			return r, err
		}
		r.actT = append(r.actT, keep(at))
		if i < nl-1 {
			d, err := gpuarr.Empty[T](gpuarr.Shape{rows, out}, r.onCompute)
			if err != nil {
				return r, err
			}
			r.dz = append(r.dz, keep(d))
		}
	}
	for _, b := range lay.buckets {
		a, err := gpuarr.Zeros[T](gpuarr.Shape{b.elems}, r.onCompute)
		if err != nil {
			return r, fmt.Errorf("gradient bucket of %d elements: %w", b.elems, err)
		}
		r.buckets = append(r.buckets, keep(a))
	}
	r.grad = make([]*gpuarr.Array[T], nl)
	for i := range nl {
		in, out := cfg.Widths[i], cfg.Widths[i+1]
		flat, err := r.buckets[lay.of[i]].Slice(lay.offset[i], lay.offset[i]+in*out)
		if err != nil {
			return r, err
		}
		keep(flat)
		if r.grad[i], err = flat.Reshape(gpuarr.Shape{in, out}); err != nil {
			return r, err
		}
		keep(r.grad[i])
	}
	r.scale = gpuarr.Scalar(T(2 / float64(globalRows*cfg.Widths[nl])))
	r.negLR = gpuarr.Scalar(T(-cfg.LR))
	r.zero = gpuarr.Scalar(T(0))
	return r, nil
}

// forward runs the layers on x ([rows widths[0]]) and leaves in act[last]
// the gradient of the loss at the output, in loss the squared-error sum.
func (r *replica[T]) forward(x, y *gpuarr.Array[T]) error {
	if err := r.setInput(x); err != nil {
		return err
	}
	in := x
	for i := range r.w {
		if err := gpuarr.MatmulInto(r.act[i], in, r.w[i], r.onCompute); err != nil {
			return fmt.Errorf("layer %d: %w", i, err)
		}
		if i < r.lastLayer {
			// ReLU in place.
			if err := gpuarr.EvalInto(r.act[i], gpuarr.Maximum(r.act[i], r.zero), r.onCompute); err != nil {
				return fmt.Errorf("layer %d: %w", i, err)
			}
		}
		in = r.act[i]
	}
	out := r.act[r.lastLayer]
	diff := gpuarr.Sub(out, y)
	loss, err := gpuarr.Sum(gpuarr.Mul(diff, diff), r.onCompute)
	if err != nil {
		return fmt.Errorf("loss: %w", err)
	}
	if r.loss != nil {
		_ = r.loss.Release()
	}
	r.loss = loss
	// d loss / d out, in place of the output.
	if err := gpuarr.EvalInto(out, gpuarr.Mul(diff, r.scale), r.onCompute); err != nil {
		return fmt.Errorf("output gradient: %w", err)
	}
	return nil
}

// setInput keeps a transposed view of x for the first layer's gradient;
// a step on the same x as the last reuses it.
func (r *replica[T]) setInput(x *gpuarr.Array[T]) error {
	if x == r.inOf && r.inT != nil && !x.Released() {
		return nil
	}
	if r.inT != nil {
		_ = r.inT.Release()
	}
	t, err := x.Transpose()
	if err != nil {
		return err
	}
	r.inT, r.inOf = t, x
	return nil
}

// backward computes layer i's weight gradient into its bucket and, below
// the first layer, the gradient at the layer's input (through the ReLU).
func (r *replica[T]) backward(i int) error {
	g := r.act[i] // the gradient at layer i's output
	if i < r.lastLayer {
		g = r.dz[i]
	}
	inT := r.inT
	if i > 0 {
		inT = r.actT[i-1]
	}
	if err := gpuarr.MatmulInto(r.grad[i], inT, g, r.onCompute); err != nil {
		return fmt.Errorf("layer %d weight gradient: %w", i, err)
	}
	if i == 0 {
		return nil
	}
	d := r.dz[i-1]
	if err := gpuarr.MatmulInto(d, g, r.wT[i], r.onCompute); err != nil {
		return fmt.Errorf("layer %d input gradient: %w", i, err)
	}
	mask := gpuarr.Greater(r.act[i-1], r.zero)
	if err := gpuarr.EvalInto(d, gpuarr.Where(mask, d, r.zero), r.onCompute); err != nil {
		return fmt.Errorf("layer %d ReLU gradient: %w", i, err)
	}
	return nil
}

// update is w −= η·g for every layer, on the compute stream (after the
// all-reduces: tracking orders it).
func (r *replica[T]) update() error {
	for i, w := range r.w {
		if err := gpuarr.EvalInto(w, gpuarr.FMA(r.grad[i], r.negLR, w), r.onCompute); err != nil {
			return fmt.Errorf("layer %d update: %w", i, err)
		}
	}
	return nil
}

func (r *replica[T]) release() {
	for _, a := range append(r.owned, r.loss, r.inT) {
		if a != nil && !a.Released() {
			_ = a.Release()
		}
	}
	r.owned = nil
	if r.streamsOwned {
		_ = r.compute.Synchronize()
		_ = r.comm.Synchronize()
		_ = r.compute.Close()
		_ = r.comm.Close()
		r.streamsOwned = false
	}
}
