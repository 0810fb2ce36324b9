package unified_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gpuarr/gpuarr/gpuarr"
	"github.com/gpuarr/gpuarr/unified"
)

// Managed arrays of every element type: written by the GPU, read and
// written in place by the CPU as Go values.
func TestElementTypes(t *testing.T) {
	testDevice(t)
	x, err := unified.FromSlice([]float32{1, -2, 3}, gpuarr.Shape{3})
	require.NoError(t, err)

	m, err := unified.Zeros[bool](gpuarr.Shape{3})
	require.NoError(t, err)
	require.NoError(t, gpuarr.EvalInto(m, gpuarr.Greater(x, gpuarr.Scalar[float32](0))))
	v, err := unified.Host(m)
	require.NoError(t, err)
	assert.Equal(t, []bool{true, false, true}, []bool{v.At(0), v.At(1), v.At(2)})

	h, err := unified.Zeros[gpuarr.Float16](gpuarr.Shape{3})
	require.NoError(t, err)
	require.NoError(t, gpuarr.EvalInto(h, gpuarr.Cast[gpuarr.Float16](x)))
	hv, err := unified.Host(h)
	require.NoError(t, err)
	assert.Equal(t, float32(-2), hv.At(1).Float32())
	hv.Set(1, gpuarr.ToFloat16(0.5))
	assert.Equal(t, []gpuarr.Float16{gpuarr.ToFloat16(1.0), gpuarr.ToFloat16(0.5), gpuarr.ToFloat16(3.0)}, must(h.ToSlice()))

	z, err := unified.FromSlice([]complex128{1 + 2i, -1i}, gpuarr.Shape{2})
	require.NoError(t, err)
	require.NoError(t, gpuarr.EvalInto(z, gpuarr.Mul(z, gpuarr.Scalar(complex128(1i)))))
	at, err := unified.AtIndex(z, 1)
	require.NoError(t, err)
	assert.Equal(t, complex128(1), at)
	zero, err := unified.AtIndex(z, 7)
	require.Error(t, err)
	assert.Zero(t, zero)
}
