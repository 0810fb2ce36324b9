package host

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gpuarr/gpuarr/device/driver"
)

func usage(t *testing.T, p driver.MemPool) [2]uint64 {
	t.Helper()
	r, u, err := p.Usage()
	require.NoError(t, err)
	return [2]uint64{r, u}
}

// A freed block is reusable at once on its own stream, on another stream
// only once the free has executed; the release threshold bounds what stays
// reserved.
func TestMemPoolStreamOrderedReuse(t *testing.T) {
	d := testSystem(t).devs[0]
	k := testKernels(t, d)
	pool, err := d.NewMemPool(1 << 20)
	require.NoError(t, err)
	s1, s2 := newTestStream(t, d), newTestStream(t, d)

	a, err := pool.AllocAsync(1000, s1) // rounded to 1024
	require.NoError(t, err)
	assert.Equal(t, [2]uint64{1024, 1024}, usage(t, pool))

	launch(t, s1, k["spin_write"], a, uint32(1), 30*time.Millisecond)
	require.NoError(t, pool.FreeAsync(a, s1))
	assert.Equal(t, [2]uint64{1024, 0}, usage(t, pool))
	b, err := pool.AllocAsync(1024, s2)
	require.NoError(t, err)
	assert.NotEqual(t, a, b, "another stream must not get a block whose free is pending")
	c, err := pool.AllocAsync(1024, s1)
	require.NoError(t, err)
	assert.Equal(t, a, c, "the freeing stream reuses the block at once")
	assert.Equal(t, [2]uint64{2048, 2048}, usage(t, pool))

	require.NoError(t, pool.FreeAsync(c, s1))
	require.NoError(t, s1.Synchronize())
	e, err := pool.AllocAsync(900, s2)
	require.NoError(t, err)
	assert.Equal(t, a, e, "after the free executed any stream reuses it")

	assert.ErrorIs(t, d.Free(e), driver.ErrInvalidValue, "pool memory is freed with FreeAsync")
	assert.ErrorIs(t, pool.FreeAsync(e+8, s2), driver.ErrInvalidValue, "interior pointer")
	plain := newTestAlloc(t, d, 64)
	assert.ErrorIs(t, pool.FreeAsync(plain, s2), driver.ErrInvalidValue, "not from this pool")

	// Stream.FreeAsync returns pool memory to its pool.
	require.NoError(t, s2.FreeAsync(e))
	require.NoError(t, s2.FreeAsync(b))
	assert.ErrorIs(t, s2.FreeAsync(b), driver.ErrInvalidValue, "double free")
	require.NoError(t, s2.Synchronize())
	assert.Equal(t, [2]uint64{2048, 0}, usage(t, pool), "within the threshold, blocks stay cached")

	require.NoError(t, pool.TrimTo(1024))
	assert.Equal(t, [2]uint64{1024, 0}, usage(t, pool))
	require.NoError(t, pool.SetReleaseThreshold(0))
	assert.Equal(t, [2]uint64{0, 0}, usage(t, pool))

	// With a zero threshold a free gives the memory back once executed.
	f, err := pool.AllocAsync(4096, s1)
	require.NoError(t, err)
	require.NoError(t, pool.FreeAsync(f, s1))
	require.NoError(t, s1.Synchronize())
	assert.Equal(t, [2]uint64{0, 0}, usage(t, pool))
	assert.Nil(t, index.lookup(f))
}

func TestMemPoolClose(t *testing.T) {
	d := testSystem(t).devs[0]
	pool, err := d.NewMemPool(1 << 30)
	require.NoError(t, err)
	s := newTestStream(t, d)
	a, err := pool.AllocAsync(512, s)
	require.NoError(t, err)
	b, err := pool.AllocAsync(512, s)
	require.NoError(t, err)
	require.NoError(t, pool.FreeAsync(a, s))
	require.NoError(t, s.Synchronize())
	free, _, err := d.MemInfo()
	require.NoError(t, err)

	require.NoError(t, pool.Close())
	assert.Equal(t, driver.Closed, code(t, pool.Close()))
	_, err = pool.AllocAsync(512, s)
	assert.Equal(t, driver.Closed, code(t, err))
	after, _, err := d.MemInfo()
	require.NoError(t, err)
	assert.Equal(t, free+512, after, "cached blocks are released at Close")

	require.NoError(t, pool.FreeAsync(b, s), "outstanding blocks can still be freed")
	require.NoError(t, s.Synchronize())
	final, _, err := d.MemInfo()
	require.NoError(t, err)
	assert.Equal(t, after+512, final)
}

// A pool gives back what it caches before failing for lack of capacity.
func TestMemPoolTrimsOnOutOfMemory(t *testing.T) {
	d := testSystem(t, withMemory(1<<20)).devs[0]
	pool, err := d.NewMemPool(1 << 30)
	require.NoError(t, err)
	s := newTestStream(t, d)
	a, err := pool.AllocAsync(600<<10, s)
	require.NoError(t, err)
	require.NoError(t, pool.FreeAsync(a, s))
	require.NoError(t, s.Synchronize())
	b, err := pool.AllocAsync(700<<10, s)
	require.NoError(t, err, "the cached 600 KiB block was released to make room")
	require.NoError(t, pool.FreeAsync(b, s))
	require.NoError(t, s.Synchronize())
	_, err = pool.AllocAsync(2<<20, s)
	assert.ErrorIs(t, err, driver.ErrOutOfMemory)
}
