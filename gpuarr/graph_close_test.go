package gpuarr_test

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gpuarr/gpuarr/gpuarr"
)

// Closing a graph, the last of its pool, while its replay is still queued
// (behind a slow kernel on the replay's stream) must not take away the
// memory the replay uses: the temporary from the graph's pool and the
// arrays the graph holds. The replay still computes the right output.
func TestCloseWaitsForQueuedReplay(t *testing.T) {
	dev := testDevice(t)
	ks := kernels(t, dev)
	ss := newStreams(t, dev, 2)
	s, r := ss[0], ss[1]
	const n = 1 << 10
	in := must(gpuarr.Full(gpuarr.Shape{n}, float32(2), gpuarr.On(s)))
	defer in.Release()
	delay := must(gpuarr.Zeros[uint32](gpuarr.Shape{1}, gpuarr.On(r)))
	defer delay.Release()
	// Compile the expressions outside the captures.
	_ = must(gpuarr.Eval(gpuarr.Mul(in, in), gpuarr.On(s))).Release()
	_ = must(gpuarr.Eval(gpuarr.Add(in, in), gpuarr.On(s))).Release()
	rng := rand.New(rand.NewPCG(3, 4))
	for trial := range 40 {
		out := must(gpuarr.Zeros[float32](gpuarr.Shape{n}, gpuarr.On(s)))
		g, err := gpuarr.Capture(s, func() error {
			sq, err := gpuarr.Eval(gpuarr.Mul(in, in), gpuarr.On(s)) // from the graph's pool
			if err != nil {
				return err
			}
			if err := gpuarr.EvalInto(out, gpuarr.Add(sq, sq), gpuarr.On(s)); err != nil {
				return err
			}
			return sq.Release()
		})
		require.NoError(t, err)
		require.NoError(t, gpuarr.Launch(ks.SpinWrite, one, gpuarr.Out(delay), uint32(0), 20_000+rng.Uint64N(maxSpin), gpuarr.On(r)))
		require.NoError(t, g.Replay(gpuarr.On(r)))
		require.NoError(t, g.Close())
		require.Equal(t, slices.Repeat([]float32{8}, n), values(t, out), "trial %d: the replay's output after Close", trial)
		require.NoError(t, out.Release())
	}
}
