package main

import (
	"errors"
	"fmt"
	"time"

	"github.com/gpuarr/gpuarr/device"
	"github.com/gpuarr/gpuarr/gpuarr"
	"github.com/gpuarr/gpuarr/internal/testkernels"
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
	// Epoch is called after each epoch with its number (from 1) and time.
	Epoch func(epoch int, took time.Duration)
}

// model is a linear model y ≈ X·w + b; b is folded into w's last
// feature as usual.
type model struct {
	w  *gpuarr.Array[float32]
	ks *testkernels.Set
}

// train fits a linear model to features X (Samples × Features) and labels
// y by minibatch gradient descent, the loop of the CUDA.jl 5.4 post. Each
// batch makes the temporaries a user's code makes — a copy of the batch's
// rows, the predictions, their error, the gradient — and, unless the mode
// is Release, drops them for the GC to find.
//
// Until gpuarr has elementwise expressions and matmul, the arithmetic is a
// stand-in of the same shapes and memory traffic (see the package doc): a
// fill for each product, the vadd test kernel for each sum.
func train(dev *device.Device, cfg Config) (err error) {
	ks, err := testkernels.Load(dev)
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, ks.Module.Close()) }()
	on := gpuarr.OnDevice(dev)

	// The data set. A real program would upload it (FromSlice) or generate
	// it on the device; its values do not matter to the stand-ins.
	X, err := gpuarr.Full(gpuarr.Shape{cfg.Samples, cfg.Features}, float32(0.01), on)
	if err != nil {
		return fmt.Errorf("features: %w", err)
	}
	defer X.Release()
	y, err := gpuarr.Full(gpuarr.Shape{cfg.Samples}, float32(1), on)
	if err != nil {
		return fmt.Errorf("labels: %w", err)
	}
	defer y.Release()
	w, err := gpuarr.Zeros[float32](gpuarr.Shape{cfg.Features}, on)
	if err != nil {
		return fmt.Errorf("weights: %w", err)
	}
	defer w.Release()
	m := &model{w: w, ks: ks}

	for epoch := 1; epoch <= cfg.Epochs; epoch++ {
		start := time.Now()
		var last *gpuarr.Array[float32]
		for lo := 0; lo < cfg.Samples; lo += cfg.Batch {
			hi := min(lo+cfg.Batch, cfg.Samples)
			r, err := m.step(X, y, lo, hi, cfg.Mode)
			if err != nil {
				return fmt.Errorf("epoch %d, batch at sample %d: %w", epoch, lo, err)
			}
			if cfg.Mode == Release && last != nil {
				if err := last.Release(); err != nil {
					return err
				}
			}
			last = r
		}
		// The epoch's loss, read on the host: this waits for the device.
		if _, err := last.ToSlice(); err != nil {
			return fmt.Errorf("epoch %d: reading the loss: %w", epoch, err)
		}
		if cfg.Mode == Release {
			if err := last.Release(); err != nil {
				return err
			}
		}
		if cfg.Epoch != nil {
			cfg.Epoch(epoch, time.Since(start))
		}
	}
	return nil
}

// step is one minibatch: rows lo..hi of X and y. It returns the batch's
// error vector (the loss's input), which the caller owns.
func (m *model) step(X, y *gpuarr.Array[float32], lo, hi int, mode Mode) (*gpuarr.Array[float32], error) {
	n := hi - lo
	features := X.Shape()[1]
	var temps []interface{ Release() error }
	keep := func(a interface{ Release() error }) { temps = append(temps, a) }
	defer func() {
		if mode == Release {
			for _, t := range temps {
				_ = t.Release()
			}
		}
	}()

	// Xb = X[idx, :] — a copy of the batch, as indexing makes one in Julia.
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

	// ŷ = Xb·w (stand-in: a fill of ŷ's shape).
	pred, err := gpuarr.Full(gpuarr.Shape{n}, float32(0.5), gpuarr.OnDevice(xb.Device()))
	if err != nil {
		return nil, err
	}
	keep(pred)
	// r = ŷ - yb (stand-in: ŷ + yb).
	r, err := m.add(pred, yb)
	if err != nil {
		return nil, err
	}
	// ∇w = Xbᵀ·r / n (stand-in: a fill of ∇w's shape).
	grad, err := gpuarr.Full(gpuarr.Shape{features}, float32(0), gpuarr.OnDevice(xb.Device()))
	if err != nil {
		return nil, err
	}
	keep(grad)
	// w -= η·∇w (stand-in: w += ∇w, which is zero, in place).
	if err := m.addInto(m.w, m.w, grad); err != nil {
		return nil, err
	}
	return r, nil
}

// add returns a + b, a new array.
func (m *model) add(a, b *gpuarr.Array[float32]) (*gpuarr.Array[float32], error) {
	c, err := gpuarr.Empty[float32](a.Shape(), gpuarr.OnDevice(a.Device()))
	if err != nil {
		return nil, err
	}
	if err := m.addInto(c, a, b); err != nil {
		_ = c.Release()
		return nil, err
	}
	return c, nil
}

// addInto computes c = a + b with the vadd test kernel.
func (m *model) addInto(c, a, b *gpuarr.Array[float32]) error {
	n := uint64(c.Len())
	return gpuarr.Launch(m.ks.VAdd, device.Linear(n, 256), gpuarr.In(a), gpuarr.In(b), gpuarr.Out(c), n)
}
