package gpuarr_test

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gpuarr/gpuarr/gpuarr"
	"github.com/gpuarr/gpuarr/internal/testutil"
)

// The Like constructors take the array's shape and device (the second
// device here, when there is one), and an option still wins.
func TestLikeConstructors(t *testing.T) {
	dev := testDevice(t)
	devs := testutil.Devices(t)
	on := devs[len(devs)-1]
	a := must(gpuarr.Zeros[int16](gpuarr.Shape{2, 3}, gpuarr.OnDevice(on)))
	defer a.Release()
	for name, x := range map[string]*gpuarr.Array[int16]{
		"zeros": must(gpuarr.ZerosLike(a)), "ones": must(gpuarr.OnesLike(a)),
		"full": must(gpuarr.FullLike(a, -4)), "empty": must(gpuarr.EmptyLike(a)),
	} {
		assert.Equal(t, gpuarr.Shape{2, 3}, x.Shape(), name)
		assert.Equal(t, on, x.Device(), name)
		switch name {
		case "zeros":
			assert.Equal(t, make([]int16, 6), values(t, x))
		case "ones":
			assert.Equal(t, []int16{1, 1, 1, 1, 1, 1}, values(t, x))
		case "full":
			assert.Equal(t, []int16{-4, -4, -4, -4, -4, -4}, values(t, x))
		}
		require.NoError(t, x.Release())
	}
	x := must(gpuarr.ZerosLike(a, gpuarr.OnDevice(dev)))
	assert.Equal(t, dev, x.Device(), "the caller's option wins")
	require.NoError(t, x.Release())
	var nilArr *gpuarr.Array[int16]
	_, err := gpuarr.OnesLike(nilArr)
	assert.ErrorIs(t, err, gpuarr.ErrArgument)
}

// Any and All take masks, expressions and arrays of any element type
// (a NaN is true), and fuse what they test.
func TestAnyAllOperands(t *testing.T) {
	x := must(gpuarr.FromSlice([]float32{0, 1, float32(math.NaN()), 0, 0, 0}, gpuarr.Shape{2, 3}))
	defer x.Release()
	item := func(a *gpuarr.Array[uint8], err error) []uint8 {
		t.Helper()
		require.NoError(t, err)
		defer a.Release()
		return values(t, a)
	}
	assert.Equal(t, []uint8{1}, item(gpuarr.Any(x)))
	assert.Equal(t, []uint8{1, 0}, item(gpuarr.Any(x, gpuarr.Axis(1))), "NaN counts as true")
	assert.Equal(t, []uint8{0, 1, 1}, item(gpuarr.Any(x, gpuarr.Axis(0))))
	assert.Equal(t, []uint8{0}, item(gpuarr.All(x)))
	assert.Equal(t, []uint8{1, 1}, item(gpuarr.Any(gpuarr.Equal(x, gpuarr.Scalar[float32](0)), gpuarr.Axis(1), gpuarr.KeepDims())))
	assert.Equal(t, []uint8{1}, item(gpuarr.All(gpuarr.Add(x, gpuarr.Scalar[float32](2)))), "an expression")
	i := must(gpuarr.FromSlice([]int64{3, 0}, gpuarr.Shape{2}))
	defer i.Release()
	assert.Equal(t, []uint8{0}, item(gpuarr.All(i)))
	empty := must(gpuarr.Zeros[int8](gpuarr.Shape{2, 0}))
	defer empty.Release()
	assert.Equal(t, []uint8{0, 0}, item(gpuarr.Any(empty, gpuarr.Axis(1))), "any of nothing is false")
	assert.Equal(t, []uint8{1, 1}, item(gpuarr.All(empty, gpuarr.Axis(1))), "all of nothing is true")
	_, err := gpuarr.Any(nil)
	assert.ErrorIs(t, err, gpuarr.ErrArgument)
}

// Triu and Tril are expressions: masked by position inside one fused
// kernel with the rest, over stacks of matrices.
func TestTriangleFuses(t *testing.T) {
	x := must(gpuarr.Ones[float64](gpuarr.Shape{2, 3, 3}))
	defer x.Release()
	before := gpuarr.ReadKernelStats()
	s := must(gpuarr.Sum[float64](gpuarr.Add(gpuarr.Triu[float64](x, 1), gpuarr.Tril[float64](x, -1)), gpuarr.Axis(1), gpuarr.Axis(2)))
	defer s.Release()
	assert.Equal(t, []float64{6, 6}, values(t, s), "the strict triangles of two 3×3 matrices of ones")
	after := gpuarr.ReadKernelStats()
	assert.LessOrEqual(t, after.Compiles+after.Hits-before.Compiles-before.Hits, uint64(2), "one reduction kernel (two stages at most)")
}

// Linspace with and without its endpoint, against the formula.
func TestLinspaceEndpoint(t *testing.T) {
	with := must(gpuarr.Linspace[float64](0, 1, 5))
	defer with.Release()
	assert.Equal(t, []float64{0, 0.25, 0.5, 0.75, 1}, values(t, with))
	without := must(gpuarr.Linspace[float64](0, 1, 5, gpuarr.Endpoint(false)))
	defer without.Release()
	assert.Equal(t, []float64{0, 0.2, 0.4, 0.6000000000000001, 0.8}, values(t, without))
	_, err := gpuarr.Arange[float32](0, 1, 0.25, gpuarr.Endpoint(true))
	assert.ErrorIs(t, err, gpuarr.ErrArgument, "Arange takes no Endpoint")
}
