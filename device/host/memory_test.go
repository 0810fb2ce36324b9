package host

import (
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gpuarr/gpuarr/device/driver"
)

func TestCapacityIsEnforced(t *testing.T) {
	d := testSystem(t, withMemory(1<<20)).devs[0]
	p, err := d.Alloc(600_000)
	require.NoError(t, err)
	free, total, err := d.MemInfo()
	require.NoError(t, err)
	assert.Equal(t, uint64(1<<20), total)
	assert.Equal(t, uint64(1<<20-600_000), free)

	for _, alloc := range []func(uint64) (driver.Ptr, error){
		d.Alloc,
		func(n uint64) (driver.Ptr, error) { return newTestStream(t, d).AllocAsync(n) },
	} {
		_, err = alloc(600_000)
		require.Error(t, err)
		assert.ErrorIs(t, err, driver.ErrOutOfMemory)
		for _, part := range []string{"requested 600000 bytes", "600000 in use", "capacity 1048576", "host:0"} {
			assert.Contains(t, err.Error(), part)
		}
	}
	require.NoError(t, d.Free(p))
	q, err := d.Alloc(1 << 20)
	require.NoError(t, err, "the whole capacity is usable once freed")
	require.NoError(t, d.Free(q))
	_, err = d.Alloc(0)
	assert.ErrorIs(t, err, driver.ErrInvalidValue)
}

func TestFreeErrorsNameThePointer(t *testing.T) {
	d := testSystem(t).devs[0]
	live := newTestAlloc(t, d, 4096)
	// Freed last: mmap may hand a freed address out again, as cuMemAlloc may.
	freed, err := d.Alloc(4096)
	require.NoError(t, err)
	require.NoError(t, d.Free(freed))
	cases := []struct {
		name string
		p    driver.Ptr
		text string
	}{
		{"unknown", 0x10, "not a live allocation"},
		{"null", 0, "not a live allocation"},
		{"already freed", freed, "not a live allocation"},
		{"interior", live + 16, "interior to allocation"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := d.Free(c.p)
			require.Error(t, err)
			assert.ErrorIs(t, err, driver.ErrInvalidValue)
			assert.Contains(t, err.Error(), c.p.String())
			assert.Contains(t, err.Error(), c.text)
		})
	}
	s := newTestStream(t, d)
	q, err := s.AllocAsync(64)
	require.NoError(t, err)
	require.NoError(t, s.FreeAsync(q))
	assert.ErrorIs(t, s.FreeAsync(q), driver.ErrInvalidValue, "double FreeAsync")
	assert.ErrorIs(t, d.Free(q), driver.ErrInvalidValue, "Free after FreeAsync")
	require.NoError(t, s.Synchronize())
	assert.Nil(t, index.lookup(q), "FreeAsync unmapped in stream order")
}

// The index resolves interior pointers to their allocation, and pointers
// are unique across host devices.
func TestIndexResolvesPointers(t *testing.T) {
	sys := testSystem(t, withDevices(2))
	var ptrs []driver.Ptr
	for i := range 20 {
		d := sys.devs[i%2]
		p := newTestAlloc(t, d, uint64(100+i))
		ptrs = append(ptrs, p)
		a := index.lookup(p)
		require.NotNil(t, a)
		assert.Same(t, d, a.dev)
	}
	seen := map[driver.Ptr]bool{}
	for i, p := range ptrs {
		assert.False(t, seen[p], "pointer reused")
		seen[p] = true
		size := uint64(100 + i)
		for _, off := range []uint64{0, 1, size - 1} {
			a := index.lookup(p + driver.Ptr(off))
			require.NotNil(t, a, "offset %d", off)
			assert.Equal(t, uint64(p), a.base)
		}
		if a := index.lookup(p + driver.Ptr(size)); a != nil {
			assert.NotEqual(t, uint64(p), a.base, "one past the end belongs elsewhere")
		}
		a, b, why := index.pin(p+10, size-10)
		require.NotNil(t, a, why)
		assert.Len(t, b, int(size-10))
		a.unpin()
		a, _, why = index.pin(p+10, size-9)
		assert.Nil(t, a)
		assert.Contains(t, why, "runs 1 bytes past the end")
	}
}

// Work touching memory outside live allocations is IllegalAddress: at once
// when the address is bad at the call, sticky when it goes bad before the
// work runs.
func TestIllegalAddress(t *testing.T) {
	d := testSystem(t).devs[0]
	k := testKernels(t, d)
	s := newTestStream(t, d)
	x := newTestAlloc(t, d, 64)
	buf := make([]byte, 128)
	immediate := []struct {
		name string
		err  error
	}{
		{"HtoD past end", s.CopyHtoD(x, ptrOf(&buf[0]), 65)},
		{"DtoH unknown", s.CopyDtoH(ptrOf(&buf[0]), 0x10, 4)},
		{"DtoD source", s.CopyDtoD(x, 0x10, 4)},
		{"memset", s.Memset8(x+60, 1, 5)},
		{"sync copy", d.CopyDtoD(x, x+32, 33)},
		{"sync HtoD", d.CopyHtoD(0x10, ptrOf(&buf[0]), 1)},
	}
	for _, c := range immediate {
		assert.Equal(t, driver.IllegalAddress, code(t, c.err), c.name)
	}
	require.NoError(t, s.Synchronize(), "refused calls queue nothing")

	// Freed after the call, before the work runs.
	y, err := d.Alloc(64)
	require.NoError(t, err)
	launch(t, s, k["spin_write"], x, uint32(0), 20*time.Millisecond)
	require.NoError(t, s.Memset32(y, 1, 16))
	require.NoError(t, d.Free(y))
	err = s.Synchronize()
	assert.Equal(t, driver.IllegalAddress, code(t, err))
	assert.Contains(t, err.Error(), y.String())

	// A kernel running past the end of its buffer.
	launch(t, s, k["touch"], x, uint64(65))
	err = s.Synchronize()
	assert.Equal(t, driver.IllegalAddress, code(t, err))
	assert.Contains(t, err.Error(), "past the end")
	require.Error(t, d.Synchronize())
}

// Freeing memory a running kernel uses waits for the kernel instead of
// pulling the mapping from under it.
func TestFreeWaitsForKernelsUsingTheMemory(t *testing.T) {
	d := testSystem(t).devs[0]
	k := testKernels(t, d)
	s := newTestStream(t, d)
	x, err := d.Alloc(4)
	require.NoError(t, err)
	start := time.Now()
	launch(t, s, k["spin_write"], x, uint32(5), 40*time.Millisecond)
	a := index.lookup(x)
	require.Eventually(t, func() bool { // the kernel has started and pinned x
		a.mu.Lock()
		defer a.mu.Unlock()
		return a.pins > 0
	}, 5*time.Second, 100*time.Microsecond)
	var wg sync.WaitGroup
	wg.Go(func() { assert.NoError(t, d.Free(x)) })
	wg.Wait()
	assert.GreaterOrEqual(t, time.Since(start), 40*time.Millisecond, "Free returned only after the kernel")
	require.NoError(t, s.Synchronize(), "the kernel finished cleanly")
}
