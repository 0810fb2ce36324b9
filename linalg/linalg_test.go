package linalg_test

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gpuarr/gpuarr/device"
	"github.com/gpuarr/gpuarr/gpuarr"
	"github.com/gpuarr/gpuarr/internal/arrayhook"
	"github.com/gpuarr/gpuarr/internal/testutil"
	"github.com/gpuarr/gpuarr/linalg"
	"github.com/gpuarr/gpuarr/memory"
)

func TestMain(m *testing.M) {
	// The allocator's trace shows where the libraries' workspaces come
	// from (TestWorkspacesFromThePool).
	if os.Getenv(memory.EnvTrace) == "" {
		os.Setenv(memory.EnvTrace, "65536")
	}
	os.Exit(m.Run())
}

// randArray is a [shape] array of normal deviates; diagBoost adds it on
// the diagonal of each square matrix (for well-conditioned systems).
func randArray[T linalg.Float](t *testing.T, rng *rand.Rand, sh gpuarr.Shape, diagBoost float64, opts ...gpuarr.Option) (*gpuarr.Array[T], []float64) {
	t.Helper()
	n := 1
	for _, d := range sh {
		n *= d
	}
	v := make([]float64, n)
	tv := make([]T, n)
	r, c := sh[len(sh)-2], sh[len(sh)-1]
	for i := range v {
		v[i] = rng.NormFloat64()
		if diagBoost != 0 && r == c && (i%(r*c))/c == i%c {
			v[i] += diagBoost
		}
		tv[i] = T(v[i])
		v[i] = float64(tv[i])
	}
	a, err := gpuarr.FromSlice(tv, sh, opts...)
	require.NoError(t, err)
	t.Cleanup(func() { a.Release() })
	return a, v
}

func TestArgumentErrors(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	sq, _ := randArray[float64](t, rng, gpuarr.Shape{3, 3}, 3)
	wide, _ := randArray[float64](t, rng, gpuarr.Shape{2, 3}, 0)
	vec, err := gpuarr.Zeros[float64](gpuarr.Shape{3})
	require.NoError(t, err)
	defer vec.Release()
	gone, err := gpuarr.Zeros[float64](gpuarr.Shape{3, 3})
	require.NoError(t, err)
	require.NoError(t, gone.Release())
	stack2, _ := randArray[float64](t, rng, gpuarr.Shape{2, 3, 3}, 3)
	b3x2, _ := randArray[float64](t, rng, gpuarr.Shape{3, 3, 2}, 0)
	for _, tc := range []struct {
		name string
		call func() error
		want error
		text string
	}{
		{"nil", func() error { _, err := linalg.Solve(nil, vec); return err }, gpuarr.ErrArgument, "linalg.Solve: a is a nil array"},
		{"nil b", func() error { _, err := linalg.Solve(sq, nil); return err }, gpuarr.ErrArgument, "b is a nil array"},
		{"released", func() error { _, err := linalg.Inv(gone); return err }, gpuarr.ErrReleased, "linalg.Inv"},
		{"vector", func() error { _, err := linalg.Det(vec); return err }, gpuarr.ErrShape, "rank at least 2"},
		{"not square", func() error { _, err := linalg.Cholesky(wide, linalg.Lower); return err }, gpuarr.ErrShape, "square"},
		{"b length", func() error { _, err := linalg.Solve(sq, wide); return err }, gpuarr.ErrShape, "want 3 rows"},
		{"stacks", func() error { _, err := linalg.Solve(stack2, b3x2); return err }, gpuarr.ErrShape, "do not broadcast"},
		{"triangle", func() error { _, _, err := linalg.Eigh(sq, linalg.Triangle(7)); return err }, gpuarr.ErrArgument, "Triangle(7)"},
		{"mode", func() error { _, _, err := linalg.QR(sq, linalg.QRMode(9)); return err }, gpuarr.ErrArgument, "QRMode(9)"},
		{"option", func() error { _, err := linalg.Inv(sq, gpuarr.Axis(0)); return err }, gpuarr.ErrArgument, "gpuarr.Axis(0)"},
		{"nil stream", func() error { _, err := linalg.Inv(sq, gpuarr.On(nil)); return err }, gpuarr.ErrArgument, "gpuarr.On(nil)"},
		{"lstsq stack", func() error { _, _, _, _, err := linalg.Lstsq(stack2, vec, linalg.DefaultTol); return err }, gpuarr.ErrShape, "no stacks"},
		{"lstsq b", func() error { _, _, _, _, err := linalg.Lstsq(sq, stack2, linalg.DefaultTol); return err }, gpuarr.ErrShape, "want [3] or [3 k]"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.call()
			require.ErrorIs(t, err, tc.want)
			require.ErrorContains(t, err, tc.text)
			require.Contains(t, err.Error(), "linalg.")
		})
	}
}

// A numerical failure is an *Error naming the call and the matrix.
func TestErrorValues(t *testing.T) {
	a, err := gpuarr.FromSlice([]float32{4, 0, 0, 4, 1, 2, 2, 1}, gpuarr.Shape{2, 2, 2})
	require.NoError(t, err)
	defer a.Release()
	_, err = linalg.Cholesky(a, linalg.Upper)
	var e *linalg.Error
	require.True(t, errors.As(err, &e))
	assert.Equal(t, "linalg.Cholesky", e.Call)
	assert.Equal(t, []int{1}, e.Index)
	assert.Equal(t, 2, e.Info)
	assert.ErrorIs(t, err, linalg.ErrNotPositiveDefinite)
	assert.EqualError(t, err, "linalg.Cholesky: matrix [1] of the stack is not positive definite: its leading minor of order 2 is not")
	// Lstsq reports its own name for a failure inside its SVD.
	bad, err := gpuarr.FromSlice([]float64{1, math.NaN(), 3, 4}, gpuarr.Shape{2, 2})
	require.NoError(t, err)
	defer bad.Release()
	b, err := gpuarr.FromSlice([]float64{1, 1}, gpuarr.Shape{2})
	require.NoError(t, err)
	defer b.Release()
	_, _, _, _, err = linalg.Lstsq(bad, b, linalg.DefaultTol)
	require.ErrorIs(t, err, linalg.ErrNoConvergence)
	require.True(t, errors.As(err, &e))
	assert.Equal(t, "linalg.Lstsq", e.Call)
}

// Without cuSOLVER every routine that needs it fails with
// device.ErrNotSupported naming the library; HideSymbol("libcusolver")
// plays that machine on either backend.
func TestLibraryMissing(t *testing.T) {
	dev := testutil.Device(t)
	rng := rand.New(rand.NewPCG(2, 2))
	a, _ := randArray[float64](t, rng, gpuarr.Shape{4, 4}, 4)
	restore := dev.HideSymbol("libcusolver")
	_, err := linalg.Inv(a)
	_, _, err2 := linalg.Eigh(a, linalg.Lower)
	restore()
	for _, e := range []error{err, err2} {
		require.ErrorIs(t, e, device.ErrNotSupported)
		require.ErrorContains(t, e, "libcusolver.so.12")
	}
	x, err := linalg.Inv(a)
	require.NoError(t, err)
	x.Release()
}

// Batched routines give what one call per matrix gives.
func TestBatchedMatchesLooped(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 3))
	const count, n = 300, 12
	a, _ := randArray[float64](t, rng, gpuarr.Shape{count, n, n}, 6)
	b, _ := randArray[float64](t, rng, gpuarr.Shape{count, n, 2}, 0)
	x, err := linalg.Solve(a, b)
	require.NoError(t, err)
	defer x.Release()
	all, err := x.ToSlice()
	require.NoError(t, err)
	for _, i := range []int{0, 17, count - 1} {
		ai, err := a.Slice(i, i+1)
		require.NoError(t, err)
		bi, err := b.Slice(i, i+1)
		require.NoError(t, err)
		xi, err := linalg.Solve(ai, bi)
		require.NoError(t, err)
		got, err := xi.ToSlice()
		require.NoError(t, err)
		for j, v := range got {
			require.InDelta(t, v, all[i*n*2+j], 1e-11, "matrix %d element %d", i, j)
		}
		release(ai, bi, xi)
	}
}

func release(as ...*gpuarr.Array[float64]) {
	for _, a := range as {
		a.Release()
	}
}

// Goroutines on their own streams solve concurrently, with inputs
// written on other streams: tracking orders everything (run it with
// GPUARR_HOST_CHECK=1, which delays stream work at random).
func TestConcurrentStreams(t *testing.T) {
	dev := testutil.Device(t)
	const workers, n = 4, 24
	var wg sync.WaitGroup
	errs := make([]error, workers)
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[w] = func() error {
				rng := rand.New(rand.NewPCG(uint64(w), 9))
				producer, err := dev.NewStream()
				if err != nil {
					return err
				}
				defer producer.Close()
				s, err := dev.NewStream()
				if err != nil {
					return err
				}
				defer s.Close()
				for it := range 5 {
					// a = m·mᵀ + n·I written on the producer stream.
					vals := make([]float64, n*n)
					for i := range vals {
						vals[i] = rng.NormFloat64()
					}
					m, err := gpuarr.FromSlice(vals, gpuarr.Shape{n, n}, gpuarr.On(producer))
					if err != nil {
						return err
					}
					mt, err := m.Transpose()
					if err != nil {
						return err
					}
					prod, err := gpuarr.Matmul(m, mt, gpuarr.On(producer))
					if err != nil {
						return err
					}
					spd, err := gpuarr.Eval(gpuarr.Add[float64](prod, gpuarr.Scalar(float64(n))), gpuarr.On(producer))
					if err != nil {
						return err
					}
					l, err := linalg.Cholesky(spd, linalg.Lower, gpuarr.On(s))
					if err != nil {
						return err
					}
					lt, err := l.Transpose()
					if err != nil {
						return err
					}
					back, err := gpuarr.Matmul(l, lt, gpuarr.On(s))
					if err != nil {
						return err
					}
					got, err := back.ToSlice()
					if err != nil {
						return err
					}
					want, err := spd.ToSlice()
					if err != nil {
						return err
					}
					for i := range got {
						if math.Abs(got[i]-want[i]) > 1e-9*max(1, math.Abs(want[i])) {
							return fmt.Errorf("worker %d iteration %d: L·Lᵀ[%d] = %v, want %v", w, it, i, got[i], want[i])
						}
					}
					for _, x := range []*gpuarr.Array[float64]{m, mt, prod, spd, l, lt, back} {
						x.Release()
					}
				}
				return nil
			}()
		}()
	}
	wg.Wait()
	for _, err := range errs {
		require.NoError(t, err)
	}
}

// The libraries' workspaces are blocks of the device's caching pool,
// allocated on the operation's stream and given back when it is queued
// (so they count against the limits and the eager collection): the
// allocator's trace shows each as an allocation of exactly the size the
// library asks, freed before the call returns.
func TestWorkspacesFromThePool(t *testing.T) {
	dev := testutil.Device(t)
	tr := memory.DefaultTracer(dev)
	if tr == nil {
		t.Skip("the allocator's trace is off (GPUARR_MEMORY_TRACE=0)")
	}
	s := testutil.Stream(t, dev)
	rng := rand.New(rand.NewPCG(4, 4))
	const count, n = 3, 20
	a, _ := randArray[float64](t, rng, gpuarr.Shape{count, n, n}, 0)
	sym, err := gpuarr.Eval(gpuarr.Add[float64](a, a), gpuarr.On(s))
	require.NoError(t, err)
	defer sym.Release()
	mark := len(tr.Events())
	_, err = linalg.Eigvalsh(sym, linalg.Lower, gpuarr.On(s))
	require.NoError(t, err)
	w, err := gpuarr.Empty[float64](gpuarr.Shape{count, n}, gpuarr.On(s))
	require.NoError(t, err)
	defer w.Release()
	need, err := s.SolverWorkspace(&device.SolverCall{Op: device.SyevjBatched, Type: device.Float64, N: n, Batch: count,
		A: arrayhook.DevicePtr(sym), LDA: n, Vals: arrayhook.DevicePtr(w), Upper: true})
	require.NoError(t, err)
	if need > 0 {
		requireFreedBlock(t, tr.Events()[mark:], s, need)
	}

	if need := s.BLASWorkspace(); need > 0 {
		mark = len(tr.Events())
		ai, err := a.Slice(0, 1)
		require.NoError(t, err)
		defer ai.Release()
		m, err := ai.Reshape(gpuarr.Shape{n, n})
		require.NoError(t, err)
		defer m.Release()
		p, err := gpuarr.Matmul(m, m, gpuarr.On(s))
		require.NoError(t, err)
		p.Release()
		requireFreedBlock(t, tr.Events()[mark:], s, need)
	}
}

// requireFreedBlock finds among events an allocation on s of need bytes
// (rounded to the pool's 512-byte granule) and its free.
func requireFreedBlock(t *testing.T, events []memory.TraceEvent, s *device.Stream, need uint64) {
	t.Helper()
	size := (need + 511) &^ 511
	for i, e := range events {
		if e.Op != "alloc" || e.Level != memory.TraceBlock || e.Size != size || e.Stream != uint64(s.Handle()) {
			continue
		}
		for _, f := range events[i+1:] {
			if f.Op == "free" && f.Ptr == e.Ptr {
				return
			}
		}
	}
	t.Fatalf("no %d-byte block allocated and freed on the stream among %d events", size, len(events))
}

// The residual bound on larger systems made here (the goldens
// hold small ones): ‖a·x − b‖ / (‖a‖·‖x‖) ≤ n·ε, for one matrix and a
// stack, float32 and float64.
func TestSolveResidualLarge(t *testing.T) {
	t.Run("float32", func(t *testing.T) { solveResidual[float32](t, 0x1p-23) })
	t.Run("float64", func(t *testing.T) { solveResidual[float64](t, 0x1p-52) })
}

func solveResidual[T linalg.Float](t *testing.T, eps float64) {
	rng := rand.New(rand.NewPCG(5, 5))
	for _, sh := range []gpuarr.Shape{{300, 300}, {50, 40, 40}} {
		n := sh[len(sh)-1]
		a, av := randArray[T](t, rng, sh, 0)
		b, bv := randArray[T](t, rng, append(gpuarr.Shape{}, append(sh[:len(sh)-1:len(sh)-1], 1)...), 0)
		x, err := linalg.Solve(a, b)
		require.NoError(t, err)
		xv, err := x.ToSlice()
		require.NoError(t, err)
		x.Release()
		for m := range len(av) / (n * n) {
			var anorm, xnorm, rnorm float64
			for i := range n {
				row, r := 0.0, -bv[m*n+i]
				for j := range n {
					row += math.Abs(av[m*n*n+i*n+j])
					r += av[m*n*n+i*n+j] * float64(xv[m*n+j])
				}
				anorm, rnorm = max(anorm, row), max(rnorm, math.Abs(r))
				xnorm = max(xnorm, math.Abs(float64(xv[m*n+i])))
			}
			ratio := rnorm / (anorm * xnorm)
			require.LessOrEqual(t, ratio, float64(n)*eps, "shape %v matrix %d", sh, m)
		}
	}
}

// A capturing stream is refused with device.ErrStreamCapture, before any
// library call: they are not recorded into graphs.
func TestCaptureRefused(t *testing.T) {
	dev := testutil.Device(t)
	s := testutil.Stream(t, dev)
	rng := rand.New(rand.NewPCG(7, 7))
	a, _ := randArray[float32](t, rng, gpuarr.Shape{4, 4}, 4, gpuarr.On(s))
	require.NoError(t, s.Synchronize())
	require.NoError(t, s.BeginCapture())
	_, _, err := linalg.QR(a, linalg.Reduced, gpuarr.On(s))
	_, err2 := linalg.Det(a, gpuarr.On(s))
	g, endErr := s.EndCapture()
	require.NoError(t, endErr)
	if g != nil {
		require.NoError(t, g.Close())
	}
	for _, e := range []error{err, err2} {
		require.ErrorIs(t, e, device.ErrStreamCapture)
		require.ErrorContains(t, e, "not recorded into graphs")
	}
	require.ErrorContains(t, err, "linalg.QR")
}
