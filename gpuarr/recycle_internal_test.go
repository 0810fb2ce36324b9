package gpuarr

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gpuarr/gpuarr/device"
	"github.com/gpuarr/gpuarr/internal/testutil"
)

// skipWithoutReuse skips a test that needs a freed buffer object to come
// back. Buffer objects go with their memory blocks (internal/lifetime,
// recycle.go), and with unified memory as the default on a checking host
// device the arrays' managed memory is uncached (memory.DefaultManaged):
// each array is a block of its own, so no buffer object is ever reused and
// a released handle cannot share one with a live array.
func skipWithoutReuse(t *testing.T, dev *device.Device) {
	t.Helper()
	mem, err := DefaultMemory(dev)
	require.NoError(t, err)
	if _, checking := dev.Checking(); checking && mem == UnifiedMemory {
		t.Skip("no buffer object is reused with uncached unified memory (a checking host device)")
	}
}

// reuseBufferOf releases a and allocates arrays of its size, filled with
// 7, until one gets a freed buffer object back (another block may come
// first).
// It returns that array and the released handle whose buffer it got.
func reuseBufferOf(t *testing.T, a *Array[float32]) (x, stale *Array[float32]) {
	t.Helper()
	for range 100 {
		b := a.c.Buffer()
		require.NoError(t, a.Release())
		x, err := Full(a.Shape(), float32(7))
		require.NoError(t, err)
		if x.c.Buffer() == b {
			return x, a
		}
		a = x
	}
	t.Fatal("no freed buffer was reused in 100 tries")
	return nil, nil
}

// A freed buffer is reused by the next allocation on its device, and a
// handle released before the reuse still fails every operation with
// ErrReleased naming its own array; the array that got the buffer is
// untouched. Copy and Matmul check aliasing before they claim their
// operands, so they must not take the reused buffer for shared memory.
func TestReleasedHandleOfReusedBuffer(t *testing.T) {
	dev := mmDevice(t)
	skipWithoutReuse(t, dev)
	x, stale := reuseBufferOf(t, testutil.Must(Zeros[float32](Shape{2, 2})))
	defer x.Release()
	require.Same(t, stale.c.Buffer(), x.c.Buffer())
	other := testutil.Must(Zeros[float32](Shape{2, 2}))
	defer other.Release()

	uses := map[string]func() error{
		"ToSlice":       func() error { _, err := stale.ToSlice(); return err },
		"CopyFromHost":  func() error { return stale.CopyFromHost([]float32{1, 2, 3, 4}) },
		"Copy into":     func() error { return Copy(stale, x) },
		"Copy from":     func() error { return Copy(x, stale) },
		"Copy other":    func() error { return Copy(stale, other) },
		"EvalInto":      func() error { return EvalInto(stale, Add[float32](x, x)) },
		"EvalInto read": func() error { return EvalInto(other, Add[float32](stale, x)) },
		"MatmulInto":    func() error { return MatmulInto(stale, x, other) },
		"MatmulInto a":  func() error { return MatmulInto(x, stale, other) },
		"Reshape":       func() error { _, err := stale.Reshape(Shape{4}); return err },
		"Clone":         func() error { _, err := Clone(stale); return err },
	}
	for name, use := range uses {
		err := use()
		require.ErrorIs(t, err, ErrReleased, name)
		assert.Contains(t, err.Error(), "float32[2 2] array on "+dev.String(), name)
	}
	got, err := x.ToSlice()
	require.NoError(t, err)
	assert.Equal(t, []float32{7, 7, 7, 7}, got, "the array that reused the buffer is untouched")
}

// A released view whose buffer went to a new array overlaps that array's
// memory at another offset: Copy's overlap check must report the release,
// not an overlap.
func TestCopyFromReleasedViewOfReusedBuffer(t *testing.T) {
	skipWithoutReuse(t, mmDevice(t))
	for range 100 {
		base := testutil.Must(Zeros[float32](Shape{4}))
		stale := testutil.Must(base.Slice(1, 3))
		b := base.c.Buffer()
		require.NoError(t, stale.Release())
		require.NoError(t, base.Release())
		x := testutil.Must(Full(Shape{4}, float32(7)))
		if x.c.Buffer() != b {
			require.NoError(t, x.Release())
			continue
		}
		head := testutil.Must(x.Slice(0, 2))
		err := Copy(head, stale)
		require.ErrorIs(t, err, ErrReleased)
		require.ErrorIs(t, Copy(stale, head), ErrReleased)
		assert.Equal(t, []float32{7, 7, 7, 7}, testutil.Must(x.ToSlice()))
		require.NoError(t, head.Release())
		require.NoError(t, x.Release())
		return
	}
	t.Fatal("no freed buffer was reused in 100 tries")
}
