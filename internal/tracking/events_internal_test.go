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
