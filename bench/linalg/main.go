// Command linalg measures package linalg and the gonum bridge on the
// default device, in one run:
//
//  1. Solve of an 8192×8192 system with one right-hand side, float64 and
//     float32 (cuSOLVER getrf + getrs);
//  2. Cholesky of an 8192×8192 symmetric positive definite matrix, float64
//     and float32 (potrf);
//  3. SVD of a 4096×4096 float32 matrix with full U and Vᵀ (gesvdj), and
//     SVDVals;
//  4. Eigh of a 4096×4096 symmetric float32 matrix (syevd);
//  5. Solve of 10,000 float32 systems of 32×32 with one right-hand side
//     each (cuBLAS getrfBatched + getrsBatched);
//  6. gonum's mat.Dense.Mul of two 4096×4096 float64 matrices: through
//     blas64.Use(gonum.Implementation{}) on unified arrays lent by
//     gonum.BorrowAll (one cuBLAS DGEMM, and the wait for C), against
//     gonum's own CPU Mul of the same matrices on this host's cores, both
//     at 4096² in this run; the ratio is held to the 50×;
//  7. package fft: FFT of 2²⁴ complex64 points, RFFT of 2²⁶ float32
//     points and FFT2 of a 4096×4096 complex64 matrix (cuFFT; one plan
//     each, the result and cuFFT's workspace from the pool per call).
//
// Each sample is host wall time of one call, from the call until its
// result is on the device and the stream has finished (the linalg
// functions of cases 1–5 read their info words back, so they wait
// anyway; the sample adds a stream synchronization; case 7 does not wait
// by itself). Inputs are made
// once per case, outside the samples; each call's result is released
// inside its sample, as torch frees its results. bench/peer/linalg_peers.py
// measures torch.linalg and torch.fft the same way in the same GPU run
// and gives the ratios against the targets.
//
//	go run ./bench/linalg -out bench/results
//	go run ./bench/linalg -quick            (small sizes, seconds)
//
// On the host backend it uses small sizes automatically and says so in
// the JSON: those figures only show that the program runs.
package main

import (
	"flag"
	"fmt"
	"os"
	"runtime"
	"time"

	"github.com/gpuarr/gpuarr/bench/report"
	"github.com/gpuarr/gpuarr/device"
)

// The target for the gonum bridge: Mul through blas64.Use on
// unified memory, at least this many times gonum's CPU Mul.
const targetBridgeVsCPU = 50

type config struct {
	solveN  int // cases 1 and 2
	svdN    int // cases 3 and 4
	batch   int // case 5: systems
	batchN  int // case 5: their size
	mulN    int // case 6
	fftN    int // case 7: FFT points
	rfftN   int // case 7: RFFT points
	fft2N   int // case 7: FFT2 side
	samples int // timed samples of the big cases
	small   int // timed samples of the batched case
	fftS    int // timed samples of the FFT cases
	cpu     int // timed samples of gonum's CPU Mul
}

func main() {
	out := flag.String("out", "", "directory for linalg.json (none: print only)")
	quick := flag.Bool("quick", false, "small sizes and few samples (a smoke test)")
	cfg := config{}
	flag.IntVar(&cfg.solveN, "solve", 8192, "Solve and Cholesky size")
	flag.IntVar(&cfg.svdN, "svd", 4096, "SVD and Eigh size")
	flag.IntVar(&cfg.batch, "batch", 10000, "systems of the batched Solve")
	flag.IntVar(&cfg.batchN, "batch-n", 32, "size of the batched systems")
	flag.IntVar(&cfg.mulN, "mul", 4096, "gonum Mul size")
	flag.IntVar(&cfg.fftN, "fft", 1<<24, "FFT points (complex64)")
	flag.IntVar(&cfg.rfftN, "rfft", 1<<26, "RFFT points (float32)")
	flag.IntVar(&cfg.fft2N, "fft2", 4096, "FFT2 side (complex64)")
	flag.IntVar(&cfg.samples, "samples", 7, "timed samples of the large cases")
	flag.IntVar(&cfg.small, "batch-samples", 30, "timed samples of the batched Solve")
	flag.IntVar(&cfg.fftS, "fft-samples", 100, "timed samples of the FFT cases")
	flag.IntVar(&cfg.cpu, "cpu-samples", 2, "timed samples of gonum's CPU Mul")
	flag.Parse()
	set := map[string]bool{}
	flag.Visit(func(f *flag.Flag) { set[f.Name] = true })
	if err := run(*out, cfg, *quick, set); err != nil {
		fmt.Fprintln(os.Stderr, "linalg:", err)
		os.Exit(1)
	}
}

func run(outDir string, cfg config, quick bool, set map[string]bool) error {
	dev, err := device.Default()
	if err != nil {
		return err
	}
	if quick || dev.Backend() != "cuda" {
		def := func(name string, p *int, v int) {
			if !set[name] {
				*p = v
			}
		}
		def("solve", &cfg.solveN, 256)
		def("svd", &cfg.svdN, 128)
		def("batch", &cfg.batch, 500)
		def("mul", &cfg.mulN, 256)
		def("fft", &cfg.fftN, 1<<12)
		def("rfft", &cfg.rfftN, 1<<14)
		def("fft2", &cfg.fft2N, 64)
		def("samples", &cfg.samples, 3)
		def("batch-samples", &cfg.small, 5)
		def("fft-samples", &cfg.fftS, 5)
		def("cpu-samples", &cfg.cpu, 2)
	}
	rep := report.New("linalg", dev.Name(), dev.Backend(), dev.DriverVersion())
	if dev.Backend() != "cuda" {
		rep.Note("Measured on the %s backend with small sizes: these figures only show that the program runs.", dev.Backend())
	}
	rep.Note("Samples are host wall time per call, stream synchronized, result released; p50 over %d samples (%d for the batched Solve, %d for the FFTs, %d for gonum's CPU Mul) after one warm-up call. GOMAXPROCS=%d for gonum's CPU Mul.",
		cfg.samples, cfg.small, cfg.fftS, cfg.cpu, runtime.GOMAXPROCS(0))
	s := dev.DefaultStream()
	for _, c := range []func(*report.Report, *device.Stream, config) error{
		benchSolve, benchCholesky, benchSVD, benchEigh, benchBatchedSolve, benchBridge, benchFFT,
	} {
		if err := c(rep, s, cfg); err != nil {
			return err
		}
	}
	rep.Markdown(os.Stdout, []string{"dtype", "size", "path"}, []string{"p50_ns", "p99_ns", "min_ns", "gflops", "ratio", "target", "met"})
	return rep.WriteJSON(outDir)
}

// timeCalls is wall time per call of op (which waits for its work) over
// samples after one warm-up call, in nanoseconds.
func timeCalls(samples int, op func() error) ([]float64, error) {
	if err := op(); err != nil {
		return nil, err
	}
	out := make([]float64, samples)
	for i := range out {
		t := time.Now()
		if err := op(); err != nil {
			return nil, err
		}
		out[i] = float64(time.Since(t).Nanoseconds())
	}
	return out, nil
}

// add records a case's samples; n (and batch, for a stack) are the
// case's sizes, for bench/peer/linalg_peers.py to measure the same.
func add(rep *report.Report, name, dtype, size, path string, ns []float64, extra map[string]float64) *report.Row {
	sm := report.Summarize(ns)
	m := map[string]float64{"p50_ns": sm.P50, "p99_ns": sm.P99, "min_ns": sm.Min}
	for k, v := range extra {
		m[k] = v
	}
	return rep.Add(name, map[string]string{"dtype": dtype, "size": size, "path": path}, m)
}
