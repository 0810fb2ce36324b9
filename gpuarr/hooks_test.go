package gpuarr_test

import (
	"errors"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gpuarr/gpuarr/device"
	"github.com/gpuarr/gpuarr/gpuarr"
	"github.com/gpuarr/gpuarr/internal/arrayhook"
	"github.com/gpuarr/gpuarr/memory"
)

// HostAccess.Migrate runs once per pending GPU write, on the writer's
// stream, over the memory the view spans; its work costs no extra wait.
func TestPrepareHostAccessMigrate(t *testing.T) {
	dev := testDevice(t)
	s := newStreams(t, dev, 1)[0]
	a := must(gpuarr.Zeros[float32](gpuarr.Shape{4, 8}, gpuarr.On(s)))
	defer a.Release()

	type call struct {
		s *device.Stream
		p device.Ptr
		n uint64
	}
	var calls []call
	how := arrayhook.HostAccess{Migrate: func(s *device.Stream, p device.Ptr, n uint64) (bool, error) {
		calls = append(calls, call{s, p, n})
		return true, nil
	}}

	require.NoError(t, gpuarr.EvalInto(a, gpuarr.Scalar[float32](1), gpuarr.On(s)))
	syncs := arrayhook.HostSyncs()
	lay, err := arrayhook.PrepareHostAccess(a, how)
	require.NoError(t, err)
	require.Len(t, calls, 1, "a pending GPU write: one migration")
	assert.Equal(t, call{s, lay.Ptr, 4 * 8 * 4}, calls[0])
	assert.Equal(t, syncs+1, arrayhook.HostSyncs(), "one wait covers the write and the migration")

	_, err = arrayhook.PrepareHostAccess(a, how)
	require.NoError(t, err)
	assert.Len(t, calls, 1, "a clean array: no migration")

	// A backwards view (sharing a's dirty buffer) spans from its last
	// element's address up.
	col := must(a.Step(1, 6, 1, -2)) // columns 6, 4, 2
	defer col.Release()
	require.NoError(t, gpuarr.EvalInto(a, gpuarr.Scalar[float32](2), gpuarr.On(s)))
	lay, err = arrayhook.PrepareHostAccess(col, how)
	require.NoError(t, err)
	require.Len(t, calls, 2)
	assert.Equal(t, lay.Ptr.Add(^uint64(2*2*4-1)), calls[1].p, "from column 2, two columns before the first element")
	assert.Equal(t, uint64((3*8+4+1)*4), calls[1].n, "through row 3, column 6")

	// A failing migration fails the access and leaves the array dirty.
	require.NoError(t, gpuarr.EvalInto(a, gpuarr.Scalar[float32](3), gpuarr.On(s)))
	boom := errors.New("boom")
	_, err = arrayhook.PrepareHostAccess(a, arrayhook.HostAccess{Migrate: func(*device.Stream, device.Ptr, uint64) (bool, error) {
		return false, boom
	}})
	assert.ErrorIs(t, err, boom)
	syncs = arrayhook.HostSyncs()
	_, err = arrayhook.PrepareHostAccess(a, arrayhook.HostAccess{})
	require.NoError(t, err)
	assert.Equal(t, syncs+1, arrayhook.HostSyncs(), "still dirty after the failed access")
	assert.Equal(t, float32(3), values(t, a)[0])

	// The whole-device wait migrates nothing.
	require.NoError(t, gpuarr.EvalInto(a, gpuarr.Scalar[float32](4), gpuarr.On(s)))
	how.WholeDevice = true
	_, err = arrayhook.PrepareHostAccess(a, how)
	require.NoError(t, err)
	assert.Len(t, calls, 2)
}

// CopyFromHost from page-locked memory: the copy is a DMA that reads the
// source when the stream gets there, so CopyFromHost waits for it and the
// caller may overwrite the source on return, as with Go memory. The
// stream is busy with a slow kernel first, so an early return would copy
// the overwritten values.
func TestCopyFromHostPinnedSourceReusable(t *testing.T) {
	dev := testDevice(t)
	ks := kernels(t, dev)
	s := newStreams(t, dev, 1)[0]
	const n = 1 << 12
	pin, err := dev.AllocHost(n * 4)
	require.NoError(t, err)
	defer func() { require.NoError(t, dev.FreeHost(pin)) }()
	src := unsafe.Slice((*uint32)(unsafe.Pointer(unsafe.SliceData(pin))), n)
	require.True(t, device.IsPinned(unsafe.Pointer(unsafe.SliceData(src)), n*4))

	x := must(gpuarr.Zeros[uint32](gpuarr.Shape{n}, gpuarr.On(s)))
	defer x.Release()
	delay := must(gpuarr.Zeros[uint32](gpuarr.Shape{1}, gpuarr.On(s)))
	defer delay.Release()
	for trial := range uint32(20) {
		require.NoError(t, gpuarr.Launch(ks.SpinWrite, one, gpuarr.Out(delay), trial, uint64(200_000), gpuarr.On(s)))
		for i := range src {
			src[i] = trial
		}
		require.NoError(t, x.CopyFromHost(src, gpuarr.On(s)))
		for i := range src {
			src[i] = 1 << 31 // reused at once
		}
		got := values(t, x)
		require.Equal(t, trial, got[0], "trial %d: the copy read the source after CopyFromHost returned", trial)
		require.Equal(t, trial, got[n-1], "trial %d", trial)
	}
}

// StreamOf resolves gpuarr's options for the packages that issue work
// themselves, as gpuarr's own calls do, with errors that name no call.
func TestStreamOf(t *testing.T) {
	dev := testDevice(t)
	s := newStreams(t, dev, 1)[0]
	got, err := arrayhook.StreamOf([]gpuarr.Option{gpuarr.OnDevice(dev), gpuarr.On(s)}, nil)
	require.NoError(t, err)
	assert.Same(t, s, got, "the last option")
	got, err = arrayhook.StreamOf(nil, dev)
	require.NoError(t, err)
	assert.Same(t, dev.DefaultStream(), got, "the fallback's default stream")

	_, err = arrayhook.StreamOf([]gpuarr.Option{gpuarr.Axis(1)}, dev)
	require.ErrorIs(t, err, gpuarr.ErrArgument)
	assert.ErrorContains(t, err, "the option gpuarr.Axis(1) is not taken here")
	_, err = arrayhook.StreamOf([]gpuarr.Option{gpuarr.On(nil)}, dev)
	require.ErrorIs(t, err, gpuarr.ErrArgument)
	assert.EqualError(t, err, "gpuarr.On(nil): bad argument")
	_, err = arrayhook.StreamOf([]gpuarr.Option{nil}, dev)
	assert.EqualError(t, err, "nil Option: bad argument")

	_, err = arrayhook.EmptyFrom[float32](must(memory.Default(dev)), gpuarr.Shape{2}, gpuarr.TF32())
	require.ErrorIs(t, err, gpuarr.ErrArgument)
	assert.ErrorContains(t, err, "gpuarr.EmptyFrom does not take the option gpuarr.TF32()")
}
