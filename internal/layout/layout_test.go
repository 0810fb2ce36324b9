package layout

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gpuarr/gpuarr/internal/arg"
)

func TestCheck(t *testing.T) {
	n, err := Check("T", []int{3, 4}, 4)
	require.NoError(t, err)
	assert.Equal(t, 12, n)
	n, err = Check("T", []int{}, 8)
	require.NoError(t, err)
	assert.Equal(t, 1, n, "a scalar has one element")

	for _, c := range []struct {
		sh   []int
		size uintptr
		want string
	}{
		{[]int{2, -1}, 4, "gpuarr.T: shape [2 -1] has negative extent -1 on axis 1"},
		{[]int{math.MaxInt, 2}, 1, "overflows: more than"},
		{[]int{math.MaxInt / 2}, 8, "elements of 8 bytes exceed"},
		{make([]int, MaxRank+1), 4, "axes, at most 64"},
	} {
		_, err := Check("T", c.sh, c.size)
		require.ErrorIs(t, err, arg.ErrShape, "%v", c.sh)
		assert.ErrorContains(t, err, c.want)
	}
}

func TestBroadcast(t *testing.T) {
	for _, c := range []struct{ a, b, want []int }{
		{[]int{3, 4}, []int{3, 4}, []int{3, 4}},
		{[]int{3, 1}, []int{1, 4}, []int{3, 4}},
		{[]int{4}, []int{2, 3, 4}, []int{2, 3, 4}},
		{[]int{}, []int{5}, []int{5}},
		{[]int{0, 1}, []int{1, 7}, []int{0, 7}},
	} {
		got, err := Broadcast(c.a, c.b)
		require.NoError(t, err)
		assert.Equal(t, c.want, got, "%v with %v", c.a, c.b)
	}
	_, err := Broadcast([]int{3, 4}, []int{2, 4})
	require.ErrorIs(t, err, arg.ErrShape)
	assert.ErrorContains(t, err, "axis 0 has extents 3 and 2")
}

func TestStrides(t *testing.T) {
	assert.Equal(t, []int{12, 4, 1}, RowMajorStrides([]int{2, 3, 4}))
	assert.Equal(t, []int{0, 1}, BroadcastStrides([]int{1, 4}, []int{4, 1}, []int{3, 4}), "a stretched axis steps 0")
	assert.Equal(t, []int{0, 4, 1}, BroadcastStrides([]int{3, 4}, []int{4, 1}, []int{2, 3, 4}), "a missing leading axis steps 0")
	assert.True(t, IsRowMajor([]int{2, 3}, []int{3, 1}))
	assert.True(t, IsRowMajor([]int{2, 1, 3}, []int{3, 99, 1}), "an extent-1 axis may have any stride")
	assert.True(t, IsRowMajor([]int{0, 3}, []int{7, 7}), "an empty shape has nothing out of place")
	assert.False(t, IsRowMajor([]int{2, 3}, []int{1, 2}), "a transpose")
	assert.Equal(t, "[3 4]", String([]int{3, 4}))
	assert.Equal(t, "[]", String(nil))
	assert.Equal(t, 0, Len([]int{3, 0}))
}
