package gpuarr_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gpuarr/gpuarr/gpuarr"
)

// EvalInto a strided view writes each element where the view has it, for
// every element size: complex128 (16 bytes) included, whose strided
// stores the host evaluator once made 8 bytes wide, and complex and bool
// elements, whose strided stores the PTX generator once wrote as one
// scalar store (invalid PTX).
func TestEvalIntoStridedViewEveryWidth(t *testing.T) {
	t.Run("complex128", func(t *testing.T) {
		evalIntoStrided(t, func(i int) complex128 { return complex(float64(i+1), float64(10*(i+1))) })
	})
	t.Run("complex64", func(t *testing.T) {
		evalIntoStrided(t, func(i int) complex64 { return complex(float32(i+1), float32(10*(i+1))) })
	})
	t.Run("float64", func(t *testing.T) { evalIntoStrided(t, func(i int) float64 { return float64(i + 1) }) })
	t.Run("float32", func(t *testing.T) { evalIntoStrided(t, func(i int) float32 { return float32(i + 1) }) })
	t.Run("int16", func(t *testing.T) { evalIntoStrided(t, func(i int) int16 { return int16(i + 1) }) })
	t.Run("uint8", func(t *testing.T) { evalIntoStrided(t, func(i int) uint8 { return uint8(i + 1) }) })
	t.Run("bool", func(t *testing.T) {
		src := []float32{1, 5, 2, 6, 3, 7, 4, 8, 0, 9}
		x, err := gpuarr.FromSlice(src, gpuarr.Shape{2, 5})
		require.NoError(t, err)
		defer x.Release()
		w, err := gpuarr.Zeros[bool](gpuarr.Shape{2, 7})
		require.NoError(t, err)
		defer w.Release()
		v, err := w.Index(gpuarr.Colon, gpuarr.S(1, 6))
		require.NoError(t, err)
		defer v.Release()
		require.NoError(t, gpuarr.EvalInto(v, gpuarr.Greater(x, gpuarr.Scalar[float32](4))))
		got, err := w.ToSlice()
		require.NoError(t, err)
		want := make([]bool, 14)
		for r := range 2 {
			for c := range 5 {
				want[r*7+1+c] = src[r*5+c] > 4
			}
		}
		require.Equal(t, want, got)
	})
}

func evalIntoStrided[T uint8 | int16 | float32 | float64 | complex64 | complex128](t *testing.T, val func(int) T) {
	src := make([]T, 10)
	for i := range src {
		src[i] = val(i)
	}
	x, err := gpuarr.FromSlice(src, gpuarr.Shape{2, 5})
	require.NoError(t, err)
	defer x.Release()
	w, err := gpuarr.Zeros[T](gpuarr.Shape{2, 7})
	require.NoError(t, err)
	defer w.Release()
	v, err := w.Index(gpuarr.Colon, gpuarr.S(1, 6))
	require.NoError(t, err)
	defer v.Release()
	require.NoError(t, gpuarr.EvalInto(v, gpuarr.Add(x, x)))
	got, err := w.ToSlice()
	require.NoError(t, err)
	want := make([]T, 14)
	for r := range 2 {
		for c := range 5 {
			want[r*7+1+c] = src[r*5+c] + src[r*5+c]
		}
	}
	require.Equal(t, want, got)
}
