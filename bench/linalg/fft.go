package main

import (
	"fmt"
	"math"

	"github.com/gpuarr/gpuarr/bench/report"
	"github.com/gpuarr/gpuarr/device"
	"github.com/gpuarr/gpuarr/fft"
	"github.com/gpuarr/gpuarr/gpuarr"
)

// The FFT cases (issue 30): FFT of cfg.fftN complex64 points, RFFT of
// cfg.rfftN float32 points, FFT2 of a cfg.fft2N² complex64 matrix; each
// one cuFFT plan, the result a new array per call. Rows carry n (the
// points of one transform) for bench/peer/linalg_peers.py.
func benchFFT(rep *report.Report, s *device.Stream, cfg config) error {
	on := gpuarr.On(s)
	cplx := func(sh gpuarr.Shape, seed uint64) (*gpuarr.Array[complex64], error) {
		re, err := randomOn[float32](s, sh, seed, 0)
		if err != nil {
			return nil, err
		}
		defer re.Release()
		im, err := randomOn[float32](s, sh, seed+1, 0)
		if err != nil {
			return nil, err
		}
		defer im.Release()
		return gpuarr.Eval(gpuarr.Complex[complex64](re, im), on)
	}
	// 5·n·log₂n flops per complex transform of n points (the usual FFT
	// count), half that for a real one.
	flops := func(n float64) float64 { return 5 * n * math.Log2(n) }

	x, err := cplx(gpuarr.Shape{cfg.fftN}, 11)
	if err != nil {
		return err
	}
	ns, err := timeCalls(cfg.fftS, func() error {
		y, err := fft.FFT(x, on)
		if err != nil {
			return err
		}
		y.Release()
		return s.Synchronize()
	})
	x.Release()
	if err != nil {
		return fmt.Errorf("FFT: %w", err)
	}
	n := float64(cfg.fftN)
	add(rep, "FFT", "complex64", pow2(cfg.fftN), "fft.FFT (cufftExecC2C)", ns,
		map[string]float64{"gflops": flops(n) / report.Summarize(ns).P50, "n": n})

	r, err := randomOn[float32](s, gpuarr.Shape{cfg.rfftN}, 13, 0)
	if err != nil {
		return err
	}
	ns, err = timeCalls(cfg.fftS, func() error {
		y, err := fft.RFFT[complex64](r, on)
		if err != nil {
			return err
		}
		y.Release()
		return s.Synchronize()
	})
	r.Release()
	if err != nil {
		return fmt.Errorf("RFFT: %w", err)
	}
	n = float64(cfg.rfftN)
	add(rep, "RFFT", "float32", pow2(cfg.rfftN), "fft.RFFT (cufftExecR2C)", ns,
		map[string]float64{"gflops": flops(n) / 2 / report.Summarize(ns).P50, "n": n})

	m, err := cplx(gpuarr.Shape{cfg.fft2N, cfg.fft2N}, 15)
	if err != nil {
		return err
	}
	ns, err = timeCalls(cfg.fftS, func() error {
		y, err := fft.FFT2(m, on)
		if err != nil {
			return err
		}
		y.Release()
		return s.Synchronize()
	})
	m.Release()
	if err != nil {
		return fmt.Errorf("FFT2: %w", err)
	}
	n = float64(cfg.fft2N) * float64(cfg.fft2N)
	add(rep, "FFT2", "complex64", square(cfg.fft2N), "fft.FFT2 (one 2-D cufftExecC2C)", ns,
		map[string]float64{"gflops": flops(n) / report.Summarize(ns).P50, "n": float64(cfg.fft2N)})
	return nil
}

// pow2 names n as a power of two when it is one.
func pow2(n int) string {
	if n > 0 && n&(n-1) == 0 {
		return fmt.Sprintf("2^%d", int(math.Log2(float64(n))))
	}
	return fmt.Sprint(n)
}
