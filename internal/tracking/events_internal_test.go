package tracking

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gpuarr/gpuarr/device"
)

// With GPUARR_DEBUG=events no event is reused: each get creates one and
// the last drop destroys it (a second Close reports it closed); by
// default the pool hands the same event out again.
func TestEventReuseSwitch(t *testing.T) {
	dev, err := device.Default()
	require.NoError(t, err)
	for _, off := range []bool{false, true} {
		defer func(v bool) { noReuse = v }(noReuse)
		noReuse = off
		p := newEventPool(dev)
		a, err := p.get()
		require.NoError(t, err)
		a.drop()
		b, err := p.get()
		require.NoError(t, err)
		if off {
			assert.NotSame(t, a, b, "GPUARR_DEBUG=events: a new event")
			assert.ErrorIs(t, a.ev.Close(), device.ErrClosed, "the given-back event was destroyed")
		} else {
			assert.Same(t, a, b, "the pool reuses a given-back event")
		}
		b.drop()
	}
}

// An event given back (no holder left) may be another holder's: using it
// for a record or a wait is an internal error, and panics.
func TestEventUseAfterGiveBackPanics(t *testing.T) {
	dev, err := device.Default()
	require.NoError(t, err)
	defer func(v bool) { noReuse = v }(noReuse)
	noReuse = true
	e, err := newEventPool(dev).get()
	require.NoError(t, err)
	assert.NotPanics(t, func() { _ = e.use() })
	e.drop()
	assert.PanicsWithValue(t, "gpuarr: internal error: a tracking event was used after it was given back", func() { _ = e.use() })
}
