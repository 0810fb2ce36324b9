package gpuarr_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gpuarr/gpuarr/device"
	"github.com/gpuarr/gpuarr/gpuarr"
	"github.com/gpuarr/gpuarr/internal/testkernels"
	"github.com/gpuarr/gpuarr/internal/testutil"
	"github.com/gpuarr/gpuarr/p2p"
)

// twoDevices returns two devices of the default backend, or skips.
var twoDevices = testutil.TwoDevices

// setPeers makes devices 0 and 1 peers or not for the test, and puts them
// back as peers afterwards, where the backend lets a test change its peer
// links (host devices). Real GPUs have a fixed peer matrix: the test runs
// when the hardware already is what it asks for, else it skips.
func setPeers(t *testing.T, d0 *device.Device, ok bool) {
	t.Helper()
	devs, err := device.Devices()
	require.NoError(t, err)
	d1 := devs[1]
	if err := d0.SetPeerLink(d1, ok); err != nil {
		require.ErrorIs(t, err, device.ErrNotSupported)
		can01, err := d0.CanAccessPeer(d1)
		require.NoError(t, err)
		can10, err := d1.CanAccessPeer(d0)
		require.NoError(t, err)
		if (can01 && can10) != ok {
			t.Skipf("%s and %s have peer access %v in hardware; this case needs %v", d0, d1, can01 && can10, ok)
		}
		return
	}
	p2p.Reset()
	t.Cleanup(func() { require.NoError(t, d0.SetPeerLink(d1, true)); p2p.Reset() })
}

func iota32(n int) []uint32 {
	out := make([]uint32, n)
	for i := range out {
		out[i] = uint32(i*7 + 1)
	}
	return out
}

// A kernel on device 1 using an array of device 0: without peer access
// the error names both devices and both remedies; with it the kernel runs.
func TestPeerAccessForKernels(t *testing.T) {
	d0, d1 := twoDevices(t)
	ks1, err := testkernels.Load(d1)
	require.NoError(t, err)
	defer ks1.Module.Close()
	const n = 1000
	x := must(gpuarr.FromSlice(iota32(n), gpuarr.Shape{n}, gpuarr.OnDevice(d0)))
	defer x.Release()
	y := must(gpuarr.Zeros[uint32](gpuarr.Shape{n}, gpuarr.OnDevice(d1)))
	defer y.Release()

	t.Run("without", func(t *testing.T) {
		setPeers(t, d0, false)
		err := gpuarr.Launch(ks1.Copy, linear(n), gpuarr.Out(y), gpuarr.In(x), uint64(n))
		require.ErrorIs(t, err, device.ErrPeerAccessUnsupported)
		var ae *p2p.AccessError
		require.ErrorAs(t, err, &ae, "the p2p error, with the driver's detail, is wrapped")
		msg := err.Error()
		for _, want := range []string{
			"uint32[1000] array on " + d0.String() + " is not reachable from " + d1.String() + ", where the operation runs",
			"copy it there first (gpuarr.Clone", "run the operation on the array's device",
		} {
			assert.Contains(t, msg, want)
		}
		// Said once: each device named once, no driver names, short.
		assert.Equal(t, 1, strings.Count(msg, d0.String()), msg)
		assert.Equal(t, 1, strings.Count(msg, d1.String()), msg)
		assert.NotContains(t, msg, "cuDevice")
		assert.Less(t, len(msg), 320, msg)
		assert.Equal(t, make([]uint32, n), values(t, y), "nothing ran")

		// The first remedy works.
		x1 := must(gpuarr.Clone(x, gpuarr.OnDevice(d1)))
		defer x1.Release()
		require.NoError(t, gpuarr.Launch(ks1.Copy, linear(n), gpuarr.Out(y), gpuarr.In(x1), uint64(n)))
		assert.Equal(t, iota32(n), values(t, y))
	})
	t.Run("with", func(t *testing.T) {
		setPeers(t, d0, true)
		require.NoError(t, y.CopyFromHost(make([]uint32, n)))
		require.NoError(t, gpuarr.Launch(ks1.Copy, linear(n), gpuarr.Out(y), gpuarr.In(x), uint64(n)))
		assert.True(t, p2p.Enabled(d1, d0))
		assert.Equal(t, iota32(n), values(t, y))
		// And the other way round: device 1 writes device 0's array.
		require.NoError(t, gpuarr.Launch(ks1.Fill, linear(n), gpuarr.Out(x), uint32(5), uint64(n), gpuarr.OnDevice(d1)))
		assert.Equal(t, uint32(5), values(t, x)[n-1])
		require.NoError(t, x.CopyFromHost(iota32(n)))
	})
}

// Copy and Clone between devices take the direct path with peer access
// and the staged one without; both give the data, also across several
// staging chunks.
func TestCrossDeviceCopies(t *testing.T) {
	d0, d1 := twoDevices(t)
	for _, peers := range []bool{true, false} {
		t.Run(fmt.Sprintf("peers=%v", peers), func(t *testing.T) {
			setPeers(t, d0, peers)
			for _, n := range []int{1, 1000, 1<<20 + 3} { // the last spans two 4 MiB pinned chunks
				data := iota32(n)
				x := must(gpuarr.FromSlice(data, gpuarr.Shape{n}, gpuarr.OnDevice(d0)))
				st := p2p.Stats()

				y := must(gpuarr.Clone(x, gpuarr.OnDevice(d1)))
				assert.Equal(t, d1, y.Device())
				z := must(gpuarr.Zeros[uint32](gpuarr.Shape{n}, gpuarr.OnDevice(d0)))
				require.NoError(t, gpuarr.Copy(z, y)) // back, on d0's stream
				got := p2p.Stats()
				if peers {
					assert.Equal(t, st.Direct+2, got.Direct, "n=%d", n)
				} else {
					assert.Equal(t, st.Staged+2, got.Staged, "n=%d", n)
				}
				assert.True(t, slices.Equal(data, values(t, y)), "n=%d there", n)
				assert.True(t, slices.Equal(data, values(t, z)), "n=%d and back", n)
				for _, a := range []*gpuarr.Array[uint32]{x, y, z} {
					require.NoError(t, a.Release())
				}
			}
		})
	}
}

// A stream of a third device cannot copy; a stream of either end can.
func TestCopyStreamChoice(t *testing.T) {
	d0, d1 := twoDevices(t)
	x := must(gpuarr.FromSlice(iota32(10), gpuarr.Shape{10}, gpuarr.OnDevice(d0)))
	defer x.Release()
	y := must(gpuarr.Zeros[uint32](gpuarr.Shape{10}, gpuarr.OnDevice(d1)))
	defer y.Release()
	require.NoError(t, gpuarr.Copy(y, x, gpuarr.OnDevice(d0)))
	assert.Equal(t, iota32(10), values(t, y))
	z := must(gpuarr.Zeros[uint32](gpuarr.Shape{10}, gpuarr.OnDevice(d0)))
	defer z.Release()
	err := gpuarr.Copy(z, x, gpuarr.OnDevice(d1))
	assert.ErrorIs(t, err, gpuarr.ErrArgument, "a copy within d0 on a stream of d1")
}

// An expression on device 1 reading an array of device 0: without peer
// access Eval fails naming both devices and writes nothing; with it the
// fused kernel reads the peer's memory.
func TestPeerAccessForExpressions(t *testing.T) {
	d0, d1 := twoDevices(t)
	const n = 1000
	x := must(gpuarr.FromSlice(iota32(n), gpuarr.Shape{n}, gpuarr.OnDevice(d0)))
	defer x.Release()
	y := must(gpuarr.Zeros[uint32](gpuarr.Shape{n}, gpuarr.OnDevice(d1)))
	defer y.Release()
	want := make([]uint32, n)
	for i, v := range iota32(n) {
		want[i] = v + 1
	}
	t.Run("without", func(t *testing.T) {
		setPeers(t, d0, false)
		err := gpuarr.EvalInto(y, gpuarr.Add(x, gpuarr.Scalar[uint32](1)))
		require.ErrorIs(t, err, device.ErrPeerAccessUnsupported)
		assert.Contains(t, err.Error(), d0.String())
		assert.Contains(t, err.Error(), d1.String())
		assert.Equal(t, make([]uint32, n), values(t, y), "nothing ran")
		_, err = gpuarr.Max[uint32](x, gpuarr.OnDevice(d1))
		require.ErrorIs(t, err, device.ErrPeerAccessUnsupported)
	})
	t.Run("with", func(t *testing.T) {
		setPeers(t, d0, true)
		require.NoError(t, gpuarr.EvalInto(y, gpuarr.Add(x, gpuarr.Scalar[uint32](1))))
		assert.Equal(t, want, values(t, y))
	})
}
