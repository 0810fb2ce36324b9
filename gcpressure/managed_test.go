package gcpressure

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gpuarr/gpuarr/memory"
)

// Managed memory (memory.DefaultManaged, package unified's arrays) counts
// as live in the device's reading, and in what the ladder sees freed, so
// that eager collection and the ladder act on unified arrays too. The
// limit stays the device's: under a hard limit that limit, else the
// memory the driver and the pool make available, which managed memory
// resident on the device (all of it, on the host backend) takes nothing
// from.
func TestDeviceReadingCountsManagedMemory(t *testing.T) {
	dev := defaultDevice(t)
	if !dev.Info().ManagedMemory {
		t.Skipf("%s has no managed memory", dev)
	}
	res, err := memory.DefaultManaged(dev)
	require.NoError(t, err)
	r0, live0 := deviceReading(dev), defaultLive(dev)
	const n = 4 << 20
	b, err := res.Alloc(nil, n)
	require.NoError(t, err)
	r1, live1 := deviceReading(dev), defaultLive(dev)
	require.NoError(t, res.Free(b))
	assert.Equal(t, r0.Live+n, r1.Live, "the managed bytes are live")
	assert.Equal(t, live0+n, live1, "and count in what the ladder sees freed")
	if dev.Backend() == "host" {
		assert.Equal(t, r0.Limit, r1.Limit, "the limit does not move")
	}
	assert.Equal(t, r0, deviceReading(dev), "freed, they are gone from the reading")
}
