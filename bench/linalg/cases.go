package main

import (
	"fmt"
	"math"

	"github.com/gpuarr/gpuarr/bench/report"
	"github.com/gpuarr/gpuarr/device"
	"github.com/gpuarr/gpuarr/gpuarr"
	"github.com/gpuarr/gpuarr/linalg"
)

// randomOn is an [sh] array of uniform deviates in [-1, 1) plus diag on
// the diagonal of each square matrix (a well-conditioned system).
func randomOn[T linalg.Float](s *device.Stream, sh gpuarr.Shape, seed uint64, diag float64) (*gpuarr.Array[T], error) {
	g := gpuarr.NewRNG(seed)
	e := gpuarr.Sub(gpuarr.Mul(gpuarr.UniformExpr[T](g, sh), gpuarr.Scalar[T](2)), gpuarr.Scalar[T](1))
	a, err := gpuarr.Eval(e, gpuarr.On(s))
	if err != nil || diag == 0 {
		return a, err
	}
	n := sh[len(sh)-1]
	eye, err := identity[T](s, n)
	if err != nil {
		a.Release()
		return nil, err
	}
	defer eye.Release()
	if err := gpuarr.EvalInto(a, gpuarr.Add[T](a, gpuarr.Mul[T](eye, gpuarr.Scalar(T(diag)))), gpuarr.On(s)); err != nil {
		a.Release()
		return nil, err
	}
	return a, nil
}

// identity is the n×n identity: ones where a row index equals a column
// index (two uploaded index vectors, broadcast).
func identity[T linalg.Float](s *device.Stream, n int) (*gpuarr.Array[T], error) {
	ix := make([]int32, n)
	for i := range ix {
		ix[i] = int32(i)
	}
	rows, err := gpuarr.FromSlice(ix, gpuarr.Shape{n, 1}, gpuarr.On(s))
	if err != nil {
		return nil, err
	}
	defer rows.Release()
	cols, err := gpuarr.FromSlice(ix, gpuarr.Shape{1, n}, gpuarr.On(s))
	if err != nil {
		return nil, err
	}
	defer cols.Release()
	return gpuarr.Eval(gpuarr.Where(gpuarr.Equal[int32](rows, cols), gpuarr.Scalar[T](1), gpuarr.Scalar[T](0)), gpuarr.On(s))
}

// spd is m·mᵀ/n + I for a random m: symmetric positive definite.
func spd[T linalg.Float](s *device.Stream, n int, seed uint64) (*gpuarr.Array[T], error) {
	m, err := randomOn[T](s, gpuarr.Shape{n, n}, seed, 0)
	if err != nil {
		return nil, err
	}
	defer m.Release()
	mt, err := m.Transpose()
	if err != nil {
		return nil, err
	}
	defer mt.Release()
	p, err := gpuarr.Matmul(m, mt, gpuarr.On(s))
	if err != nil {
		return nil, err
	}
	defer p.Release()
	eye, err := identity[T](s, n)
	if err != nil {
		return nil, err
	}
	defer eye.Release()
	return gpuarr.Eval(gpuarr.Add[T](gpuarr.Mul[T](p, gpuarr.Scalar(T(1/float64(n)))), eye), gpuarr.On(s))
}

func dtypeName[T linalg.Float]() string {
	var zero T
	if _, ok := any(zero).(float32); ok {
		return "float32"
	}
	return "float64"
}

func square(n int) string { return fmt.Sprintf("%d×%d", n, n) }

func benchSolve(rep *report.Report, s *device.Stream, cfg config) error {
	if err := solveCase[float64](rep, s, cfg.solveN, cfg.samples); err != nil {
		return err
	}
	return solveCase[float32](rep, s, cfg.solveN, cfg.samples)
}

func solveCase[T linalg.Float](rep *report.Report, s *device.Stream, n, samples int) error {
	a, err := randomOn[T](s, gpuarr.Shape{n, n}, 1, 0)
	if err != nil {
		return err
	}
	defer a.Release()
	b, err := randomOn[T](s, gpuarr.Shape{n, 1}, 2, 0)
	if err != nil {
		return err
	}
	defer b.Release()
	ns, err := timeCalls(samples, func() error {
		x, err := linalg.Solve(a, b, gpuarr.On(s))
		if err != nil {
			return err
		}
		x.Release()
		return s.Synchronize()
	})
	if err != nil {
		return fmt.Errorf("Solve %s: %w", dtypeName[T](), err)
	}
	flops := 2.0 / 3 * math.Pow(float64(n), 3)
	add(rep, "Solve", dtypeName[T](), fmt.Sprintf("%s, b %d×1", square(n), n), "linalg.Solve (getrf+getrs)", ns,
		map[string]float64{"gflops": flops / report.Summarize(ns).P50, "n": float64(n)})
	return nil
}

func benchCholesky(rep *report.Report, s *device.Stream, cfg config) error {
	if err := choleskyCase[float64](rep, s, cfg.solveN, cfg.samples); err != nil {
		return err
	}
	return choleskyCase[float32](rep, s, cfg.solveN, cfg.samples)
}

func choleskyCase[T linalg.Float](rep *report.Report, s *device.Stream, n, samples int) error {
	a, err := spd[T](s, n, 3)
	if err != nil {
		return err
	}
	defer a.Release()
	ns, err := timeCalls(samples, func() error {
		l, err := linalg.Cholesky(a, linalg.Lower, gpuarr.On(s))
		if err != nil {
			return err
		}
		l.Release()
		return s.Synchronize()
	})
	if err != nil {
		return fmt.Errorf("Cholesky %s: %w", dtypeName[T](), err)
	}
	flops := math.Pow(float64(n), 3) / 3
	add(rep, "Cholesky", dtypeName[T](), square(n), "linalg.Cholesky (potrf)", ns,
		map[string]float64{"gflops": flops / report.Summarize(ns).P50, "n": float64(n)})
	return nil
}

func benchSVD(rep *report.Report, s *device.Stream, cfg config) error {
	n := cfg.svdN
	a, err := randomOn[float32](s, gpuarr.Shape{n, n}, 4, 0)
	if err != nil {
		return err
	}
	defer a.Release()
	ns, err := timeCalls(max(2, cfg.samples/2), func() error {
		u, sv, vh, err := linalg.SVD(a, true, gpuarr.On(s))
		if err != nil {
			return err
		}
		u.Release()
		sv.Release()
		vh.Release()
		return s.Synchronize()
	})
	if err != nil {
		return fmt.Errorf("SVD: %w", err)
	}
	add(rep, "SVD", "float32", square(n), "linalg.SVD full (gesvdj)", ns, map[string]float64{"n": float64(n)})
	ns, err = timeCalls(max(2, cfg.samples/2), func() error {
		sv, err := linalg.SVDVals(a, gpuarr.On(s))
		if err != nil {
			return err
		}
		sv.Release()
		return s.Synchronize()
	})
	if err != nil {
		return fmt.Errorf("SVDVals: %w", err)
	}
	add(rep, "SVDVals", "float32", square(n), "linalg.SVDVals (gesvdj)", ns, map[string]float64{"n": float64(n)})
	return nil
}

func benchEigh(rep *report.Report, s *device.Stream, cfg config) error {
	n := cfg.svdN
	m, err := randomOn[float32](s, gpuarr.Shape{n, n}, 5, 0)
	if err != nil {
		return err
	}
	defer m.Release()
	mt, err := m.Transpose()
	if err != nil {
		return err
	}
	defer mt.Release()
	a, err := gpuarr.Eval(gpuarr.Add[float32](m, mt), gpuarr.On(s))
	if err != nil {
		return err
	}
	defer a.Release()
	ns, err := timeCalls(cfg.samples, func() error {
		w, v, err := linalg.Eigh(a, linalg.Lower, gpuarr.On(s))
		if err != nil {
			return err
		}
		w.Release()
		v.Release()
		return s.Synchronize()
	})
	if err != nil {
		return fmt.Errorf("Eigh: %w", err)
	}
	add(rep, "Eigh", "float32", square(n), "linalg.Eigh (syevd)", ns, map[string]float64{"n": float64(n)})
	return nil
}

func benchBatchedSolve(rep *report.Report, s *device.Stream, cfg config) error {
	n, count := cfg.batchN, cfg.batch
	a, err := randomOn[float32](s, gpuarr.Shape{count, n, n}, 6, float64(n)/4)
	if err != nil {
		return err
	}
	defer a.Release()
	b, err := randomOn[float32](s, gpuarr.Shape{count, n, 1}, 7, 0)
	if err != nil {
		return err
	}
	defer b.Release()
	ns, err := timeCalls(cfg.small, func() error {
		x, err := linalg.Solve(a, b, gpuarr.On(s))
		if err != nil {
			return err
		}
		x.Release()
		return s.Synchronize()
	})
	if err != nil {
		return fmt.Errorf("batched Solve: %w", err)
	}
	add(rep, "Solve batched", "float32", fmt.Sprintf("%d × %s, b %d×1", count, square(n), n),
		"linalg.Solve (getrfBatched+getrsBatched)", ns, map[string]float64{"n": float64(n), "batch": float64(count)})
	return nil
}
