package gpuarr_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gpuarr/gpuarr/gpuarr"
	"github.com/gpuarr/gpuarr/internal/arrayhook"
)

// Reads on the stream that last wrote an array are not tracked as
// readers (stream order covers them), but whatever writes the array next
// must still wait for them: a write on another stream, even one that read
// the array before (its wait covered the write, not the reads after it),
// and a CPU write (PrepareHostAccess). A spin on the writer's stream holds
// its read back, so a missing wait overwrites the array before the read.
// (Before, an event recorded between the write and the read passed for
// covering the read, and a CPU access saw nothing to wait for.)
func TestWritesWaitForReadsOnTheWritersStream(t *testing.T) {
	dev := testDevice(t)
	ks := kernels(t, dev)
	ss := newStreams(t, dev, 3)
	w, r, o := ss[0], ss[1], ss[2]
	const spin = uint64(20_000_000) // 20 ms
	for _, next := range []string{"another stream", "a reader", "the CPU"} {
		t.Run(next, func(t *testing.T) {
			x := must(gpuarr.Zeros[uint32](gpuarr.Shape{64}, gpuarr.On(w)))
			defer x.Release()
			delay := must(gpuarr.Zeros[uint32](gpuarr.Shape{1}, gpuarr.On(w)))
			defer delay.Release()
			require.NoError(t, gpuarr.EvalInto(x, gpuarr.Scalar[uint32](1), gpuarr.On(w)))
			// A read on r records an event after the write.
			z := must(gpuarr.Eval[uint32](gpuarr.Add[uint32](x, gpuarr.Scalar[uint32](0)), gpuarr.On(r)))
			defer z.Release()
			// The writer's stream reads x after a spin.
			require.NoError(t, gpuarr.Launch(ks.SpinWrite, one, gpuarr.Out(delay), uint32(1), spin, gpuarr.On(w)))
			y := must(gpuarr.Eval[uint32](gpuarr.Mul[uint32](x, gpuarr.Scalar[uint32](2)), gpuarr.On(w)))
			defer y.Release()
			switch next {
			case "another stream":
				require.NoError(t, gpuarr.EvalInto(x, gpuarr.Scalar[uint32](7), gpuarr.On(o)))
			case "a reader":
				require.NoError(t, gpuarr.EvalInto(x, gpuarr.Scalar[uint32](7), gpuarr.On(r)))
			case "the CPU":
				lay, err := arrayhook.PrepareHostAccess(x, arrayhook.HostAccess{})
				require.NoError(t, err)
				if p := dev.HostPointer(lay.Ptr); p != nil && dev.Info().ManagedMemory && dev.Backend() == "host" {
					*(*uint32)(p) = 7 // the host backend's memory is the CPU's
				}
			}
			got := values(t, y)
			assert.Equal(t, uint32(2), got[0], "the read on the writer's stream saw the next write")
		})
	}
}
