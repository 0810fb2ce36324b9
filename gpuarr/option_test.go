package gpuarr_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gpuarr/gpuarr/device"
	"github.com/gpuarr/gpuarr/gpuarr"
	"github.com/gpuarr/gpuarr/internal/arrayhook"
	"github.com/gpuarr/gpuarr/memory"
)

// TestOptionsRefused: every call that takes options refuses one it does
// not take, naming the option and the call (Axis on Eval, TF32 on Sum,
// Axis on FromSlice were once ignored), and runs nothing.
func TestOptionsRefused(t *testing.T) {
	dev := testDevice(t)
	x := must(gpuarr.Zeros[float32](gpuarr.Shape{2, 3}))
	defer x.Release()
	y := must(gpuarr.Zeros[float32](gpuarr.Shape{2, 3}))
	defer y.Release()
	sq := must(gpuarr.Zeros[float32](gpuarr.Shape{3, 3}))
	defer sq.Release()
	res := must(memory.Default(dev))
	ks := kernels(t, dev)
	u := must(gpuarr.Zeros[uint32](gpuarr.Shape{4}))
	defer u.Release()
	s := newStreams(t, dev, 1)[0]
	g, err := gpuarr.Capture(s, func() error { return gpuarr.EvalInto(y, x, gpuarr.On(s)) })
	require.NoError(t, err)
	defer g.Close()

	axis, keep, tf32 := gpuarr.Axis(0), gpuarr.KeepDims(), gpuarr.TF32()
	ret := func(_ any, err error) error { return err }
	cases := []struct {
		call, option string
		err          error
	}{
		{"Eval", "gpuarr.Axis(0)", ret(gpuarr.Eval(x, axis))},
		{"Eval", "gpuarr.KeepDims()", ret(gpuarr.Eval(gpuarr.Add(x, x), keep))},
		{"EvalInto", "gpuarr.Axis(0)", gpuarr.EvalInto(y, x, axis)},
		{"FromSlice", "gpuarr.Axis(0)", ret(gpuarr.FromSlice([]float32{1}, gpuarr.Shape{1}, axis))},
		{"Empty", "gpuarr.TF32()", ret(gpuarr.Empty[float32](gpuarr.Shape{1}, tf32))},
		{"Zeros", "gpuarr.KeepDims()", ret(gpuarr.Zeros[float32](gpuarr.Shape{1}, keep))},
		{"Ones", "gpuarr.Axis(0)", ret(gpuarr.Ones[float32](gpuarr.Shape{1}, axis))},
		{"Full", "gpuarr.TF32()", ret(gpuarr.Full(gpuarr.Shape{1}, float32(2), tf32))},
		{"EmptyFrom", "gpuarr.Axis(0)", ret(arrayhook.EmptyFrom[float32](res, gpuarr.Shape{1}, axis))},
		{"Clone", "gpuarr.Axis(0)", ret(gpuarr.Clone(x, axis))},
		{"Copy", "gpuarr.KeepDims()", gpuarr.Copy(y, x, keep)},
		{"CopyFromHost", "gpuarr.Axis(0)", x.CopyFromHost(make([]float32, 6), axis)},
		{"Sum", "gpuarr.TF32()", ret(gpuarr.Sum(x, tf32))},
		{"Min", "gpuarr.TF32()", ret(gpuarr.Min(x, gpuarr.Axis(1), tf32))},
		{"ArgMax", "gpuarr.TF32()", ret(gpuarr.ArgMax(x, tf32))},
		{"MeanAs", "gpuarr.TF32()", ret(gpuarr.MeanAs[float64](x, tf32))},
		{"Matmul", "gpuarr.Axis(0)", ret(gpuarr.Matmul(x, sq, axis))},
		{"MatmulInto", "gpuarr.KeepDims()", gpuarr.MatmulInto(y, x, sq, keep)},
		{"Launch", "gpuarr.Axis(0)", gpuarr.Launch(ks.Fill, device.Linear(4, 32), gpuarr.Out(u), uint32(7), uint64(4), axis, gpuarr.On(s))},
		{"Graph.Replay", "gpuarr.Axis(0)", g.Replay(axis)},
		{"Sum", "gpuarr.HistRange(-1, 1)", ret(gpuarr.Sum(x, gpuarr.HistRange(-1, 1)))},
	}
	for _, c := range cases {
		require.ErrorIs(t, c.err, gpuarr.ErrArgument, c.call)
		assert.Contains(t, c.err.Error(), "gpuarr."+c.call, c.call)
		assert.Contains(t, c.err.Error(), c.option, c.call)
	}
	assert.Equal(t, make([]uint32, 4), values(t, u), "the refused Launch ran nothing")

	// The options a call does take still work, in any order.
	sum := must(gpuarr.Sum(x, gpuarr.On(s), gpuarr.Axis(0), gpuarr.KeepDims()))
	assert.Equal(t, gpuarr.Shape{1, 3}, sum.Shape())
	_ = must(gpuarr.Matmul(x, sq, gpuarr.TF32(), gpuarr.OnDevice(dev)))
}
