package memory

import (
	"errors"
	"fmt"
	"sync"
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

// cappedAccount is a HostAccount that refuses charges past limit bytes.
type cappedAccount struct {
	mu          sync.Mutex
	limit, used uint64
	refused     int
}

func (a *cappedAccount) Charge(n uint64) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.used+n > a.limit {
		a.refused++
		return fmt.Errorf("capped account: %d bytes refused, %d of %d charged: %w", n, a.used, a.limit, errCapped)
	}
	a.used += n
	return nil
}

func (a *cappedAccount) Release(n uint64) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.used -= n
}

var errCapped = errors.New("not enough system memory")

// A managed segment the host-memory account refuses makes the caching
// pool climb the exhaustion ladder, as a device's refusal does: the
// reclaimer (a garbage collection, here a Free) gives a block back to the
// cache, where the request fits. Without a reclaimer that frees anything,
// the pool fails with an error that names both the out-of-memory condition
// and the account's refusal.
func TestHostRefusalClimbsTheLadder(t *testing.T) {
	dev := defaultDevice(t)
	if !dev.Info().ManagedMemory {
		t.Skipf("%s has no managed memory", dev)
	}
	if _, checking := dev.Checking(); checking {
		t.Skip("the managed pool caches nothing in checking mode")
	}
	const n = 4 << 20
	acct := &cappedAccount{limit: 2 * n}
	md := &managedDefault{dev: dev, share: &managedShare{}}
	up := &admitted{upstream: upstream{&managed{dev: dev, share: md.share}}, md: md, acct: acct}
	var pending []*Block
	var p *CachingPool
	reclaims := 0
	p = Caching(up, CachingOptions{Reclaimer: ReclaimFunc(func(_ *device.Device, _ uint64, _ int) bool {
		reclaims++
		if len(pending) == 0 {
			return false
		}
		require.NoError(t, p.Free(pending[0]))
		pending = pending[1:]
		return true
	})})
	t.Cleanup(func() { _ = p.EmptyCache() })
	a, err := p.Alloc(nil, n)
	require.NoError(t, err)
	b, err := p.Alloc(nil, n)
	require.NoError(t, err)
	pending = []*Block{a} // unreachable: the next collection frees it
	c, err := p.Alloc(nil, n)
	require.NoError(t, err, "the refused segment climbed the ladder")
	assert.Positive(t, acct.refused, "the account refused a segment")
	assert.Positive(t, reclaims)
	_, err = p.Alloc(nil, n)
	require.Error(t, err, "nothing left to reclaim")
	assert.ErrorIs(t, err, device.ErrOutOfMemory)
	assert.ErrorIs(t, err, errCapped)
	require.NoError(t, p.Free(b))
	require.NoError(t, p.Free(c))
	require.NoError(t, p.EmptyCache())
	assert.Zero(t, acct.used, "every charge was released")
}

// With GPUARR_DEBUG=events the caching pool destroys a given-back event
// instead of keeping it for the next record; by default it keeps it.
func TestPoolEventReuseSwitch(t *testing.T) {
	dev := defaultDevice(t)
	for _, off := range []bool{false, true} {
		defer func(v bool) { noEventReuse = v }(noEventReuse)
		noEventReuse = off
		p := Caching(Direct(dev), CachingOptions{})
		p.mu.Lock()
		e, err := p.newEventLocked()
		require.NoError(t, err)
		p.spareEventLocked(e)
		e2, err := p.newEventLocked()
		require.NoError(t, err)
		p.mu.Unlock()
		if off {
			assert.NotSame(t, e.ev, e2.ev, "GPUARR_DEBUG=events: a new event")
			assert.ErrorIs(t, e.ev.Close(), device.ErrClosed, "the given-back event was destroyed")
		} else {
			assert.Same(t, e.ev, e2.ev, "the pool reuses a given-back event")
		}
		require.NoError(t, e2.ev.Close())
	}
}

// Device memory held through a Direct resource (a graph pool, a caller's
// own) is this process's, not managed memory that migrated to the device:
// when the driver's used memory is exactly the default resource's reserved
// bytes plus that, no managed byte is resident.
func TestManagedResidentExcludesDirectMemory(t *testing.T) {
	dev := defaultDevice(t)
	if !dev.Info().ManagedMemory {
		t.Skipf("%s has no managed memory", dev)
	}
	r, err := DefaultManaged(dev)
	require.NoError(t, err)
	b, err := r.Alloc(nil, 1<<20)
	require.NoError(t, err)
	defer func() { require.NoError(t, r.Free(b)) }()
	d := Direct(dev)
	const held = 4 << 20
	db, err := d.Alloc(nil, held)
	require.NoError(t, err)
	def, err := Default(dev)
	require.NoError(t, err)
	const total = 1 << 40
	used := def.Stats().ReservedBytes.Current + outsideBytes(dev) // held, and what other tests left
	u := ManagedUsage(dev, total-used, total)
	require.Positive(t, u.Reserved)
	assert.Zero(t, u.Resident, "the Direct block counted as resident managed memory")
	require.NoError(t, d.Free(db))
	u = ManagedUsage(dev, total-used, total)
	assert.Equal(t, min(u.Reserved, uint64(held)), u.Resident, "once freed, the same used memory must be someone else's")
}
