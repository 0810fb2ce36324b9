package unified_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gpuarr/gpuarr/gpuarr"
	"github.com/gpuarr/gpuarr/unified"
)

// At(i) and Set(i, x) address the row-major position on every kind of
// view, agreeing with All and Values; AtIndex addresses per axis.
func TestViewPositionAccess(t *testing.T) {
	testDevice(t)
	data := make([]int32, 2*3*4)
	for i := range data {
		data[i] = int32(i)
	}
	a, err := unified.FromSlice(data, gpuarr.Shape{2, 3, 4})
	require.NoError(t, err)
	defer a.Release()

	keep := func(x *gpuarr.Array[int32], err error) *gpuarr.Array[int32] {
		t.Helper()
		require.NoError(t, err)
		t.Cleanup(func() { _ = x.Release() })
		return x
	}
	views := []struct {
		name   string
		x      *gpuarr.Array[int32]
		want   []int32
		contig bool
	}{
		{"whole", a, data, true},
		{"reshaped", keep(a.Reshape(gpuarr.Shape{6, 4})), data, true},
		{"rows", keep(a.Slice(1, 2)), data[12:], true},
		{"transposed", keep(keep(a.Reshape(gpuarr.Shape{6, 4})).Transpose()),
			[]int32{0, 4, 8, 12, 16, 20, 1, 5, 9, 13, 17, 21, 2, 6, 10, 14, 18, 22, 3, 7, 11, 15, 19, 23}, false},
		{"permuted", keep(a.Permute(1, 0, 2)),
			[]int32{0, 1, 2, 3, 12, 13, 14, 15, 4, 5, 6, 7, 16, 17, 18, 19, 8, 9, 10, 11, 20, 21, 22, 23}, false},
		{"backwards", keep(a.Step(2, 3, -1, -2)),
			[]int32{3, 1, 7, 5, 11, 9, 15, 13, 19, 17, 23, 21}, false},
		{"column", keep(keep(a.Reshape(gpuarr.Shape{6, 4})).Step(1, 2, 3, 1)),
			[]int32{2, 6, 10, 14, 18, 22}, false},
	}
	for _, c := range views {
		t.Run(c.name, func(t *testing.T) {
			v, err := unified.Host(c.x)
			require.NoError(t, err)
			require.Equal(t, len(c.want), v.Len())
			assert.Equal(t, c.contig, v.Contiguous())
			var at, vals, all []int32
			for i := range v.Len() {
				at = append(at, v.At(i))
			}
			for x := range v.Values() {
				vals = append(vals, x)
			}
			for i, x := range v.All() {
				assert.Equal(t, len(all), i, "All's positions count up")
				all = append(all, x)
			}
			assert.Equal(t, c.want, at, "At")
			assert.Equal(t, c.want, vals, "Values")
			assert.Equal(t, c.want, all, "All")
			if c.contig {
				assert.Equal(t, c.want, v.UnsafeSlice())
			} else {
				assert.Nil(t, v.UnsafeSlice())
			}

			// Set(i) writes the element At(i) reads, and the array sees it.
			last := v.Len() - 1
			old := v.At(last)
			v.Set(last, -7)
			assert.Equal(t, int32(-7), v.At(last))
			got := must(c.x.ToSlice())
			assert.Equal(t, int32(-7), got[last], "the array sees the CPU write")
			v.Set(last, old)

			assert.PanicsWithValue(t, "unified: position "+itoa(v.Len())+" out of range [0, "+itoa(v.Len())+") for a "+shapeString(c.x)+" view",
				func() { v.At(v.Len()) })
			assert.Panics(t, func() { v.At(-1) })
			assert.Panics(t, func() { v.Set(-1, 0) })
			assert.Panics(t, func() { v.Set(v.Len(), 0) })
		})
	}

	v, err := unified.Host(a)
	require.NoError(t, err)
	assert.Equal(t, int32(1*12+2*4+3), v.AtIndex(1, 2, 3))
	v.SetIndex(-1, 1, 2, 3)
	assert.Equal(t, int32(-1), v.At(1*12+2*4+3))
	assert.PanicsWithValue(t, "unified: 2 indices for a rank-3 array", func() { v.AtIndex(1, 2) })
	assert.PanicsWithValue(t, "unified: index 3 out of range [0, 3) on axis 1", func() { v.AtIndex(0, 3, 0) })
	assert.PanicsWithValue(t, "unified: index -1 out of range [0, 4) on axis 2", func() { v.SetIndex(0, 0, 0, -1) })

	var zero unified.View[int32]
	assert.Equal(t, 0, zero.Len())
	assert.Nil(t, zero.UnsafeSlice())
}

// An empty array's view has no elements and yields none.
func TestViewEmpty(t *testing.T) {
	testDevice(t)
	a, err := unified.Empty[float32](gpuarr.Shape{0, 3})
	require.NoError(t, err)
	defer a.Release()
	v, err := unified.Host(a)
	require.NoError(t, err)
	assert.Equal(t, 0, v.Len())
	for range v.Values() {
		t.Fatal("an empty view yielded a value")
	}
	for range v.All() {
		t.Fatal("an empty view yielded a pair")
	}
	assert.Panics(t, func() { v.At(0) })
}

func itoa(n int) string { return fmt.Sprint(n) }

func shapeString[T gpuarr.Numeric](x *gpuarr.Array[T]) string { return fmt.Sprint(x.Shape()) }
