package tracking

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gpuarr/gpuarr/device"
)

// Memory that starts unplaced reports the bit once, to its first GPU use,
// as memory the CPU was lent does; memory that starts placed reports
// nothing.
func TestStartHostVisibleUnplaced(t *testing.T) {
	dev, err := device.Default()
	require.NoError(t, err)
	s := dev.DefaultStream()
	var placed, unplaced State
	placed.StartHostVisible(s, false)
	unplaced.StartHostVisible(s, true)
	for _, st := range []*State{&placed, &unplaced} {
		st.Lock()
	}
	assert.False(t, placed.TakeCPUTouched(), "placed memory")
	assert.True(t, unplaced.TakeCPUTouched(), "the first use of unplaced memory")
	assert.False(t, unplaced.TakeCPUTouched(), "a later use")
	for _, st := range []*State{&placed, &unplaced} {
		st.Unlock()
	}
}
