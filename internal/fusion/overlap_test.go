package fusion_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gpuarr/gpuarr/device"
	"github.com/gpuarr/gpuarr/device/dtype"
	"github.com/gpuarr/gpuarr/internal/fusion"
	"github.com/gpuarr/gpuarr/internal/fusion/expr"
	"github.com/gpuarr/gpuarr/internal/lifetime"
)

// A reduction whose result is part of the memory it reduces gets the sums
// of the values as they were: x's 4096 pairs summed into x's second half,
// whose pairs the later groups read and the earlier groups write.
func TestReduceIntoItsOperand(t *testing.T) {
	const groups, glen = 4096, 2
	dev, err := device.Default()
	require.NoError(t, err)
	s := dev.DefaultStream()
	f32 := dtype.ElemOf[float32]()
	var x, rows, out lifetime.Handle
	require.NoError(t, x.Make("T", s, []int{groups * glen}, f32))
	defer x.Release()
	require.NoError(t, rows.MakeView("T", &x, 0, []int{groups, glen}, nil))
	defer rows.Release()
	require.NoError(t, out.MakeView("T", &x, int64(groups*glen-groups)*4, []int{groups}, nil))
	defer out.Release()

	vals := make([]float32, groups*glen)
	for i := range vals {
		vals[i] = float32(i * 37 % 101)
	}
	require.NoError(t, device.Upload(s, x.Ptr(), vals))
	want := append([]float32(nil), vals...)
	for g := range groups {
		want[groups*glen-groups+g] = vals[g*glen] + vals[g*glen+1]
	}

	before := fusion.OverlapTemps()
	err = fusion.Reduce("T", expr.Sum, dtype.Float32, &out, fusion.Leaf(&rows, dtype.Float32),
		[]int{groups, glen}, 1<<1, glen, glen, s)
	require.NoError(t, err)
	got := make([]float32, len(vals))
	require.NoError(t, device.Download(s, got, x.Ptr()))
	assert.Equal(t, want, got)
	assert.Equal(t, uint64(1), fusion.OverlapTemps()-before, "one reduction through a temporary")
}
