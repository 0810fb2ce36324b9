package memory

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A block is fresh when it covers memory no earlier block of its segment
// covered: a new segment's first block, a later block carved beyond it,
// but not a block the front cache hands out again.
func TestFreshBlocks(t *testing.T) {
	dev := defaultDevice(t)
	s := newStream(t, dev)
	p := Caching(Direct(dev), CachingOptions{})
	defer func() { require.NoError(t, p.EmptyCache()) }()

	b1, err := p.Alloc(s, 2<<20) // a new 20 MiB segment
	require.NoError(t, err)
	assert.True(t, b1.Fresh(), "a new segment's first block")
	b2, err := p.Alloc(s, 3<<20) // the segment's remainder, beyond b1
	require.NoError(t, err)
	assert.Equal(t, b1.seg, b2.seg, "b2 comes from b1's segment")
	assert.True(t, b2.Fresh(), "a block beyond what the segment covered")
	require.NoError(t, p.Free(b1))
	b3, err := p.Alloc(s, 2<<20)
	require.NoError(t, err)
	assert.Equal(t, b1.Ptr(), b3.Ptr(), "the front cache hands b1's memory out again")
	assert.False(t, b3.Fresh(), "memory a block covered before")
	require.NoError(t, p.Free(b2))
	require.NoError(t, p.Free(b3))
	require.NoError(t, s.Synchronize())
}

// Every block of Managed is a managed allocation of its own: fresh.
func TestManagedBlocksAreFresh(t *testing.T) {
	dev := defaultDevice(t)
	if !dev.Info().ManagedMemory {
		t.Skipf("%s has no managed memory", dev)
	}
	m := Managed(dev)
	b, err := m.Alloc(dev.DefaultStream(), 1<<16)
	require.NoError(t, err)
	assert.True(t, b.Fresh())
	require.NoError(t, m.Free(b))
}
