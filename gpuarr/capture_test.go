package gpuarr_test

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gpuarr/gpuarr/device"
	"github.com/gpuarr/gpuarr/gpuarr"
)

func TestArrayWrittenDuringCapture(t *testing.T) {
	dev := testDevice(t)
	ks := kernels(t, dev)
	ss := newStreams(t, dev, 2)
	s, o := ss[0], ss[1]
	const n = 64
	x := must(gpuarr.Zeros[uint32](gpuarr.Shape{n}, gpuarr.On(s)))
	z := must(gpuarr.Zeros[uint32](gpuarr.Shape{n}, gpuarr.On(s)))
	y := must(gpuarr.Full(gpuarr.Shape{n}, uint32(3), gpuarr.On(o)))
	defer x.Release()
	defer y.Release()
	defer z.Release()

	require.NoError(t, s.BeginCapture())
	require.NoError(t, gpuarr.Launch(ks.Fill, linear(n), gpuarr.Out(x), uint32(9), uint64(n), gpuarr.On(s)))
	// y was written on o outside the capture: the capture may not wait on
	// o's event, so the CPU waits for it and the capture goes on.
	require.NoError(t, gpuarr.Launch(ks.Copy, linear(n), gpuarr.Out(z), gpuarr.In(y), uint64(n), gpuarr.On(s)))

	_, err := x.ToSlice()
	require.ErrorIs(t, err, device.ErrStreamCapture, "x has no data until the graph runs")
	assert.Contains(t, err.Error(), "capturing")
	assert.Contains(t, err.Error(), "uint32", "the error names the array")
	// Another stream waiting on the capture would join it: refused.
	w := must(gpuarr.Zeros[uint32](gpuarr.Shape{n}, gpuarr.On(o)))
	defer w.Release()
	err = gpuarr.Launch(ks.Copy, linear(n), gpuarr.Out(w), gpuarr.In(x), uint64(n), gpuarr.On(o))
	require.ErrorIs(t, err, device.ErrStreamCapture)
	assert.True(t, s.IsCapturing(), "the refusals left the capture intact")

	g, err := s.EndCapture()
	require.NoError(t, err)
	defer g.Close()

	zero, nine, three := make([]uint32, n), slices.Repeat([]uint32{9}, n), slices.Repeat([]uint32{3}, n)
	assert.Equal(t, zero, values(t, x), "after EndCapture, before a launch: nothing ran")
	require.NoError(t, g.Launch(s))
	assert.Equal(t, nine, values(t, x), "the host read synchronized the launch")
	assert.Equal(t, three, values(t, z))

	// A write outside a capture, then the graph again on the same stream.
	require.NoError(t, x.CopyFromHost(zero, gpuarr.On(s)))
	assert.Equal(t, zero, values(t, x))
	require.NoError(t, g.Launch(s))
	require.NoError(t, s.Synchronize())
	assert.Equal(t, nine, values(t, x))
}
