package unified_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gpuarr/gpuarr/gpuarr"
	"github.com/gpuarr/gpuarr/unified"
)

// A released array is reported as released, a nil stream as a nil
// stream: not both as "nil array or stream". The zero Array is an error,
// not a nil dereference.
func TestBadArgumentsAreNamed(t *testing.T) {
	dev := testDevice(t)
	s := dev.DefaultStream()
	u, err := unified.Zeros[float32](gpuarr.Shape{4})
	require.NoError(t, err)
	defer u.Release()
	gone, err := unified.Zeros[float32](gpuarr.Shape{4})
	require.NoError(t, err)
	require.NoError(t, gone.Release())

	err = unified.Prefetch(gone, nil, s)
	require.ErrorIs(t, err, gpuarr.ErrReleased)
	assert.NotContains(t, err.Error(), "nil")

	err = unified.Prefetch(u, nil, nil)
	require.ErrorIs(t, err, gpuarr.ErrArgument)
	assert.Contains(t, err.Error(), "nil stream")
	assert.NotContains(t, err.Error(), "nil array")

	p, err := unified.NewPinned[float32](4, dev)
	require.NoError(t, err)
	defer p.Release()
	err = p.Upload(u, nil)
	require.ErrorIs(t, err, gpuarr.ErrArgument)
	assert.Contains(t, err.Error(), "nil stream")

	zero := &gpuarr.Array[float32]{}
	for name, call := range map[string]func() error{
		"Host":     func() error { _, err := unified.Host(zero); return err },
		"Prefetch": func() error { return unified.Prefetch(zero, nil, s) },
		"Advise":   func() error { return unified.Advise(zero, unified.ReadMostly()) },
		"Upload":   func() error { return p.Upload(zero, s) },
	} {
		var err error
		require.NotPanics(t, func() { err = call() }, name)
		require.ErrorIs(t, err, gpuarr.ErrArgument, name)
		assert.Contains(t, err.Error(), "zero Array", name)
	}
}
