package memory

import (
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gpuarr/gpuarr/device"
)

type pressureLog struct {
	mu    sync.Mutex
	calls []uint64
}

func (p *pressureLog) BeforeAlloc(dev *device.Device, n uint64) {
	p.mu.Lock()
	p.calls = append(p.calls, n)
	p.mu.Unlock()
}

// The default resources announce each allocation to the process-wide
// Pressure before making it; resources built by hand do not.
func TestDefaultResourcesCallPressure(t *testing.T) {
	dev := defaultDevice(t)
	log := &pressureLog{}
	prev := SetPressure(log)
	defer SetPressure(prev)

	def, err := Default(dev)
	require.NoError(t, err)
	b, err := def.Alloc(nil, 1000)
	require.NoError(t, err)
	require.NoError(t, def.Free(b))
	assert.Equal(t, []uint64{1000}, log.calls, "Default's allocation is announced with its size")

	if dev.Info().ManagedMemory {
		m, err := DefaultManaged(dev)
		require.NoError(t, err)
		b, err := m.Alloc(nil, 3000)
		require.NoError(t, err)
		require.NoError(t, m.Free(b))
		assert.Equal(t, []uint64{1000, 3000}, log.calls, "DefaultManaged's allocation is announced too")
	}

	direct, _, err := New(dev, Config{Pool: KindDirect, Pressure: true})
	require.NoError(t, err)
	b, err = direct.Alloc(nil, 2000)
	require.NoError(t, err)
	require.NoError(t, direct.Free(b))
	assert.Contains(t, log.calls, uint64(2000), "New with Pressure announces for a kind without a caching pool too")

	own := Caching(Direct(dev), CachingOptions{})
	b, err = own.Alloc(nil, 500)
	require.NoError(t, err)
	require.NoError(t, own.Free(b))
	require.NoError(t, own.EmptyCache())
	assert.NotContains(t, log.calls, uint64(500), "a resource built by hand does not call the hook")

	assert.Same(t, log, SetPressure(prev), "SetPressure returns the previous hook")
	SetPressure(log) // for the deferred restore
}
