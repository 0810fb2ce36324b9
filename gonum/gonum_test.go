package gonum_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas32"
	"gonum.org/v1/gonum/blas/blas64"
	native "gonum.org/v1/gonum/blas/gonum"
	"gonum.org/v1/gonum/mat"

	"github.com/gpuarr/gpuarr/gonum"
	"github.com/gpuarr/gpuarr/gpuarr"
	"github.com/gpuarr/gpuarr/internal/testutil"
	"github.com/gpuarr/gpuarr/unified"
)

func randDense(rng *rand.Rand, r, c int) *mat.Dense {
	v := make([]float64, r*c)
	for i := range v {
		v[i] = rng.NormFloat64()
	}
	return mat.NewDense(r, c, v)
}

func TestConversions(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	big := randDense(rng, 6, 7)
	sub := big.Slice(1, 5, 2, 6).(*mat.Dense) // a view with stride 7
	a, err := gonum.FromDense(sub)
	require.NoError(t, err)
	defer a.Release()
	require.Equal(t, gpuarr.Shape{4, 4}, a.Shape())
	back, err := gonum.ToDense(a)
	require.NoError(t, err)
	require.True(t, mat.Equal(sub, back))

	g32 := blas32.General{Rows: 2, Cols: 3, Stride: 4, Data: []float32{1, 2, 3, -1, 4, 5, 6}}
	a32, err := gonum.FromGeneral32(g32)
	require.NoError(t, err)
	defer a32.Release()
	out32, err := gonum.ToGeneral32(a32)
	require.NoError(t, err)
	require.Equal(t, blas32.General{Rows: 2, Cols: 3, Stride: 3, Data: []float32{1, 2, 3, 4, 5, 6}}, out32)
	out64, err := gonum.ToGeneral(a)
	require.NoError(t, err)
	require.Equal(t, 4, out64.Stride)

	_, err = gonum.FromDense(nil)
	require.ErrorIs(t, err, gpuarr.ErrArgument)
	_, err = gonum.FromGeneral(blas64.General{Rows: 2, Cols: 3, Stride: 2, Data: make([]float64, 6)})
	require.ErrorIs(t, err, gpuarr.ErrArgument)
	v, err := gpuarr.Zeros[float64](gpuarr.Shape{2, 2, 2})
	require.NoError(t, err)
	defer v.Release()
	_, err = gonum.ToDense(v)
	require.ErrorIs(t, err, gpuarr.ErrShape)
	e, err := gpuarr.Zeros[float64](gpuarr.Shape{0, 3})
	require.NoError(t, err)
	defer e.Release()
	_, err = gonum.ToDense(e)
	require.ErrorIs(t, err, gpuarr.ErrShape)
}

// A lent matrix is the array's memory: it sees the GPU's writes (the
// loan waits for them) and the GPU sees its CPU writes.
func TestBorrowSharesMemory(t *testing.T) {
	dev := testutil.Device(t)
	s := testutil.Stream(t, dev)
	a, err := unified.Zeros[float64](gpuarr.Shape{3, 4})
	require.NoError(t, err)
	defer a.Release()
	// A GPU write on another stream, pending when the loan starts.
	require.NoError(t, gpuarr.EvalInto(a, gpuarr.Scalar(2.5), gpuarr.On(s)))
	err = gonum.Borrow(a, func(m *mat.Dense) error {
		r, c := m.Dims()
		require.Equal(t, [2]int{3, 4}, [2]int{r, c})
		require.Equal(t, 2.5, m.At(2, 3))
		m.Set(1, 2, 7)
		return nil
	})
	require.NoError(t, err)
	sum, err := gpuarr.Sum(a)
	require.NoError(t, err)
	defer sum.Release()
	got, err := sum.Item()
	require.NoError(t, err)
	require.Equal(t, 11*2.5+7, got)

	require.NoError(t, gonum.BorrowGeneral(a, func(g blas64.General) error {
		require.Equal(t, 7.0, g.Data[1*g.Stride+2])
		return nil
	}))
	b32, err := unified.FromSlice([]float32{1, 2, 3, 4}, gpuarr.Shape{2, 2})
	require.NoError(t, err)
	defer b32.Release()
	require.NoError(t, gonum.BorrowGeneral32(b32, func(g blas32.General) error {
		require.Equal(t, float32(4), g.Data[3])
		return nil
	}))
}

func TestBorrowRefuses(t *testing.T) {
	dev, err := gpuarr.Zeros[float64](gpuarr.Shape{2, 2})
	require.NoError(t, err)
	defer dev.Release()
	called := false
	f := func(*mat.Dense) error { called = true; return nil }
	// gpuarr's own arrays are device memory, unless unified memory is
	// the default (GPUARR_DEFAULT_MEMORY=unified): then they lend too.
	mem, err := dev.Memory()
	require.NoError(t, err)
	if mem == gpuarr.UnifiedMemory {
		require.NoError(t, gonum.Borrow(dev, f))
		require.True(t, called, "a unified array by default lends its matrix")
		called = false
	} else {
		require.ErrorIs(t, gonum.Borrow(dev, f), unified.ErrNotManaged)
	}
	u, err := unified.Zeros[float64](gpuarr.Shape{4, 3})
	require.NoError(t, err)
	defer u.Release()
	ut, err := u.Transpose()
	require.NoError(t, err)
	defer ut.Release()
	require.ErrorIs(t, gonum.Borrow(ut, f), gpuarr.ErrShape)
	flat, err := unified.Zeros[float64](gpuarr.Shape{12})
	require.NoError(t, err)
	defer flat.Release()
	require.ErrorIs(t, gonum.Borrow(flat, f), gpuarr.ErrShape)
	empty, err := unified.Zeros[float64](gpuarr.Shape{0, 3})
	require.NoError(t, err)
	defer empty.Release()
	require.ErrorIs(t, gonum.Borrow(empty, f), gpuarr.ErrShape)
	require.ErrorIs(t, gonum.Borrow(nil, f), gpuarr.ErrArgument)
	require.False(t, called)
}

// useBLAS makes gonum use the bridge's BLAS for the test.
func useBLAS(t *testing.T) {
	blas64.Use(gonum.Implementation{})
	t.Cleanup(func() { blas64.Use(native.Implementation{}) })
}

// unifiedOf copies m into a new unified array.
func unifiedOf(t *testing.T, m *mat.Dense) *gpuarr.Array[float64] {
	t.Helper()
	r, c := m.Dims()
	v := make([]float64, 0, r*c)
	for i := range r {
		v = append(v, m.RawRowView(i)...)
	}
	a, err := unified.FromSlice(v, gpuarr.Shape{r, c})
	require.NoError(t, err)
	t.Cleanup(func() { a.Release() })
	return a
}

func requireNear(t *testing.T, want, got mat.Matrix, tol float64) {
	t.Helper()
	r, c := want.Dims()
	for i := range r {
		for j := range c {
			require.InDelta(t, want.At(i, j), got.At(i, j), tol*max(1, math.Abs(want.At(i, j))), "[%d,%d]", i, j)
		}
	}
}

// gonum's mat.Dense.Mul on lent matrices runs on the device, with every
// combination of transposes, and into a sub-matrix of C.
func TestMulRoutedToDevice(t *testing.T) {
	useBLAS(t)
	rng := rand.New(rand.NewPCG(2, 2))
	const n, k = 80, 70
	ad, bd := randDense(rng, n, k), randDense(rng, k, n)
	a, b := unifiedOf(t, ad), unifiedOf(t, bd)
	c, err := unified.Zeros[float64](gpuarr.Shape{n + 2, n + 3})
	require.NoError(t, err)
	defer c.Release()
	for _, tc := range []struct {
		name string
		mul  func(ms []*mat.Dense) (want *mat.Dense, dst *mat.Dense)
	}{
		{"A·B", func(ms []*mat.Dense) (*mat.Dense, *mat.Dense) {
			dst := ms[2].Slice(0, n, 0, n).(*mat.Dense)
			dst.Mul(ms[0], ms[1])
			var want mat.Dense
			native.Implementation{}.Dgemm(blas.NoTrans, blas.NoTrans, n, n, k, 1, ad.RawMatrix().Data, k, bd.RawMatrix().Data, n, 0, make([]float64, n*n), n)
			want.Mul(ad, bd)
			return &want, dst
		}},
		{"Bᵀ·Aᵀ", func(ms []*mat.Dense) (*mat.Dense, *mat.Dense) {
			dst := ms[2].Slice(2, n+2, 3, n+3).(*mat.Dense)
			dst.Mul(ms[1].T(), ms[0].T())
			var want mat.Dense
			want.Mul(bd.T(), ad.T())
			return &want, dst
		}},
		{"A·Aᵀ", func(ms []*mat.Dense) (*mat.Dense, *mat.Dense) {
			dst := ms[2].Slice(1, n+1, 1, n+1).(*mat.Dense)
			dst.Mul(ms[0], ms[0].T())
			var want mat.Dense
			want.Mul(ad, ad.T())
			return &want, dst
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := gonum.DeviceGemms()
			require.NoError(t, gonum.BorrowAll([]*gpuarr.Array[float64]{a, b, c}, func(ms []*mat.Dense) error {
				want, got := tc.mul(ms)
				requireNear(t, want, got, 1e-12)
				return nil
			}))
			require.Equal(t, before+1, gonum.DeviceGemms(), "one product on the device")
		})
	}
	// The device's later work sees the product: C's sum on the GPU.
	sum, err := gpuarr.Sum(c)
	require.NoError(t, err)
	defer sum.Release()
	got, err := sum.Item()
	require.NoError(t, err)
	var want float64
	require.NoError(t, gonum.Borrow(c, func(m *mat.Dense) error { want = mat.Sum(m); return nil }))
	require.InDelta(t, want, got, 1e-9*math.Abs(want))
}

// What does not lie in lent memory, small products, and products without
// a BLAS library run on the CPU, with the same result.
func TestMulFallsBackToCPU(t *testing.T) {
	useBLAS(t)
	rng := rand.New(rand.NewPCG(3, 3))
	const n = 80
	ad := randDense(rng, n, n)
	a := unifiedOf(t, ad)
	var want mat.Dense
	want.Mul(ad, ad) // gonum's own memory: the CPU
	before := gonum.DeviceGemms()
	require.NoError(t, gonum.Borrow(a, func(m *mat.Dense) error {
		var heap mat.Dense // C in Go's heap
		heap.Mul(m, m)
		requireNear(t, &want, &heap, 1e-12)
		small := mat.NewDense(4, 4, nil)
		small.Mul(m.Slice(0, 4, 0, 4), m.Slice(0, 4, 0, 4))
		return nil
	}))
	require.Equal(t, before, gonum.DeviceGemms())

	c, err := unified.Zeros[float64](gpuarr.Shape{n, n})
	require.NoError(t, err)
	defer c.Release()
	restore := testutil.Device(t).HideSymbol("libcublas")
	defer restore()
	require.NoError(t, gonum.BorrowAll([]*gpuarr.Array[float64]{a, c}, func(ms []*mat.Dense) error {
		ms[1].Mul(ms[0], ms[0])
		requireNear(t, &want, ms[1], 1e-12)
		return nil
	}))
	require.Equal(t, before, gonum.DeviceGemms())
}

// Arguments gonum refuses are refused as gonum refuses them.
func TestDgemmBadArgumentsPanicAsGonums(t *testing.T) {
	x := make([]float64, 4)
	impl := gonum.Implementation{}
	assert.PanicsWithValue(t, "blas: bad leading dimension of A", func() {
		impl.Dgemm(blas.NoTrans, blas.NoTrans, 2, 2, 2, 1, x, 1, x, 2, 0, x, 2)
	})
}
