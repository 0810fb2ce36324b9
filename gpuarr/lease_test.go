package gpuarr_test

import (
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gpuarr/gpuarr/gpuarr"
	"github.com/gpuarr/gpuarr/internal/arrayhook"
)

func lease[T gpuarr.Numeric](t *testing.T, a *gpuarr.Array[T]) *arrayhook.HostLease {
	t.Helper()
	lay, err := arrayhook.PrepareHostAccess(a, arrayhook.HostAccess{})
	require.NoError(t, err)
	require.NotNil(t, lay.Lease)
	return lay.Lease
}

// A handle's lease: Run is its element count while it is unreleased and
// its elements are packed row-major, -1 for other layouts, and 0 from its
// own Release on; another handle's Release leaves it alone.
func TestHostLease(t *testing.T) {
	testDevice(t)
	a := must(gpuarr.Zeros[float32](gpuarr.Shape{4, 8}))
	la := lease(t, a)
	assert.Equal(t, 32, la.Run())
	assert.Same(t, la, lease(t, a), "one lease per handle")

	rows := must(a.Slice(1, 3))
	lr := lease(t, rows)
	assert.NotSame(t, la, lr)
	assert.Equal(t, 16, lr.Run())
	for name, x := range map[string]*gpuarr.Array[float32]{
		"transposed":         must(a.Transpose()),
		"every other column": must(a.Step(1, 0, 8, 2)),
		"backwards":          must(a.Step(1, 7, -1, -1)),
		"empty":              must(gpuarr.Zeros[float32](gpuarr.Shape{0, 3})),
	} {
		assert.Equal(t, -1, lease(t, x).Run(), name)
		require.NoError(t, x.Release())
	}
	col := must(a.Step(1, 3, 4, 1)) // column 3: shape (4, 1), strides (8, 1)
	assert.Equal(t, -1, lease(t, col).Run())
	one := must(a.Step(0, 2, 3, 1)) // row 2: (1, 8), strides (8, 1): packed
	assert.Equal(t, 8, lease(t, one).Run(), "a size-1 axis does not break the run")

	require.NoError(t, rows.Release())
	assert.Equal(t, 0, lr.Run(), "Release ends the handle's lease")
	assert.Equal(t, 32, la.Run(), "and no other handle's")
	require.NoError(t, col.Release())
	require.NoError(t, one.Release())
	require.NoError(t, a.Release())
	assert.Equal(t, 0, la.Run())
	_, err := arrayhook.PrepareHostAccess(a, arrayhook.HostAccess{})
	assert.ErrorIs(t, err, gpuarr.ErrReleased)
	assert.Equal(t, 0, la.Run(), "a refused access does not reopen it")
}

// PrepareHostAccess racing Release: once both returned, the released
// handle's lease is 0 whichever came first.
func TestHostLeaseRacesRelease(t *testing.T) {
	testDevice(t)
	for range 500 {
		a := must(gpuarr.Zeros[int32](gpuarr.Shape{64}))
		l := lease(t, a)
		var wg sync.WaitGroup
		wg.Add(2)
		go func() {
			defer wg.Done()
			_, _ = arrayhook.PrepareHostAccess(a, arrayhook.HostAccess{})
		}()
		go func() {
			defer wg.Done()
			_ = a.Release()
		}()
		wg.Wait()
		require.Equal(t, 0, l.Run())
	}
}

// Goroutines that make their first host access to one handle at once and
// then read through it: the lease is written once, so no read races a
// write (the race detector would report it).
func TestHostLeaseSharedFirstAccess(t *testing.T) {
	testDevice(t)
	for range 200 {
		a := must(gpuarr.Zeros[int32](gpuarr.Shape{8}))
		var wg sync.WaitGroup
		runs := make([]int, 4)
		for i := range runs {
			wg.Add(1)
			go func() {
				defer wg.Done()
				lay, err := arrayhook.PrepareHostAccess(a, arrayhook.HostAccess{})
				if err == nil {
					for range 10 {
						runs[i] = lay.Lease.Run()
					}
				}
			}()
		}
		wg.Wait()
		assert.Equal(t, []int{8, 8, 8, 8}, runs)
		require.NoError(t, a.Release())
	}
}
