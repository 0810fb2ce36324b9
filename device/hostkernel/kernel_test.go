package hostkernel_test

import (
	"errors"
	"sync/atomic"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gpuarr/gpuarr/device/driver"
	"github.com/gpuarr/gpuarr/device/hostkernel"
)

// arena is a Memory over one Go buffer at a fake device address, counting
// the calls a launch makes.
type arena struct {
	base  driver.Ptr
	buf   []byte
	calls int
}

func (a *arena) Bytes(p driver.Ptr, n uint64) ([]byte, error) {
	a.calls++
	if p < a.base || uint64(p-a.base)+n > uint64(len(a.buf)) {
		return nil, driver.Errorf("cuLaunchKernel", driver.IllegalAddress, "%v outside the arena", p)
	}
	off := uint64(p - a.base)
	return a.buf[off : off+n], nil
}

func newArena(n int) *arena {
	buf := make([]uint64, (n+7)/8) // 8-byte aligned
	return &arena{base: 0x1000, buf: unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(buf))), n)}
}

func code(t *testing.T, err error) driver.Result {
	t.Helper()
	var de *driver.Error
	require.ErrorAs(t, err, &de)
	return de.Code
}

func TestLaunchReachesMemoryThroughTheBackend(t *testing.T) {
	mem := newArena(64)
	l := hostkernel.NewLaunch("k", nil, mem)
	l.Grid, l.Block = driver.Dim3{X: 3}, driver.Dim3{X: 4, Y: 2}
	assert.Equal(t, "k", l.Name())
	assert.Equal(t, uint64(24), l.Threads())

	v, err := hostkernel.View[uint32](l, mem.base+8, 4)
	require.NoError(t, err)
	v[0] = 0xDEADBEEF
	assert.Equal(t, []byte{0xEF, 0xBE, 0xAD, 0xDE}, mem.buf[8:12])

	_, err = hostkernel.View[uint64](l, mem.base+4, 1)
	assert.Equal(t, driver.MisalignedAddress, code(t, err))
	assert.ErrorContains(t, err, "not 8-byte aligned for uint64")
	_, err = hostkernel.View[uint64](l, mem.base, 1<<62)
	assert.Equal(t, driver.IllegalAddress, code(t, err))
	assert.ErrorContains(t, err, "overflow")
	_, err = hostkernel.View[uint32](l, mem.base+60, 2)
	assert.Equal(t, driver.IllegalAddress, code(t, err), "the backend's answer")

	calls := mem.calls
	v, err = hostkernel.View[uint32](l, 0, 0)
	require.NoError(t, err)
	assert.Empty(t, v)
	b, err := l.Bytes(mem.base, 0)
	require.NoError(t, err)
	assert.Empty(t, b)
	assert.Equal(t, calls, mem.calls, "empty views ask the backend nothing")
}

func TestLaunchWithoutMemory(t *testing.T) {
	var l hostkernel.Launch
	_, err := l.Bytes(0x1000, 4)
	assert.Equal(t, driver.IllegalAddress, code(t, err))
	assert.ErrorContains(t, err, "made without NewLaunch")
}

func TestParallelFor(t *testing.T) {
	l := hostkernel.NewLaunch("k", nil, newArena(8))
	for _, n := range []uint64{0, 1, 1 << 15, 1<<20 + 3} {
		seen := make([]atomic.Int32, n)
		l.ParallelFor(n, func(lo, hi uint64) {
			for i := lo; i < hi; i++ {
				seen[i].Add(1)
			}
		})
		for i := range seen {
			if seen[i].Load() != 1 {
				t.Fatalf("n=%d: element %d visited %d times", n, i, seen[i].Load())
			}
		}
	}
	boom := errors.New("boom")
	assert.PanicsWithValue(t, boom, func() {
		l.ParallelFor(1<<20, func(lo, hi uint64) { panic(boom) })
	}, "a panic in a worker reaches the kernel")
}
