package memory

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gpuarr/gpuarr/device"
)

// stubborn is an upstream whose EmptyCache fails, counting allocations.
type stubborn struct {
	Resource
	allocs int
	err    error
}

func (u *stubborn) Alloc(s *device.Stream, n uint64) (*Block, error) {
	u.allocs++
	return u.Resource.Alloc(s, n)
}

func (u *stubborn) EmptyCache() error { return u.err }

// The Reclaiming adaptor climbs the caching pool's ladder: the reclaimer's
// levels in order with a retry after each, then its upstream's EmptyCache
// and a last try.
func TestReclaimingClimbsTheLadder(t *testing.T) {
	dev := defaultDevice(t)
	s := dev.DefaultStream()

	t.Run("reclaimer frees", func(t *testing.T) {
		up := Limit(Direct(dev), 4<<20)
		held, err := up.Alloc(s, 3<<20)
		require.NoError(t, err)
		var levels []int
		r := Reclaiming(up, ReclaimFunc(func(d *device.Device, need uint64, level int) bool {
			require.Equal(t, dev, d)
			require.Equal(t, uint64(3<<20), need)
			levels = append(levels, level)
			if level == 1 {
				require.NoError(t, up.Free(held))
			}
			return true
		}))
		b, err := r.Alloc(s, 3<<20)
		require.NoError(t, err)
		require.Equal(t, []int{0, 1}, levels)
		require.NoError(t, r.Free(b))
	})

	t.Run("reclaimer gives up at once", func(t *testing.T) {
		up := &stubborn{Resource: Limit(Direct(dev), 4<<20)}
		held, err := up.Alloc(s, 3<<20)
		require.NoError(t, err)
		calls := 0
		r := Reclaiming(up, ReclaimFunc(func(*device.Device, uint64, int) bool { calls++; return false }))
		up.allocs = 0
		_, err = r.Alloc(s, 3<<20)
		require.ErrorIs(t, err, device.ErrOutOfMemory)
		require.Equal(t, 1, calls)
		require.Equal(t, 2, up.allocs, "the first try and the last, after EmptyCache")
		require.NoError(t, up.Free(held))
	})

	t.Run("failure carries the report and EmptyCache's error", func(t *testing.T) {
		boom := errors.New("empty cache failed")
		up := &stubborn{Resource: Limit(Direct(dev), 4<<20), err: boom}
		held, err := up.Alloc(s, 3<<20)
		require.NoError(t, err)
		calls := 0
		r := Reclaiming(up, ReclaimFunc(func(*device.Device, uint64, int) bool { calls++; return true }))
		up.allocs = 0
		_, err = r.Alloc(s, 3<<20)
		require.ErrorIs(t, err, device.ErrOutOfMemory)
		require.ErrorIs(t, err, boom)
		var oom *OutOfMemoryError
		require.ErrorAs(t, err, &oom)
		require.Equal(t, uint64(3<<20), oom.Requested)
		require.Equal(t, ReclaimLevels, calls)
		require.Equal(t, 1+ReclaimLevels+1, up.allocs, "a failing EmptyCache does not skip the last try")
		require.NoError(t, up.Free(held))
	})
}

// Adaptors forward what they do not change, stream ordering included: a
// caching pool over a wrapped driver pool still orders other streams after
// a new segment.
func TestAdaptorsForwardStreamOrdering(t *testing.T) {
	dev := defaultDevice(t)
	pool, err := DriverPool(dev, DriverPoolOptions{})
	if errors.Is(err, device.ErrNotSupported) {
		t.Skipf("%s has no driver memory pools: %v", dev, err)
	}
	require.NoError(t, err)
	require.True(t, isStreamOrdered(pool))
	tr := NewTracer(8)
	for name, wrap := range map[string]func(Resource) Resource{
		"limit":      func(r Resource) Resource { return Limit(r, 1<<30) },
		"reclaiming": func(r Resource) Resource { return Reclaiming(r, nil) },
		"statistics": Statistics,
		"trace":      func(r Resource) Resource { return tr.Wrap(r, TraceSegment) },
	} {
		t.Run(name, func(t *testing.T) {
			require.False(t, isStreamOrdered(wrap(Direct(dev))))
			require.True(t, isStreamOrdered(wrap(wrap(pool))))
			require.False(t, isStreamOrdered(wrap(Caching(pool, CachingOptions{}))))
		})
	}
}
