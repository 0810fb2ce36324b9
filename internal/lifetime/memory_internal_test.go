package lifetime

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gpuarr/gpuarr/device"
)

// GPUARR_DEFAULT_MEMORY takes device or unified, in any case, spaces
// around ignored, empty meaning device; anything else is a ConfigError
// that names the variable and the value.
func TestParseMemory(t *testing.T) {
	for v, want := range map[string]Memory{"": DeviceMemory, "device": DeviceMemory, " DEVICE": DeviceMemory, "unified": UnifiedMemory, "Unified\n": UnifiedMemory} {
		got, err := ParseMemory(v)
		require.NoError(t, err, "%q", v)
		assert.Equal(t, want, got, "%q", v)
	}
	for _, v := range []string{"managed", "uni", "0", "device,unified"} {
		_, err := ParseMemory(v)
		require.ErrorIs(t, err, device.ErrBadConfig, "%q", v)
		var ce *device.ConfigError
		require.ErrorAs(t, err, &ce)
		assert.Equal(t, EnvDefaultMemory, ce.Var)
		assert.Contains(t, err.Error(), EnvDefaultMemory)
		assert.Contains(t, err.Error(), "device or unified")
	}
	assert.Equal(t, "Memory(7)", Memory(7).String())
}
