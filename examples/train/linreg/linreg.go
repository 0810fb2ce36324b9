// Package linreg is the model of examples/train: linear regression by
// minibatch gradient descent on gpuarr arrays, in the style of the CUDA.jl
// 5.4 post on memory management, whose every batch makes temporaries that
// are either left to Go's garbage collector or released. examples/train
// runs it for a user to read; bench/train runs the same loop and measures
// it.
package linreg

import (
	"fmt"
	"time"

	"github.com/gpuarr/gpuarr/device"
	"github.com/gpuarr/gpuarr/gpuarr"
)

// Mode is how the training loop treats its temporaries.
type Mode string

const (
	// Eager leaves temporaries to the GC, with eager collection on.
	Eager Mode = "eager"
	// Disabled leaves them to the GC with eager collection off: only the
	// allocator's reclaim ladder collects, when memory runs out.
	Disabled Mode = "disabled"
	// Release frees every temporary explicitly as soon as it is dead.
	Release Mode = "release"
)

// Config is one training run.
type Config struct {
	Features, Samples, Batch, Epochs int
	Mode                             Mode
	// Epoch is called after each epoch with its number (from 1), time and
	// the last batch's loss.
	Epoch func(epoch int, took time.Duration, loss float64)
}

// learningRate is the gradient step η.
const learningRate = 0.1

// Train fits a linear model y ≈ X·w to features X (Samples × Features)
// and labels y by minibatch gradient descent, the loop of the CUDA.jl 5.4
// post. Each batch makes the temporaries a user's code makes — a copy of
// the batch's rows, the predictions, their error, the gradient, the loss
// — and, unless the mode is Release, drops them for the GC to find.
func Train(dev *device.Device, cfg Config) (err error) {
	on := gpuarr.OnDevice(dev)

	// The data set, generated on the device: normal features, labels from
	// a hidden weight vector plus a little noise.
	g := gpuarr.NewRNG(1)
	X, err := gpuarr.Eval(gpuarr.NormalExpr[float32](g, gpuarr.Shape{cfg.Samples, cfg.Features}), on)
	if err != nil {
		return fmt.Errorf("features: %w", err)
	}
	defer X.Release()
	truth, err := gpuarr.Eval(gpuarr.NormalExpr[float32](g, gpuarr.Shape{cfg.Features, 1}), on)
	if err != nil {
		return fmt.Errorf("hidden weights: %w", err)
	}
	defer truth.Release()
	clean, err := gpuarr.Matmul(X, truth, on)
	if err != nil {
		return fmt.Errorf("labels: %w", err)
	}
	defer clean.Release()
	y, err := gpuarr.Eval(gpuarr.FMA(gpuarr.NormalExpr[float32](g, gpuarr.Shape{cfg.Samples, 1}), gpuarr.Scalar[float32](0.01), clean), on)
	if err != nil {
		return fmt.Errorf("labels: %w", err)
	}
	defer y.Release()
	w, err := gpuarr.Zeros[float32](gpuarr.Shape{cfg.Features, 1}, on)
	if err != nil {
		return fmt.Errorf("weights: %w", err)
	}
	defer w.Release()

	for epoch := 1; epoch <= cfg.Epochs; epoch++ {
		start := time.Now()
		var loss *gpuarr.Array[float32]
		for lo := 0; lo < cfg.Samples; lo += cfg.Batch {
			hi := min(lo+cfg.Batch, cfg.Samples)
			l, err := step(X, y, w, lo, hi, cfg.Mode)
			if err != nil {
				return fmt.Errorf("epoch %d, batch at sample %d: %w", epoch, lo, err)
			}
			if cfg.Mode == Release && loss != nil {
				if err := loss.Release(); err != nil {
					return err
				}
			}
			loss = l
		}
		// The last batch's loss, read on the host: this waits for the device.
		v, err := loss.Item()
		if err != nil {
			return fmt.Errorf("epoch %d: reading the loss: %w", epoch, err)
		}
		if cfg.Mode == Release {
			if err := loss.Release(); err != nil {
				return err
			}
		}
		if cfg.Epoch != nil {
			cfg.Epoch(epoch, time.Since(start), float64(v))
		}
	}
	return nil
}

// step is one minibatch on rows lo..hi of X and y: w -= η·Xbᵀ(Xb·w − yb)/n.
// It returns the batch's mean squared error (a one-element array), which
// the caller owns.
func step(X, y, w *gpuarr.Array[float32], lo, hi int, mode Mode) (*gpuarr.Array[float32], error) {
	n := hi - lo
	var temps []interface{ Release() error }
	keep := func(a interface{ Release() error }) { temps = append(temps, a) }
	defer func() {
		if mode == Release {
			for _, t := range temps {
				_ = t.Release()
			}
		}
	}()

	// Xb = X[lo:hi, :] — a copy of the batch, as indexing makes one in Julia.
	rows, err := X.Slice(lo, hi)
	if err != nil {
		return nil, err
	}
	keep(rows)
	xb, err := gpuarr.Clone(rows)
	if err != nil {
		return nil, err
	}
	keep(xb)
	yb, err := y.Slice(lo, hi)
	if err != nil {
		return nil, err
	}
	keep(yb)

	pred, err := gpuarr.Matmul(xb, w) // ŷ = Xb·w
	if err != nil {
		return nil, err
	}
	keep(pred)
	r, err := gpuarr.Eval(gpuarr.Sub(pred, yb)) // r = ŷ − yb
	if err != nil {
		return nil, err
	}
	keep(r)
	xbT, err := xb.Transpose()
	if err != nil {
		return nil, err
	}
	keep(xbT)
	grad, err := gpuarr.Matmul(xbT, r) // ∇ = Xbᵀ·r
	if err != nil {
		return nil, err
	}
	keep(grad)
	// w -= (η/n)·∇, in place.
	if err := gpuarr.EvalInto(w, gpuarr.FMA(grad, gpuarr.Scalar(float32(-learningRate/float64(n))), w)); err != nil {
		return nil, err
	}
	return gpuarr.Mean(gpuarr.Mul(r, r))
}
