package linalg_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
	"gonum.org/v1/gonum/mat"

	"github.com/gpuarr/gpuarr/gpuarr"
	"github.com/gpuarr/gpuarr/linalg"
)

// The gonum cross-check: the same float64 matrices through linalg (on
// the selected device) and through gonum's mat on the CPU agree.

func dense(v []float64, r, c int) *mat.Dense { return mat.NewDense(r, c, append([]float64(nil), v...)) }

func requireMatClose(t *testing.T, what string, want mat.Matrix, got []float64, tol float64) {
	t.Helper()
	r, c := want.Dims()
	require.Len(t, got, r*c, what)
	scale := 1.0
	for i := range r {
		for j := range c {
			scale = max(scale, math.Abs(want.At(i, j)))
		}
	}
	for i := range r {
		for j := range c {
			require.InDelta(t, want.At(i, j), got[i*c+j], tol*scale, "%s[%d,%d]", what, i, j)
		}
	}
}

func get(t *testing.T, a *gpuarr.Array[float64]) []float64 {
	t.Helper()
	v, err := a.ToSlice()
	require.NoError(t, err)
	a.Release()
	return v
}

func TestGonumCrossCheck(t *testing.T) {
	rng := rand.New(rand.NewPCG(6, 6))
	const n, m = 40, 64
	a, av := randArray[float64](t, rng, gpuarr.Shape{n, n}, 8)
	b, bv := randArray[float64](t, rng, gpuarr.Shape{n, 3}, 0)
	ga, gb := dense(av, n, n), dense(bv, n, 3)
	const tol = 1e-10

	t.Run("Solve", func(t *testing.T) {
		x, err := linalg.Solve(a, b)
		require.NoError(t, err)
		var want mat.Dense
		require.NoError(t, want.Solve(ga, gb))
		requireMatClose(t, "x", &want, get(t, x), tol)
	})
	t.Run("Inv", func(t *testing.T) {
		x, err := linalg.Inv(a)
		require.NoError(t, err)
		var want mat.Dense
		require.NoError(t, want.Inverse(ga))
		requireMatClose(t, "inv", &want, get(t, x), tol)
	})
	t.Run("Det", func(t *testing.T) {
		d, err := linalg.Det(a)
		require.NoError(t, err)
		got, err := d.Item()
		require.NoError(t, err)
		d.Release()
		want := mat.Det(ga)
		require.InDelta(t, want, got, 1e-9*math.Abs(want))
	})
	// a·aᵀ + n·I is symmetric positive definite.
	var spd mat.SymDense
	spd.SymOuterK(1, ga)
	for i := range n {
		spd.SetSym(i, i, spd.At(i, i)+n)
	}
	sv := make([]float64, n*n)
	for i := range n {
		for j := range n {
			sv[i*n+j] = spd.At(i, j)
		}
	}
	s, err := gpuarr.FromSlice(sv, gpuarr.Shape{n, n})
	require.NoError(t, err)
	defer s.Release()
	t.Run("Cholesky", func(t *testing.T) {
		l, err := linalg.Cholesky(s, linalg.Lower)
		require.NoError(t, err)
		var ch mat.Cholesky
		require.True(t, ch.Factorize(&spd))
		var want mat.TriDense
		ch.LTo(&want)
		requireMatClose(t, "L", &want, get(t, l), tol)
	})
	t.Run("Eigh", func(t *testing.T) {
		w, err := linalg.Eigvalsh(s, linalg.Lower)
		require.NoError(t, err)
		var es mat.EigenSym
		require.True(t, es.Factorize(&spd, false))
		requireMatClose(t, "w", mat.NewVecDense(n, es.Values(nil)), get(t, w), tol)
	})
	tall, tv := randArray[float64](t, rng, gpuarr.Shape{m, n}, 0)
	gt := dense(tv, m, n)
	t.Run("SVD", func(t *testing.T) {
		sv, err := linalg.SVDVals(tall)
		require.NoError(t, err)
		var svd mat.SVD
		require.True(t, svd.Factorize(gt, mat.SVDNone))
		requireMatClose(t, "s", mat.NewVecDense(n, svd.Values(nil)), get(t, sv), tol)
	})
	t.Run("QR", func(t *testing.T) {
		_, r, err := linalg.QR(tall, linalg.ROnly)
		require.NoError(t, err)
		var qr mat.QR
		qr.Factorize(gt)
		var want mat.Dense
		qr.RTo(&want)
		got := get(t, r)
		// Rows are unique up to sign.
		for i := range n {
			if (got[i*n+i] < 0) != (want.At(i, i) < 0) {
				for j := range n {
					got[i*n+j] = -got[i*n+j]
				}
			}
		}
		requireMatClose(t, "R", want.Slice(0, n, 0, n), got, tol)
	})
	t.Run("Lstsq", func(t *testing.T) {
		y, yv := randArray[float64](t, rng, gpuarr.Shape{m, 2}, 0)
		x, _, rank, sv, err := linalg.Lstsq(tall, y, linalg.DefaultTol)
		require.NoError(t, err)
		sv.Release()
		require.Equal(t, n, rank)
		var want mat.Dense
		require.NoError(t, want.Solve(gt, dense(yv, m, 2)))
		requireMatClose(t, "x", &want, get(t, x), tol)
	})
}
