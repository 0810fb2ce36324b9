package memory

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gpuarr/gpuarr/device"
)

// A pool asked to poison fills every freed block with the device's poison
// byte before reuse, whichever way the block comes back: through the
// front cache, through the index (front caches off), or after a pending
// free (RecordUse).
func TestPoisonedFrees(t *testing.T) {
	dev := defaultDevice(t)
	poison, _ := dev.Checking()
	s := dev.DefaultStream()
	other := newStream(t, dev)

	// A segment of exactly this size: the block is the whole segment, so
	// the next request of the size gets it back whichever path it took.
	const n = minLargeAlloc
	data := bytes.Repeat([]byte{^poison}, n)

	for name, tc := range map[string]struct {
		opts CachingOptions
		free func(*CachingPool, *Block) error
	}{
		"front cache": {CachingOptions{Poison: true}, (*CachingPool).Free},
		"index":       {CachingOptions{Poison: true, FrontBlocks: -1}, (*CachingPool).Free},
		"pending": {CachingOptions{Poison: true}, func(p *CachingPool, b *Block) error {
			if err := p.RecordUse(b, other); err != nil {
				return err
			}
			if err := p.Free(b); err != nil {
				return err
			}
			return other.Synchronize()
		}},
	} {
		t.Run(name, func(t *testing.T) {
			pool := Caching(Direct(dev), tc.opts)
			b, err := pool.Alloc(s, n)
			require.NoError(t, err)
			ptr := b.Ptr()
			require.NoError(t, device.Upload(s, ptr, data))
			require.NoError(t, tc.free(pool, b))

			c, err := pool.Alloc(s, n)
			require.NoError(t, err)
			require.Equal(t, ptr, c.Ptr(), "the freed block is reused")
			got := make([]byte, n)
			require.NoError(t, device.Download(s, got, c.Ptr()))
			require.Equal(t, n, bytes.Count(got, []byte{poison}), "bytes holding the poison byte %#x", poison)
			require.NoError(t, pool.Free(c))
			require.NoError(t, pool.EmptyCache())
		})
	}
}
