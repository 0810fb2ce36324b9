package memory

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gpuarr/gpuarr/device"
)

// ManagedUse counts DefaultManaged's bytes; on the host backend, whose
// driver counts managed memory as used from the allocation on, all of
// them are resident.
func TestManagedUse(t *testing.T) {
	dev := defaultDevice(t)
	if !dev.Info().ManagedMemory {
		t.Skipf("%s has no managed memory", dev)
	}
	r, err := DefaultManaged(dev)
	require.NoError(t, err)
	bytes0, _ := ManagedUse(dev, 0, 0)
	const n = 3 << 20
	b, err := r.Alloc(nil, n)
	require.NoError(t, err)
	free, total, err := dev.MemInfo()
	require.NoError(t, err)
	bytes, resident := ManagedUse(dev, free, total)
	assert.Equal(t, bytes0+n, bytes)
	assert.LessOrEqual(t, resident, bytes)
	if dev.Backend() == "host" {
		assert.Equal(t, bytes, resident)
	}
	_, resident = ManagedUse(dev, total, total)
	assert.Zero(t, resident, "nothing is resident when the driver counts nothing used")
	require.NoError(t, r.Free(b))
	bytes, _ = ManagedUse(dev, 0, 0)
	assert.Equal(t, bytes0, bytes)
}

// ReclaimUntil climbs the process-wide reclaimer's levels, asking try after
// each and stopping at the first yes; when none says yes, the default
// resource empties its cache and try is asked once more.
func TestReclaimUntil(t *testing.T) {
	dev := defaultDevice(t)
	var levels []int
	prev := SetReclaimer(ReclaimFunc(func(d *device.Device, need uint64, level int) bool {
		assert.Equal(t, dev, d)
		assert.Equal(t, uint64(42), need)
		levels = append(levels, level)
		return true
	}))
	defer SetReclaimer(prev)

	tries := 0
	assert.True(t, ReclaimUntil(dev, 42, func() bool { tries++; return tries == 2 }))
	assert.Equal(t, []int{0, 1}, levels, "it stops at the first yes")

	levels, tries = nil, 0
	assert.False(t, ReclaimUntil(dev, 42, func() bool { tries++; return false }))
	assert.Equal(t, []int{0, 1, 2, 3}, levels)
	assert.Equal(t, ReclaimLevels+1, tries, "one try after each level and a last one")
}
