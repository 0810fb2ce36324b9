package gpuarr_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gpuarr/gpuarr/device"
	"github.com/gpuarr/gpuarr/gpuarr"
)

// emptyViews are empty arrays reached through views of a [4 6] array,
// whose strides would not be row-major if they had elements.
func emptyViews(t *testing.T, x *gpuarr.Array[float32]) map[string]*gpuarr.Array[float32] {
	t.Helper()
	cols := must(x.Step(1, 0, 0, 1))       // [4 0]
	rows := must(x.Step(0, 2, 2, 1))       // [0 6]
	everyOther := must(x.Step(1, 0, 6, 2)) // [4 3], strided
	return map[string]*gpuarr.Array[float32]{
		"no columns":            cols,
		"no rows":               rows,
		"transposed":            must(cols.Transpose()),            // [0 4]
		"no rows of a stride 2": must(everyOther.Step(0, 1, 1, 1)), // [0 3]
		"reversed, no columns":  must(everyOther.Step(1, 2, 2, -1)),
		"a 3-D permutation":     must(must(must(x.Reshape(gpuarr.Shape{2, 2, 6})).Step(2, 3, 3, 1)).Permute(2, 0, 1)), // [0 2 2]
	}
}

// TestEmptyViewsAreContiguous: an empty array reached through views is
// contiguous, as in NumPy (such views were once strided, so Reshape,
// EvalInto, Copy and Launch refused them): it reshapes, takes part in
// expressions, reductions and Matmul, and reads back as no elements.
func TestEmptyViewsAreContiguous(t *testing.T) {
	dev := testDevice(t)
	x := must(gpuarr.FromSlice(make([]float32, 24), gpuarr.Shape{4, 6}))
	defer x.Release()
	ks := kernels(t, dev)
	for name, v := range emptyViews(t, x) {
		msg := fmt.Sprintf("%s %v", name, v.Shape())
		require.Zero(t, v.Len(), msg)
		r, err := v.Reshape(gpuarr.Shape{0})
		require.NoError(t, err, msg)
		assert.Equal(t, gpuarr.Shape{0}, r.Shape(), msg)
		_, err = v.Reshape(gpuarr.Shape{3, 0, 5})
		require.NoError(t, err, msg)

		assert.Equal(t, []float32{}, values(t, v), msg)
		e, err := gpuarr.Eval(gpuarr.Add(gpuarr.Mul(v, v), gpuarr.Scalar[float32](1)))
		require.NoError(t, err, msg)
		assert.Equal(t, v.Shape(), e.Shape(), msg)
		require.NoError(t, gpuarr.EvalInto(v, gpuarr.Add(v, v)), msg)
		require.NoError(t, gpuarr.Copy(v, must(gpuarr.Zeros[float32](v.Shape()))), msg)
		require.NoError(t, v.CopyFromHost(nil), msg)
		c := must(gpuarr.Clone(v))
		assert.Equal(t, v.Shape(), c.Shape(), msg)

		assert.Equal(t, float32(0), must(must(gpuarr.Sum(v)).Item()), "Sum of none: %s", msg)
		assert.Equal(t, float32(1), must(must(gpuarr.Prod(v)).Item()), "Prod of none: %s", msg)
		for op, f := range map[string]func(gpuarr.Operand[float32], ...gpuarr.Option) (*gpuarr.Array[float32], error){
			"Min": gpuarr.Min[float32], "Max": gpuarr.Max[float32], "Mean": gpuarr.Mean[float32]} {
			_, err := f(v)
			require.ErrorIs(t, err, gpuarr.ErrShape, "%s of none: %s", op, msg)
			assert.Contains(t, err.Error(), "no elements", msg)
		}
		_, err = gpuarr.ArgMin(v)
		require.ErrorIs(t, err, gpuarr.ErrShape, msg)
	}

	// Along an axis: a reduced empty axis gives identities (Sum, Prod) or
	// an error; an empty kept axis gives an empty result.
	cols := must(x.Step(1, 0, 0, 1)) // [4 0]
	assert.Equal(t, []float32{0, 0, 0, 0}, values(t, must(gpuarr.Sum(cols, gpuarr.Axis(1)))))
	assert.Equal(t, []float32{1, 1, 1, 1}, values(t, must(gpuarr.Prod(cols, gpuarr.Axis(1)))))
	_, err := gpuarr.Max(cols, gpuarr.Axis(1))
	require.ErrorIs(t, err, gpuarr.ErrShape)
	mx := must(gpuarr.Max(cols, gpuarr.Axis(0)))
	assert.Equal(t, gpuarr.Shape{0}, mx.Shape())
	assert.Equal(t, []int64{}, values(t, must(gpuarr.ArgMin(cols, gpuarr.Axis(0)))))

	// Matmul: k = 0 gives zeros; m = 0 an empty result; into an empty view.
	rows := must(x.Step(0, 2, 2, 1)) // [0 6]
	z := must(gpuarr.Matmul(cols, must(cols.Transpose())))
	assert.Equal(t, make([]float32, 16), values(t, z), "[4 0]·[0 4]")
	e := must(gpuarr.Matmul(rows, must(gpuarr.Ones[float32](gpuarr.Shape{6, 2}))))
	assert.Equal(t, gpuarr.Shape{0, 2}, e.Shape())
	require.NoError(t, gpuarr.MatmulInto(must(must(gpuarr.Zeros[float32](gpuarr.Shape{3, 5})).Step(0, 1, 1, 1)), rows, must(gpuarr.Ones[float32](gpuarr.Shape{6, 5}))))

	// A kernel of one's own takes an empty view as an argument.
	u := must(gpuarr.Zeros[uint32](gpuarr.Shape{4, 6}))
	none := must(u.Step(1, 0, 0, 1))
	require.NoError(t, gpuarr.Launch(ks.Fill, device.Linear(1, 32), gpuarr.Out(none), uint32(7), uint64(0)))
	assert.Equal(t, make([]uint32, 24), values(t, u))
}

// Empty + Release of a small array allocates one Go object, the array
// itself: the buffer object is reused, the memory comes from the pool, and
// the cleanup is registered only for arrays that live long (on rank 1
// to 4). The host backend's checking mode (GPUARR_HOST_CHECK) allocates
// its own bookkeeping per block, so it is not measured there.
func TestEmptyReleaseAllocatesOnlyTheArray(t *testing.T) {
	if _, on := testDevice(t).Checking(); on {
		t.Skip("the host backend's checking mode allocates per block")
	}
	for _, sh := range []gpuarr.Shape{{1}, {2, 3}, {2, 3, 4, 5}} {
		a := must(gpuarr.Empty[float32](sh)) // the pool holds a block of the size
		require.NoError(t, a.Release())
		allocs := testing.AllocsPerRun(1000, func() {
			a, err := gpuarr.Empty[float32](sh)
			if err == nil {
				err = a.Release()
			}
			if err != nil {
				panic(err)
			}
		})
		assert.LessOrEqual(t, allocs, 1.0, "shape %v", sh)
	}
}
