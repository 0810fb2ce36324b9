package gpuarr

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gpuarr/gpuarr/device"
)

// These tests are internal: transposed and pitched operands are built
// with mmStrided until the package has its own strided views.

func mmDevice(t *testing.T) *device.Device {
	t.Helper()
	dev, err := device.Default()
	require.NoError(t, err)
	return dev
}

// mmRand is rows×cols random non-zero values, row-major, as float64.
func mmRand(rng *rand.Rand, rows, cols int) []float64 {
	v := make([]float64, rows*cols)
	for i := range v {
		v[i] = (0.5 + rng.Float64()) * float64(1-2*rng.IntN(2))
	}
	return v
}

func mmArray[T Float](t *testing.T, v []float64, sh Shape, opts ...Option) *Array[T] {
	t.Helper()
	data := make([]T, len(v))
	for i, x := range v {
		data[i] = T(x)
	}
	a, err := FromSlice(data, sh, opts...)
	require.NoError(t, err)
	t.Cleanup(func() { _ = a.Release() })
	return a
}

// mmRef is the row-major product of a [m k] and a [k n] matrix in
// float64, and for each element the sum of |products|, which bounds its
// rounding error.
func mmRef(a, b []float64, m, k, n int) (c, bound []float64) {
	c, bound = make([]float64, m*n), make([]float64, m*n)
	for i := range m {
		for j := range n {
			for l := range k {
				p := a[i*k+l] * b[l*n+j]
				c[i*n+j] += p
				bound[i*n+j] += math.Abs(p)
			}
		}
	}
	return c, bound
}

func mmTranspose(v []float64, rows, cols int) []float64 {
	out := make([]float64, len(v))
	for i := range rows {
		for j := range cols {
			out[j*rows+i] = v[i*cols+j]
		}
	}
	return out
}

// mmStrided is a view of a's buffer with shape sh and strides st.
func mmStrided[T Float](t *testing.T, a *Array[T], sh Shape, st []int) *Array[T] {
	t.Helper()
	v, err := a.stridedView("test", 0, sh, st)
	require.NoError(t, err)
	t.Cleanup(func() { _ = v.Release() })
	return v
}

func mmCheck[T Float](t *testing.T, c *Array[T], want, bound []float64, m, n int, tol float64) {
	t.Helper()
	require.Equal(t, Shape{m, n}, c.Shape())
	got, err := c.ToSlice()
	require.NoError(t, err)
	require.Len(t, got, m*n)
	for i := range got {
		require.InDelta(t, want[i], float64(got[i]), tol*bound[i], "C[%d,%d]", i/max(1, n), i%max(1, n))
	}
}

var mmShapes = []struct{ m, k, n int }{
	{1, 1, 1}, {2, 3, 4}, {1, 7, 5}, {5, 7, 1}, {1, 9, 1}, {17, 33, 9}, {64, 64, 64}, {3, 130, 70},
}

func testMatmul[T Float](t *testing.T, tol float64) {
	rng := rand.New(rand.NewPCG(7, 8))
	for _, sh := range mmShapes {
		t.Run(fmt.Sprintf("%dx%dx%d", sh.m, sh.k, sh.n), func(t *testing.T) {
			av, bv := mmRand(rng, sh.m, sh.k), mmRand(rng, sh.k, sh.n)
			a, b := mmArray[T](t, av, Shape{sh.m, sh.k}), mmArray[T](t, bv, Shape{sh.k, sh.n})
			want, bound := mmRef(av, bv, sh.m, sh.k, sh.n)

			c, err := Matmul(a, b)
			require.NoError(t, err)
			t.Cleanup(func() { _ = c.Release() })
			require.Equal(t, a.Device(), c.Device())
			mmCheck(t, c, want, bound, sh.m, sh.n, tol)

			into := mmArray[T](t, mmRand(rng, sh.m, sh.n), Shape{sh.m, sh.n})
			require.NoError(t, MatmulInto(into, a, b))
			mmCheck(t, into, want, bound, sh.m, sh.n, tol)
		})
	}
}

func TestMatmulFloat32(t *testing.T) { testMatmul[float32](t, 1e-5) }
func TestMatmulFloat64(t *testing.T) { testMatmul[float64](t, 1e-13) }

// TF32 is accepted; its products keep about 10 bits of mantissa.
func TestMatmulTF32(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	const m, k, n = 96, 200, 80
	av, bv := mmRand(rng, m, k), mmRand(rng, k, n)
	want, bound := mmRef(av, bv, m, k, n)
	c, err := Matmul(mmArray[float32](t, av, Shape{m, k}), mmArray[float32](t, bv, Shape{k, n}), TF32())
	require.NoError(t, err)
	defer c.Release()
	mmCheck(t, c, want, bound, m, n, 5e-3)

	// float64 ignores it.
	c64, err := Matmul(mmArray[float64](t, av, Shape{m, k}), mmArray[float64](t, bv, Shape{k, n}), TF32())
	require.NoError(t, err)
	defer c64.Release()
	mmCheck(t, c64, want, bound, m, n, 1e-13)
}

// Transposed views (strides {1, rows}) and views with a row pitch read
// their memory in place; a transposed result is written in place too.
func TestMatmulStridedOperands(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	const m, k, n = 6, 5, 7
	av, bv := mmRand(rng, m, k), mmRand(rng, k, n)
	want, bound := mmRef(av, bv, m, k, n)

	// aT holds Aᵀ ([k m]); its transposed view is A.
	aT := mmArray[float32](t, mmTranspose(av, m, k), Shape{k, m})
	bT := mmArray[float32](t, mmTranspose(bv, k, n), Shape{n, k})
	aView := mmStrided(t, aT, Shape{m, k}, []int{1, m})
	bView := mmStrided(t, bT, Shape{k, n}, []int{1, k})
	a := mmArray[float32](t, av, Shape{m, k})
	b := mmArray[float32](t, bv, Shape{k, n})

	// A inside a wider array: rows 9 apart.
	const pitch = 9
	wide := make([]float64, m*pitch)
	for i := range m {
		copy(wide[i*pitch:], av[i*k:(i+1)*k])
	}
	aPitched := mmStrided(t, mmArray[float32](t, wide, Shape{m, pitch}), Shape{m, k}, []int{pitch, 1})

	for name, ops := range map[string][2]*Array[float32]{
		"aT": {aView, b}, "bT": {a, bView}, "both": {aView, bView}, "pitched": {aPitched, bView},
	} {
		t.Run(name, func(t *testing.T) {
			c, err := Matmul(ops[0], ops[1])
			require.NoError(t, err)
			defer c.Release()
			mmCheck(t, c, want, bound, m, n, 1e-5)
		})
	}

	t.Run("transposed result", func(t *testing.T) {
		cT, err := Zeros[float32](Shape{n, m})
		require.NoError(t, err)
		defer cT.Release()
		cView := mmStrided(t, cT, Shape{m, n}, []int{1, m})
		require.NoError(t, MatmulInto(cView, a, bView))
		got, err := cT.ToSlice()
		require.NoError(t, err)
		wantT, boundT := mmTranspose(want, m, n), mmTranspose(bound, m, n)
		for i := range got {
			require.InDelta(t, wantT[i], float64(got[i]), 1e-5*boundT[i], "Cᵀ element %d", i)
		}
	})

	t.Run("other strides", func(t *testing.T) {
		// Every other column of a [m 2k] matrix: compacted, then multiplied.
		full := mmRand(rng, m, 2*k)
		every2nd := mmStrided(t, mmArray[float32](t, full, Shape{m, 2 * k}), Shape{m, k}, []int{2 * k, 2})
		ev := make([]float64, m*k)
		for i := range m {
			for j := range k {
				ev[i*k+j] = full[i*2*k+2*j]
			}
		}
		want, bound := mmRef(ev, bv, m, k, n)
		c, err := Matmul(every2nd, b)
		require.NoError(t, err)
		defer c.Release()
		mmCheck(t, c, want, bound, m, n, 1e-5)
	})
}

// Empty extents: an m×0 or 0×n result holds nothing; k = 0 gives zeros.
func TestMatmulEmpty(t *testing.T) {
	for _, sh := range []struct{ m, k, n int }{{0, 3, 4}, {3, 4, 0}, {3, 0, 4}} {
		t.Run(fmt.Sprintf("%dx%dx%d", sh.m, sh.k, sh.n), func(t *testing.T) {
			a, err := Zeros[float32](Shape{sh.m, sh.k})
			require.NoError(t, err)
			defer a.Release()
			b, err := Zeros[float32](Shape{sh.k, sh.n})
			require.NoError(t, err)
			defer b.Release()
			c, err := Full[float32](Shape{sh.m, sh.n}, 7)
			require.NoError(t, err)
			defer c.Release()
			require.NoError(t, MatmulInto(c, a, b))
			got, err := c.ToSlice()
			require.NoError(t, err)
			require.Equal(t, make([]float32, sh.m*sh.n), got)
		})
	}
}

func TestMatmulErrors(t *testing.T) {
	a := mmArray[float32](t, make([]float64, 6), Shape{2, 3})
	b := mmArray[float32](t, make([]float64, 8), Shape{4, 2})
	v := mmArray[float32](t, make([]float64, 3), Shape{3})

	_, err := Matmul(a, b)
	require.ErrorIs(t, err, ErrShape)
	require.ErrorContains(t, err, "[2 3]")
	require.ErrorContains(t, err, "[4 2]")

	_, err = Matmul(b, v)
	require.ErrorIs(t, err, ErrShape)
	require.ErrorContains(t, err, "2 columns do not match b's 3 rows")

	_, err = Matmul(nil, b)
	require.ErrorIs(t, err, ErrArgument)

	bt := mmArray[float32](t, make([]float64, 6), Shape{3, 2})
	c := mmArray[float32](t, make([]float64, 6), Shape{3, 2})
	err = MatmulInto(c, a, bt)
	require.ErrorIs(t, err, ErrShape, "result should be [2 2]")
	require.ErrorContains(t, err, "[2 2]")

	sq := mmArray[float32](t, make([]float64, 4), Shape{2, 2})
	require.ErrorIs(t, MatmulInto(sq, sq, sq), ErrArgument, "result aliasing an operand")

	released := mmArray[float32](t, make([]float64, 6), Shape{3, 2})
	require.NoError(t, released.Release())
	_, err = Matmul(a, released)
	require.ErrorIs(t, err, ErrReleased)
	out := mmArray[float32](t, make([]float64, 4), Shape{2, 2})
	require.NoError(t, out.Release())
	require.ErrorIs(t, MatmulInto(out, a, bt), ErrReleased)
}

// On another stream, Matmul waits for the uploads of its operands and a
// read on the host waits for it: the tracking orders them.
func TestMatmulOnStream(t *testing.T) {
	dev := mmDevice(t)
	s, err := dev.NewStream()
	require.NoError(t, err)
	defer s.Close()
	rng := rand.New(rand.NewPCG(13, 14))
	const m, k, n = 40, 30, 20
	av, bv := mmRand(rng, m, k), mmRand(rng, k, n)
	want, bound := mmRef(av, bv, m, k, n)
	for range 5 {
		c, err := Matmul(mmArray[float64](t, av, Shape{m, k}), mmArray[float64](t, bv, Shape{k, n}), On(s))
		require.NoError(t, err)
		mmCheck(t, c, want, bound, m, n, 1e-13)
		require.NoError(t, c.Release())
	}
}

// Without cuBLAS, Matmul fails with ErrNotSupported naming the library;
// HideSymbol("libcublas") plays that machine on either backend.
func TestMatmulLibraryMissing(t *testing.T) {
	dev := mmDevice(t)
	a := mmArray[float32](t, []float64{1, 2, 3, 4}, Shape{2, 2})
	restore := dev.HideSymbol("libcublas")
	_, err := Matmul(a, a)
	restore()
	require.ErrorIs(t, err, device.ErrNotSupported)
	require.ErrorContains(t, err, "libcublas.so.13 or libcublas.so.12")

	c, err := Matmul(a, a)
	require.NoError(t, err)
	defer c.Release()
	got, err := c.ToSlice()
	require.NoError(t, err)
	require.Equal(t, []float32{7, 10, 15, 22}, got)
}

const mmScaleSource = `
extern "C" __global__ void gpuarr_test_scale_add(float *y, const float *x, float a, unsigned long long n) {
	for (unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x; i < n;
	     i += (unsigned long long)gridDim.x * blockDim.x) {
		y[i] = a * x[i] + 1.0f;
	}
}
`

// CUDA C compiled with NVRTC runs through Launch like any kernel.
func TestLaunchCUDASource(t *testing.T) {
	dev := mmDevice(t)
	if dev.Backend() != "cuda" {
		t.Skip("CUDA C needs a CUDA device with NVRTC; TestLaunchCUDASourceHost covers the host device")
	}
	mod, err := dev.LoadCUDA(mmScaleSource)
	require.NoError(t, err)
	defer mod.Close()
	k, err := mod.Kernel("gpuarr_test_scale_add")
	require.NoError(t, err)

	const n = 5000
	xv := make([]float64, n)
	for i := range xv {
		xv[i] = float64(i)
	}
	x := mmArray[float32](t, xv, Shape{n})
	y, err := Empty[float32](Shape{n})
	require.NoError(t, err)
	defer y.Release()
	require.NoError(t, Launch(k, device.Linear(n, 256), Out(y), In(x), float32(3), uint64(n)))
	got, err := y.ToSlice()
	require.NoError(t, err)
	for i, v := range got {
		require.Equal(t, 3*float32(i)+1, v, "y[%d]", i)
	}

	_, err = dev.LoadCUDA(`extern "C" __global__ void bad(float *y) { y[0] = not_declared; }`)
	require.ErrorIs(t, err, device.ErrCompile)
	require.ErrorContains(t, err, "not_declared")
}

func TestLaunchCUDASourceHost(t *testing.T) {
	dev := mmDevice(t)
	if dev.Backend() != "host" {
		t.Skip("the host device's answer; TestLaunchCUDASource covers CUDA")
	}
	_, err := dev.LoadCUDA(mmScaleSource)
	require.ErrorIs(t, err, device.ErrNotSupported)
}
