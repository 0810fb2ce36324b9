package host

import (
	"runtime/debug"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// faults reports whether reading the byte at p faults (a recovered panic,
// through debug.SetPanicOnFault), and the byte when it does not.
func faults(p unsafe.Pointer) (faulted bool, b byte) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if r := recover(); r != nil {
			faulted = true
		}
	}()
	return false, *(*byte)(p)
}

// In checking mode freed managed and page-locked memory is quarantined:
// a CPU read through a stale pointer faults, on every run, and no later
// allocation gets those addresses. Without checking mode the memory is
// unmapped as before.
func TestCheckModeQuarantinesCPUMemory(t *testing.T) {
	kinds := []struct {
		name  string
		alloc func(d *device) (unsafe.Pointer, func() error)
	}{
		{"managed", func(d *device) (unsafe.Pointer, func() error) {
			p, err := d.AllocManaged(3 << 12)
			require.NoError(t, err)
			return d.HostPointer(p), func() error { return d.Free(p) }
		}},
		{"pinned", func(d *device) (unsafe.Pointer, func() error) {
			p, err := d.AllocHost(3 << 12)
			require.NoError(t, err)
			return p, func() error { return d.FreeHost(p) }
		}},
	}
	for _, k := range kinds {
		t.Run(k.name, func(t *testing.T) {
			d := testSystem(t, withCheck(true)).devs[0]
			p, free := k.alloc(d)
			*(*byte)(unsafe.Add(p, 5000)) = 7
			faulted, b := faults(unsafe.Add(p, 5000))
			require.False(t, faulted, "live memory reads")
			require.Equal(t, byte(7), b)

			n0, bytes0 := quarantined()
			require.NoError(t, free())
			n1, bytes1 := quarantined()
			assert.True(t, n1 == min(n0+1, quarantineRanges), "the range is quarantined")
			assert.GreaterOrEqual(t, bytes1, min(bytes0, quarantineBytes-3<<12))

			faulted, _ = faults(p)
			assert.True(t, faulted, "a read of freed memory faults")
			faulted, _ = faults(unsafe.Add(p, 3<<12-1))
			assert.True(t, faulted, "its last byte too")
			for range 8 {
				q, free := k.alloc(d)
				assert.NotEqual(t, p, q, "a new allocation does not reuse quarantined addresses")
				require.NoError(t, free())
			}
		})
	}
}

// The quarantine is bounded: past quarantineRanges ranges the oldest is
// unmapped.
func TestQuarantineIsBounded(t *testing.T) {
	d := testSystem(t, withCheck(true)).devs[0]
	for range quarantineRanges + 10 {
		p, err := d.AllocManaged(1 << 12)
		require.NoError(t, err)
		require.NoError(t, d.Free(p))
	}
	n, _ := quarantined()
	assert.Equal(t, quarantineRanges, n)
}
