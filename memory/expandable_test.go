package memory

import (
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gpuarr/gpuarr/device"
)

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

func expandableOrSkip(t *testing.T, dev *device.Device, reserve uint64) *expandable {
	t.Helper()
	r, err := Expandable(dev, ExpandableOptions{Reserve: reserve})
	if err != nil {
		require.ErrorIs(t, err, device.ErrNotSupported)
		t.Skipf("no virtual memory management on %s: %v", dev, err)
	}
	return r.(*expandable)
}

func TestExpandableGrowsInPlaceAndTrimsBack(t *testing.T) {
	dev := defaultDevice(t)
	e := expandableOrSkip(t, dev, 64<<20)
	g := e.r.Granularity()
	freeBefore, _, err := dev.MemInfo()
	require.NoError(t, err)

	a := must(e.Alloc(nil, g/2))
	assert.Equal(t, e.r.Base(), a.Ptr())
	assert.Equal(t, g, e.Stats().ReservedBytes.Current, "half a granule maps one granule")
	data := []byte("kept across growth")
	require.NoError(t, dev.CopyHtoD(a.Ptr(), unsafe.Pointer(&data[0]), uint64(len(data))))

	// The next block continues the same addresses across a granule boundary.
	b := must(e.Alloc(nil, g))
	assert.Equal(t, a.Ptr().Add(g/2), b.Ptr(), "grown in place")
	assert.Equal(t, 2*g, e.Stats().ReservedBytes.Current)
	require.NoError(t, dev.DefaultStream().Memset8(b.Ptr(), 7, b.Capacity()))
	got := make([]byte, len(data))
	require.NoError(t, dev.CopyDtoH(unsafe.Pointer(&got[0]), a.Ptr(), uint64(len(got))))
	assert.Equal(t, data, got)
	if dev.Backend() == "host" {
		free, _, err := dev.MemInfo()
		require.NoError(t, err)
		assert.Equal(t, freeBefore-2*g, free, "only mapped granules cost memory")
	}

	// Trimming back: a granule goes when its last block does.
	require.NoError(t, e.Free(a))
	assert.Equal(t, 2*g, e.Stats().ReservedBytes.Current, "b still uses the first granule")
	require.NoError(t, e.Free(b))
	assert.Zero(t, e.Stats().ReservedBytes.Current)
	assert.Equal(t, 2*g, e.Stats().ReservedBytes.Peak)
	assert.Equal(t, []span{{0, e.r.Size()}}, e.free, "the free spans coalesced")
	if dev.Backend() == "host" {
		free, _, err := dev.MemInfo()
		require.NoError(t, err)
		assert.Equal(t, freeBefore, free)
	}

	// Freed addresses are reused first fit.
	c := must(e.Alloc(nil, 100))
	assert.Equal(t, e.r.Base(), c.Ptr())
	require.NoError(t, e.Free(c))

	// Bad input.
	require.ErrorIs(t, e.Free(c), device.ErrInvalidValue, "double free")
	other := must(Direct(dev).Alloc(nil, 64))
	require.ErrorIs(t, e.Free(other), device.ErrInvalidValue, "foreign block")
	_, err = e.Alloc(nil, e.r.Size()+1)
	require.ErrorIs(t, err, device.ErrOutOfMemory)
	assert.Contains(t, err.Error(), "reservation is full")
}

// Under a caching pool, the pool's segments are adjacent addresses of one
// reservation and cost whole granules, not fixed-size segments.
func TestCachingOnExpandable(t *testing.T) {
	dev := defaultDevice(t)
	e := expandableOrSkip(t, dev, 0)
	p := Caching(e, CachingOptions{})
	var bs []*Block
	for range 6 {
		bs = append(bs, must(p.Alloc(nil, 768<<10)))
	}
	st := p.Stats()
	assert.Equal(t, st.ReservedBytes.Current, e.Stats().ReservedBytes.Current)
	assert.LessOrEqual(t, e.Stats().ReservedBytes.Current, roundUp(6*(1<<20), e.r.Granularity()))
	for _, b := range bs {
		off := uint64(b.Ptr() - e.r.Base())
		assert.Less(t, off, uint64(16<<20), "blocks stay at the start of the reservation")
		require.NoError(t, p.Free(b))
	}
	require.NoError(t, p.EmptyCache())
	assert.Zero(t, e.Stats().ReservedBytes.Current, "emptying the cache unmaps every granule")
}

func TestExpandableFromEnv(t *testing.T) {
	dev := defaultDevice(t)
	expandableOrSkip(t, dev, 0)
	cfg, err := ConfigFromEnv(dev, envOf(map[string]string{EnvExpandable: "1"}))
	require.NoError(t, err)
	require.True(t, cfg.Expandable)
	r, _, err := New(dev, cfg)
	require.NoError(t, err)
	p, ok := r.(*CachingPool)
	require.True(t, ok, "%T", r)
	require.Equal(t, KindExpandable, p.Upstream().Stats().Kind)
	b := must(r.Alloc(nil, 1000))
	require.NoError(t, r.Free(b))
	require.NoError(t, r.EmptyCache())
	require.Zero(t, p.Upstream().Stats().ReservedBytes.Current)
}
