package memory

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gpuarr/gpuarr/device"
)

// ManagedUsage counts DefaultManaged's bytes: Allocated what its blocks
// hold, Reserved what it obtained from the driver (the segment, with what
// the pool caches), Resident at most Reserved; on the host backend, whose
// driver counts managed memory as used from the allocation on, all of it
// is resident. ManagedUse is its Allocated and Resident.
func TestManagedUse(t *testing.T) {
	dev := defaultDevice(t)
	if !dev.Info().ManagedMemory {
		t.Skipf("%s has no managed memory", dev)
	}
	r, err := DefaultManaged(dev)
	require.NoError(t, err)
	require.NoError(t, r.EmptyCache())
	u0 := ManagedUsage(dev, 0, 0)
	const n = 3 << 20
	b, err := r.Alloc(nil, n)
	require.NoError(t, err)
	free, total, err := dev.MemInfo()
	require.NoError(t, err)
	u := ManagedUsage(dev, free, total)
	assert.Equal(t, u0.Allocated+n, u.Allocated)
	assert.GreaterOrEqual(t, u.Reserved, u0.Reserved+n, "the block's segment was obtained")
	assert.LessOrEqual(t, u.Resident, u.Reserved)
	if dev.Backend() == "host" {
		assert.Equal(t, u.Reserved, u.Resident)
	}
	bytes, resident := ManagedUse(dev, free, total)
	assert.Equal(t, u.Allocated, bytes)
	assert.Equal(t, u.Resident, resident)
	_, resident = ManagedUse(dev, total, total)
	assert.Zero(t, resident, "nothing is resident when the driver counts nothing used")
	require.NoError(t, r.Free(b))
	u1 := ManagedUsage(dev, 0, 0)
	assert.Equal(t, u0.Allocated, u1.Allocated)
	require.NoError(t, r.EmptyCache())
	assert.Equal(t, u0.Reserved, ManagedUsage(dev, 0, 0).Reserved, "the cache went back to the driver")
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
