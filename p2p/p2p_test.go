package p2p

import (
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gpuarr/gpuarr/device"
	"github.com/gpuarr/gpuarr/internal/testkernels"
	"github.com/gpuarr/gpuarr/internal/testutil"
)

var testDevice = testutil.Device

// hostPair returns two devices whose peer link a test may change
// (SetPeerLink: two host devices), restored to peers afterwards.
func hostPair(t *testing.T) (*device.Device, *device.Device) {
	t.Helper()
	devs, err := device.Devices()
	require.NoError(t, err)
	if len(devs) < 2 {
		t.Skip("needs two host devices (GPUARR_HOST_DEVICES=2)")
	}
	if err := devs[0].SetPeerLink(devs[1], true); err != nil {
		require.ErrorIs(t, err, device.ErrNotSupported)
		t.Skipf("needs devices whose peer links a test can change (host devices): %v", err)
	}
	t.Cleanup(func() { require.NoError(t, devs[0].SetPeerLink(devs[1], true)); Reset() })
	return devs[0], devs[1]
}

// peerPair returns two devices of the default backend that can be peers:
// host devices (made peers for the test) or GPUs whose hardware allows it.
func peerPair(t *testing.T) (*device.Device, *device.Device) {
	t.Helper()
	d0, d1 := testutil.TwoDevices(t)
	err := d0.SetPeerLink(d1, true)
	if err == nil {
		return hostPair(t)
	}
	require.ErrorIs(t, err, device.ErrNotSupported, "GPUs: the peer links are the hardware's")
	for _, pair := range [][2]*device.Device{{d0, d1}, {d1, d0}} {
		ok, err := pair[0].CanAccessPeer(pair[1])
		require.NoError(t, err)
		if !ok {
			t.Skipf("%s cannot access %s in hardware", pair[0], pair[1])
		}
	}
	return d0, d1
}

var (
	newStream = testutil.Stream
	alloc     = testutil.Alloc
)

func TestEnable(t *testing.T) {
	d := testDevice(t)
	require.NoError(t, Enable(d, d))
	assert.True(t, Enabled(d, d))

	d0, d1 := hostPair(t)
	require.NoError(t, d0.SetPeerLink(d1, false))
	Reset()
	err := Enable(d1, d0)
	require.ErrorIs(t, err, device.ErrPeerAccessUnsupported)
	var ae *AccessError
	require.ErrorAs(t, err, &ae)
	assert.Equal(t, d1, ae.From)
	assert.Contains(t, err.Error(), fmt.Sprintf("%s cannot access memory of %s", d1, d0))
	assert.False(t, Enabled(d1, d0))
	assert.Equal(t, Staged, Route(d1, d0))

	require.NoError(t, d1.SetPeerLink(d0, true))
	require.NoError(t, Enable(d1, d0), "failures are not remembered")
	require.NoError(t, Enable(d1, d0), "already enabled is success")
	assert.True(t, Enabled(d1, d0))
	assert.Equal(t, Direct, Route(d0, d1))
	assert.Equal(t, Local, Route(d0, d0))
	Reset()
	assert.False(t, Enabled(d1, d0))
}

// Staged copies between two streams of one device exercise the pinned
// buffers, the hand-off and the fences on any backend, a real GPU
// included. The source is written late by a slow kernel on the source
// stream, so a copy not ordered after it reads old data.
func TestCopyStaged(t *testing.T) {
	old := stageBytes
	stageBytes = 64 << 10
	defer func() { stageBytes = old }()

	dev := testDevice(t)
	ks, err := testkernels.Load(dev)
	require.NoError(t, err)
	defer ks.Module.Close()
	one := device.LaunchConfig{Grid: device.Dim3{X: 1}, Block: device.Dim3{X: 1}}

	var wg sync.WaitGroup
	for g, n := range []uint64{4, 4096 + 4, 3*stageBytes + 8, 1 << 20} {
		srcS, dstS := newStream(t, dev), newStream(t, dev)
		src, dst := alloc(t, dev, n), alloc(t, dev, n)
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(g), 9))
			data := make([]byte, n)
			for i := range data {
				data[i] = byte(rng.Uint32())
			}
			for round := range 5 {
				data[0]++
				if !assert.NoError(t, device.Upload(srcS, src, data)) {
					return
				}
				// The last word of the source arrives late.
				last := uint32(round)<<8 | uint32(g)
				assert.NoError(t, srcS.Launch(ks.SpinWrite, one, src.Add(n-4), last, uint64(rng.IntN(200_000))))
				before := Stats()
				assert.NoError(t, CopyStaged(dstS, dst, srcS, src, n))
				assert.GreaterOrEqual(t, Stats().Staged, before.Staged+1)
				got := make([]byte, n)
				assert.NoError(t, device.Download(dstS, got, dst))
				want := append(data[:n-4:n-4], byte(last), byte(last>>8), 0, 0)
				if i := firstDiff(want, got); i >= 0 {
					t.Errorf("n=%d round %d: byte %d is %#x, want %#x", n, round, i, got[i], want[i])
					return
				}
			}
		})
	}
	wg.Wait()
}

// With peer access a direct copy between two devices moves the data (two
// host devices in CI, two GPUs with peer access on a multi-GPU machine).
func TestCopyDirect(t *testing.T) {
	d0, d1 := peerPair(t)
	require.Equal(t, Direct, Route(d1, d0))
	s := newStream(t, d1)
	const n = 1 << 16
	src, dst := alloc(t, d0, n), alloc(t, d1, n)
	data := make([]byte, n)
	for i := range data {
		data[i] = byte(i * 3)
	}
	require.NoError(t, device.Upload(s, src, data))
	before := Stats()
	require.NoError(t, CopyDirect(s, dst, d1, src, d0, n))
	assert.Equal(t, before.Direct+1, Stats().Direct)
	got := make([]byte, n)
	require.NoError(t, device.Download(s, got, dst))
	assert.Equal(t, data, got)

	other := newStream(t, d0)
	require.NoError(t, CopyDirect(other, dst, d1, src, d0, n), "a stream of the source device works too")
	assert.ErrorIs(t, CopyDirect(s, src, d0, src.Add(8), d0, 8), device.ErrInvalidValue, "a stream of neither device")
}

func firstDiff(a, b []byte) int {
	for i := range a {
		if a[i] != b[i] {
			return i
		}
	}
	return -1
}
