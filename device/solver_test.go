package device_test

import (
	"fmt"
	"math"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/require"

	"github.com/gpuarr/gpuarr/device"
	"github.com/gpuarr/gpuarr/device/dtype"
)

// The solver routines on device memory, column-major, on whichever device
// is selected (cuSOLVER and cuBLAS on a GPU, gonum on the host).

type solverEnv struct {
	t   *testing.T
	dev *device.Device
	s   *device.Stream
	typ device.DType
}

func newSolverEnv(t *testing.T, typ device.DType) solverEnv {
	dev := testDevice(t)
	return solverEnv{t, dev, newStream(t, dev), typ}
}

// up uploads v and returns its address. It waits for the upload: the
// memory is freed when the test ends, whatever the stream has queued.
func up[E any](e solverEnv, v []E) device.Ptr {
	var zero E
	p := alloc(e.t, e.dev, uint64(max(1, len(v)))*uint64(unsafe.Sizeof(zero)))
	require.NoError(e.t, device.Upload(e.s, p, v))
	require.NoError(e.t, e.s.Synchronize())
	return p
}

// vals uploads v as the env's element type.
func (e solverEnv) vals(v ...float64) device.Ptr {
	if e.typ == device.Float32 {
		f := make([]float32, len(v))
		for i, x := range v {
			f[i] = float32(x)
		}
		return up(e, f)
	}
	return up(e, v)
}

// mat uploads a column-major matrix given row by row.
func (e solverEnv) mat(rows [][]float64) device.Ptr {
	m, n := len(rows), len(rows[0])
	v := make([]float64, m*n)
	for i, r := range rows {
		for j, x := range r {
			v[j*m+i] = x
		}
	}
	return e.vals(v...)
}

func (e solverEnv) zeros(n int) device.Ptr { return e.vals(make([]float64, n)...) }

func (e solverEnv) get(p device.Ptr, n int) []float64 {
	out := make([]float64, n)
	if e.typ == device.Float32 {
		v := make([]float32, n)
		require.NoError(e.t, device.Download(e.s, v, p))
		for i, x := range v {
			out[i] = float64(x)
		}
		return out
	}
	require.NoError(e.t, device.Download(e.s, out, p))
	return out
}

func (e solverEnv) info(p device.Ptr, n int) []int32 {
	v := make([]int32, n)
	require.NoError(e.t, device.Download(e.s, v, p))
	return v
}

// run sizes the workspace, allocates it and queues c.
func (e solverEnv) run(c device.SolverCall) {
	e.t.Helper()
	c.Type = e.typ
	n, err := e.s.SolverWorkspace(&c)
	require.NoError(e.t, err)
	if n > 0 {
		c.Work, c.WorkBytes = alloc(e.t, e.dev, n), n
	}
	require.NoError(e.t, e.s.Solve(&c), "%v", &c)
}

func (e solverEnv) tol() float64 {
	if e.typ == device.Float32 {
		return 1e-5
	}
	return 1e-12
}

func near(t *testing.T, want, got []float64, tol float64, what string) {
	t.Helper()
	require.Len(t, got, len(want), what)
	for i := range want {
		require.InDelta(t, want[i], got[i], tol*max(1, math.Abs(want[i])), "%s[%d]: got %v, want %v", what, i, got, want)
	}
}

func testSolverRoutines(t *testing.T, typ device.DType) {
	e := newSolverEnv(t, typ)
	tol := e.tol()
	a3 := [][]float64{{2, 1, 1}, {4, -6, 0}, {-2, 7, 2}}

	t.Run("getrf+getrs", func(t *testing.T) {
		a, info, info2 := e.mat(a3), up(e, []int32{-9}), up(e, []int32{-9})
		ipiv := up(e, make([]int64, 3))
		b := e.mat([][]float64{{5, 1}, {-2, 2}, {9, 3}})
		e.run(device.SolverCall{Op: device.Getrf, M: 3, N: 3, A: a, LDA: 3, Ipiv: ipiv, Info: info})
		e.run(device.SolverCall{Op: device.Getrs, N: 3, NRHS: 2, A: a, LDA: 3, Ipiv: ipiv, B: b, LDB: 3, Info: info2})
		require.Equal(t, []int32{0}, e.info(info, 1))
		// x = (1, 1, 2) for the first column; the second solves a·x = (1, 2, 3).
		got := e.get(b, 6)
		near(t, []float64{1, 1, 2}, got[:3], tol, "x")
		x := got[3:]
		for i, r := range a3 {
			require.InDelta(t, []float64{1, 2, 3}[i], r[0]*x[0]+r[1]*x[1]+r[2]*x[2], 10*tol)
		}
		piv := make([]int64, 3)
		require.NoError(t, device.Download(e.s, piv, ipiv))
		require.Equal(t, int64(2), piv[0], "row 2 (|4|) is the first pivot, 1-based")
	})
	t.Run("getrf singular", func(t *testing.T) {
		a, info := e.mat([][]float64{{1, 2}, {2, 4}}), up(e, []int32{-9})
		e.run(device.SolverCall{Op: device.Getrf, M: 2, N: 2, A: a, LDA: 2, Ipiv: up(e, make([]int64, 2)), Info: info})
		require.Equal(t, []int32{2}, e.info(info, 1))
	})
	t.Run("getrs transposed", func(t *testing.T) {
		a, info := e.mat(a3), up(e, []int32{0})
		ipiv := up(e, make([]int64, 3))
		e.run(device.SolverCall{Op: device.Getrf, M: 3, N: 3, A: a, LDA: 3, Ipiv: ipiv, Info: info})
		// aᵀ·(1, 1, 1) = (4, 2, 3).
		b := e.vals(4, 2, 3)
		e.run(device.SolverCall{Op: device.Getrs, N: 3, NRHS: 1, Trans: true, A: a, LDA: 3, Ipiv: ipiv, B: b, LDB: 3, Info: up(e, []int32{0})})
		near(t, []float64{1, 1, 1}, e.get(b, 3), tol, "x")
	})
	spd := [][]float64{{4, 2, 0.4}, {2, 5, 1}, {0.4, 1, 3}}
	for _, upper := range []bool{false, true} {
		t.Run(fmt.Sprintf("potrf+potrs upper=%v", upper), func(t *testing.T) {
			a, info := e.mat(spd), up(e, []int32{-9})
			e.run(device.SolverCall{Op: device.Potrf, N: 3, Upper: upper, A: a, LDA: 3, Info: info})
			require.Equal(t, []int32{0}, e.info(info, 1))
			f := e.get(a, 9)
			// The factor's diagonal: sqrt(4) = 2 first.
			require.InDelta(t, 2, f[0], tol)
			b := e.vals(6.4, 8, 4.4) // spd·(1, 1, 1)
			e.run(device.SolverCall{Op: device.Potrs, N: 3, NRHS: 1, Upper: upper, A: a, LDA: 3, B: b, LDB: 3, Info: up(e, []int32{0})})
			near(t, []float64{1, 1, 1}, e.get(b, 3), 10*tol, "x")
		})
	}
	t.Run("potrf not positive definite", func(t *testing.T) {
		a, info := e.mat([][]float64{{1, 2}, {2, 1}}), up(e, []int32{-9})
		e.run(device.SolverCall{Op: device.Potrf, N: 2, A: a, LDA: 2, Info: info})
		require.Equal(t, []int32{2}, e.info(info, 1))
	})
	t.Run("geqrf+orgqr", func(t *testing.T) {
		rows := [][]float64{{1, 2}, {3, 4}, {5, 6}, {7, 9}}
		a, tau, info := e.mat(rows), e.zeros(2), up(e, []int32{-9})
		e.run(device.SolverCall{Op: device.Geqrf, M: 4, N: 2, A: a, LDA: 4, Vals: tau, Info: info})
		f := e.get(a, 8)
		r := [2][2]float64{{f[0], f[4]}, {0, f[5]}}
		e.run(device.SolverCall{Op: device.Orgqr, M: 4, N: 2, K: 2, A: a, LDA: 4, Vals: tau, Info: info})
		require.Equal(t, []int32{0}, e.info(info, 1))
		q := e.get(a, 8)
		for i := range 4 {
			for j := range 2 {
				got := q[i]*r[0][j] + q[4+i]*r[1][j]
				require.InDelta(t, rows[i][j], got, 100*tol, "(Q·R)[%d,%d]", i, j)
			}
		}
		for j := range 2 {
			for k := range 2 {
				dot := 0.0
				for i := range 4 {
					dot += q[j*4+i] * q[k*4+i]
				}
				require.InDelta(t, map[bool]float64{true: 1, false: 0}[j == k], dot, 10*tol)
			}
		}
	})
	t.Run("syevd", func(t *testing.T) {
		a, w, info := e.mat([][]float64{{2, 1}, {1, 2}}), e.zeros(2), up(e, []int32{-9})
		e.run(device.SolverCall{Op: device.Syevd, N: 2, Vectors: true, A: a, LDA: 2, Vals: w, Info: info})
		require.Equal(t, []int32{0}, e.info(info, 1))
		near(t, []float64{1, 3}, e.get(w, 2), tol, "w")
		v := e.get(a, 4)
		require.InDelta(t, 1/math.Sqrt2, math.Abs(v[2]), tol, "the eigenvector of 3 is (1, 1)/√2")
		require.InDelta(t, v[2], v[3], tol)
	})
	// diag(3, 2) padded: singular values 3 and 2.
	svdA := [][]float64{{0, 2}, {3, 0}, {0, 0}}
	t.Run("gesvd", func(t *testing.T) {
		a, s, info := e.mat(svdA), e.zeros(2), up(e, []int32{-9})
		u, vt := e.zeros(9), e.zeros(4)
		e.run(device.SolverCall{Op: device.Gesvd, M: 3, N: 2, Job: 'A', A: a, LDA: 3, Vals: s, U: u, LDU: 3, V: vt, LDV: 2, Info: info})
		require.Equal(t, []int32{0}, e.info(info, 1))
		near(t, []float64{3, 2}, e.get(s, 2), tol, "s")
		vtv := e.get(vt, 4)
		require.InDelta(t, 1, math.Abs(vtv[0]), tol, "VT's first row is ±e1")
	})
	for _, econ := range []bool{false, true} {
		t.Run(fmt.Sprintf("gesvdj econ=%v", econ), func(t *testing.T) {
			a, s, info := e.mat(svdA), e.zeros(2), up(e, []int32{-9})
			u, v := e.zeros(9), e.zeros(4)
			e.run(device.SolverCall{Op: device.Gesvdj, M: 3, N: 2, Vectors: true, Econ: econ, A: a, LDA: 3, Vals: s, U: u, LDU: 3, V: v, LDV: 2, Info: info})
			require.Equal(t, []int32{0}, e.info(info, 1))
			near(t, []float64{3, 2}, e.get(s, 2), tol, "s")
			vv := e.get(v, 4)
			require.InDelta(t, 1, math.Abs(vv[0]), tol, "V's first column is ±e1 (V, not Vᵀ)")
			uv := e.get(u, 6)
			require.InDelta(t, 1, math.Abs(uv[1]), tol, "U's first column is ±e2")
		})
	}
	t.Run("gesvdj values only", func(t *testing.T) {
		a, s, info := e.mat(svdA), e.zeros(2), up(e, []int32{-9})
		e.run(device.SolverCall{Op: device.Gesvdj, M: 3, N: 2, Econ: true, A: a, LDA: 3, Vals: s,
			U: e.zeros(6), LDU: 3, V: e.zeros(4), LDV: 2, Info: info})
		near(t, []float64{3, 2}, e.get(s, 2), tol, "s")
	})

	// Batches: two 2×2 systems, contiguous, addressed by pointer arrays.
	const n = 2
	es := uint64(typ.Size())
	batchA := func() device.Ptr {
		return e.vals(4, 1, 2, 3, 2, 0, 0, 5) // column-major [[4 2] [1 3]] and [[2 0] [0 5]]
	}
	ptrs := func(base device.Ptr, stride uint64) device.Ptr {
		return up(e, []uint64{uint64(base), uint64(base) + stride})
	}
	t.Run("getrf+getrsBatched", func(t *testing.T) {
		a, b := batchA(), e.vals(6, 4, 2, 5)
		ipiv, info := up(e, make([]int32, 2*n)), up(e, []int32{-9, -9})
		e.run(device.SolverCall{Op: device.GetrfBatched, N: n, Batch: 2, A: ptrs(a, 4*es), LDA: n, Ipiv: ipiv, Info: info})
		require.Equal(t, []int32{0, 0}, e.info(info, 2))
		e.run(device.SolverCall{Op: device.GetrsBatched, N: n, NRHS: 1, Batch: 2, A: ptrs(a, 4*es), LDA: n, Ipiv: ipiv, B: ptrs(b, 2*es), LDB: n})
		near(t, []float64{1, 1, 1, 1}, e.get(b, 4), tol, "x")
	})
	t.Run("getrfBatched singular second", func(t *testing.T) {
		a := e.vals(1, 0, 0, 1, 1, 2, 2, 4)
		info := up(e, []int32{-9, -9})
		e.run(device.SolverCall{Op: device.GetrfBatched, N: n, Batch: 2, A: ptrs(a, 4*es), LDA: n, Ipiv: up(e, make([]int32, 2*n)), Info: info})
		require.Equal(t, []int32{0, 2}, e.info(info, 2))
	})
	t.Run("potrf+potrsBatched", func(t *testing.T) {
		a, b := batchA(), e.vals(4, 4, 2, 5) // symmetric use: lower triangles [[4 1] [1 3]] and [[2 0] [0 5]]
		info := up(e, []int32{-9, -9})
		e.run(device.SolverCall{Op: device.PotrfBatched, N: n, Batch: 2, A: ptrs(a, 4*es), LDA: n, Info: info})
		require.Equal(t, []int32{0, 0}, e.info(info, 2))
		e.run(device.SolverCall{Op: device.PotrsBatched, N: n, NRHS: 1, Batch: 2, A: ptrs(a, 4*es), LDA: n, B: ptrs(b, 2*es), LDB: n, Info: up(e, []int32{0})})
		got := e.get(b, 4)
		// [[4 1] [1 3]]·x = (4, 4): x = (8/11, 12/11); [[2 0] [0 5]]·x = (2, 5): x = (1, 1).
		near(t, []float64{8.0 / 11, 12.0 / 11, 1, 1}, got, 10*tol, "x")
	})
	t.Run("syevjBatched", func(t *testing.T) {
		a, w, info := e.vals(2, 1, 1, 2, 5, 0, 0, -1), e.zeros(2*n), up(e, []int32{-9, -9})
		e.run(device.SolverCall{Op: device.SyevjBatched, N: n, Batch: 2, Vectors: true, A: a, LDA: n, Vals: w, Info: info})
		require.Equal(t, []int32{0, 0}, e.info(info, 2))
		near(t, []float64{1, 3, -1, 5}, e.get(w, 4), 10*tol, "w")
	})
	t.Run("gesvdjBatched", func(t *testing.T) {
		a, s, info := e.vals(0, 3, 2, 0, 1, 0, 0, 1), e.zeros(2*n), up(e, []int32{-9, -9})
		u, v := e.zeros(2*n*n), e.zeros(2*n*n)
		e.run(device.SolverCall{Op: device.GesvdjBatched, M: n, N: n, Batch: 2, Vectors: true, A: a, LDA: n, Vals: s, U: u, LDU: n, V: v, LDV: n, Info: info})
		require.Equal(t, []int32{0, 0}, e.info(info, 2))
		near(t, []float64{3, 2, 1, 1}, e.get(s, 4), 10*tol, "s")
	})
}

func TestSolverRoutinesFloat32(t *testing.T) { testSolverRoutines(t, device.Float32) }
func TestSolverRoutinesFloat64(t *testing.T) { testSolverRoutines(t, device.Float64) }

// Calls the libraries would reject or misread fail before reaching them,
// with ErrInvalidValue naming what is wrong.
func TestSolverChecks(t *testing.T) {
	e := newSolverEnv(t, device.Float64)
	a, info := e.zeros(16), up(e, []int32{0})
	ok := device.SolverCall{Op: device.Potrf, Type: device.Float64, N: 4, A: a, LDA: 4, Info: info}
	for _, tc := range []struct {
		name string
		edit func(c *device.SolverCall)
		want string
	}{
		{"unknown routine", func(c *device.SolverCall) { c.Op = 99 }, "routine"},
		{"element type", func(c *device.SolverCall) { c.Type = 0 }, "element type"},
		{"integer element type", func(c *device.SolverCall) { c.Type = dtype.Int32 }, "element type int32: want Float32 or Float64"},
		{"negative size", func(c *device.SolverCall) { c.N = -1 }, "N=-1"},
		{"short leading dimension", func(c *device.SolverCall) { c.LDA = 3 }, "LDA=3"},
		{"null matrix", func(c *device.SolverCall) { c.A = 0 }, "A is a null pointer"},
		{"null info", func(c *device.SolverCall) { c.Info = 0 }, "Info is a null pointer"},
		{"workspace without memory", func(c *device.SolverCall) { c.WorkBytes = 64 }, "null pointer"},
		{"orgqr shape", func(c *device.SolverCall) {
			*c = device.SolverCall{Op: device.Orgqr, Type: device.Float64, M: 2, N: 4, K: 1, A: a, LDA: 2, Info: info}
		}, "M ≥ N ≥ K"},
		{"gesvd wide", func(c *device.SolverCall) {
			*c = device.SolverCall{Op: device.Gesvd, Type: device.Float64, M: 2, N: 4, Job: 'N', A: a, LDA: 2, Info: info}
		}, "M ≥ N"},
		{"gesvd job", func(c *device.SolverCall) {
			*c = device.SolverCall{Op: device.Gesvd, Type: device.Float64, M: 4, N: 4, Job: 'X', A: a, LDA: 4, Vals: a, Info: info}
		}, "Job"},
		{"syevjBatched size", func(c *device.SolverCall) {
			*c = device.SolverCall{Op: device.SyevjBatched, Type: device.Float64, N: 33, Batch: 1, A: a, LDA: 33, Info: info}
		}, "at most 32"},
		{"gesvdj without U", func(c *device.SolverCall) {
			*c = device.SolverCall{Op: device.Gesvdj, Type: device.Float64, M: 4, N: 4, A: a, LDA: 4, Vals: a, LDU: 4, V: a, LDV: 4, Info: info}
		}, "U is a null pointer"},
		{"potrsBatched columns", func(c *device.SolverCall) {
			*c = device.SolverCall{Op: device.PotrsBatched, Type: device.Float64, N: 2, NRHS: 2, Batch: 1, A: a, LDA: 2, B: a, LDB: 2, Info: info}
		}, "one right-hand side"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := ok
			tc.edit(&c)
			err := e.s.Solve(&c)
			require.ErrorIs(t, err, device.ErrInvalidValue)
			require.ErrorContains(t, err, tc.want)
		})
	}
	require.ErrorIs(t, e.s.Solve(nil), device.ErrInvalidValue)
	// An empty matrix is nothing to do.
	require.NoError(t, e.s.Solve(&device.SolverCall{Op: device.Potrf, Type: device.Float64, N: 0, LDA: 1}))
}

// A workspace shorter than the query says is refused, not overrun.
func TestSolverShortWorkspace(t *testing.T) {
	e := newSolverEnv(t, device.Float64)
	c := device.SolverCall{Op: device.Getrf, Type: device.Float64, M: 64, N: 64, A: e.zeros(64 * 64), LDA: 64,
		Ipiv: up(e, make([]int64, 64)), Info: up(e, []int32{0})}
	need, err := e.s.SolverWorkspace(&c)
	require.NoError(t, err)
	if need == 0 {
		t.Skipf("%s's getrf takes no workspace for 64×64", e.dev)
	}
	c.Work, c.WorkBytes = alloc(t, e.dev, need), need-8
	require.ErrorIs(t, e.s.Solve(&c), device.ErrInvalidValue)
}

// Without cuSOLVER the solver routines fail with ErrNotSupported naming
// the library; HideSymbol("libcusolver") plays that machine on either
// backend. The batched LU routines are cuBLAS's and answer to
// HideSymbol("libcublas") instead.
func TestSolverLibraryMissing(t *testing.T) {
	e := newSolverEnv(t, device.Float64)
	c := device.SolverCall{Op: device.Potrf, Type: device.Float64, N: 2, A: e.mat([][]float64{{4, 0}, {0, 9}}), LDA: 2, Info: up(e, []int32{-9})}
	restore := e.dev.HideSymbol("libcusolver")
	_, err := e.s.SolverWorkspace(&c)
	require.ErrorIs(t, err, device.ErrNotSupported)
	require.ErrorContains(t, err, "libcusolver.so.12")
	err = e.s.Solve(&c)
	require.ErrorIs(t, err, device.ErrNotSupported)
	lu := device.SolverCall{Op: device.GetrfBatched, Type: device.Float64, N: 2, Batch: 1,
		A: up(e, []uint64{uint64(c.A)}), LDA: 2, Ipiv: up(e, make([]int32, 2)), Info: up(e, []int32{-9})}
	e.run(lu) // cuBLAS is still there
	restore()
	e.run(c)
	require.Equal(t, []int32{0}, e.info(c.Info, 1))

	restore = e.dev.HideSymbol("libcublas")
	defer restore()
	require.ErrorIs(t, e.s.Solve(&lu), device.ErrNotSupported)
}

// A Gemm given a workspace computes the same product; one claiming a
// workspace without memory is refused.
func TestGemmWorkspace(t *testing.T) {
	e := newSolverEnv(t, device.Float64)
	a := e.mat([][]float64{{1, 2}, {3, 4}})
	c := e.zeros(4)
	g := device.Gemm{Type: device.Float64, M: 2, N: 2, K: 2, Alpha: 1, A: a, LDA: 2, B: a, LDB: 2, C: c, LDC: 2}
	if n := e.s.BLASWorkspace(); n > 0 {
		g.Work, g.WorkBytes = alloc(t, e.dev, n), n
	}
	require.NoError(t, e.s.Gemm(g))
	near(t, []float64{7, 15, 10, 22}, e.get(c, 4), 1e-12, "c")
	g.Work, g.WorkBytes = 0, 64
	require.ErrorIs(t, e.s.Gemm(g), device.ErrInvalidValue)
}
