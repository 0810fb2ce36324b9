package gcpressure

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gpuarr/gpuarr/device"
)

func envOf(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

// A malformed value of any of the package's variables is an error that
// names the variable and its value and matches device.ErrBadConfig, like
// every other GPUARR_* variable.
func TestMalformedVariables(t *testing.T) {
	for _, tc := range []struct{ env, value string }{
		{envGCEarly, "sometimes"}, {envGCEarly, "yes"},
		{envGCBackground, "maybe"},
		{envGCThreshold, "high"}, {envGCThreshold, "0"}, {envGCThreshold, "1.5"}, {envGCThreshold, "NaN"}, {envGCThreshold, "-0.2"},
		{envGCBlockingThreshold, "half"}, {envGCBlockingThreshold, "2"},
		{envDebug, "gcc"}, {envDebug, "gc,alloc"}, {envDebug, "on"},
	} {
		_, err := policyFrom(envOf(map[string]string{tc.env: tc.value}))
		require.ErrorIs(t, err, device.ErrBadConfig, "%s=%s", tc.env, tc.value)
		assert.Contains(t, err.Error(), tc.env+`="`+tc.value+`"`)
	}
}

// Well-formed values apply, with spaces and any case where it makes no
// difference; a malformed variable does not turn the others off (a bad
// threshold used to drop GPUARR_DEBUG=gc).
func TestWellFormedVariablesApply(t *testing.T) {
	c, err := policyFrom(envOf(map[string]string{
		envGCEarly: " FALSE ", envGCBackground: "0", envGCThreshold: "0.8", envGCBlockingThreshold: " 0.6", envDebug: "GC, ",
	}))
	require.NoError(t, err)
	assert.False(t, c.Enabled)
	assert.False(t, c.Background)
	assert.Equal(t, [3]float64{0.8, 0.6, 0.8}, [3]float64{c.Threshold, c.BlockingThreshold, c.BackgroundThreshold})
	assert.NotNil(t, c.Log)

	c, err = policyFrom(envOf(map[string]string{envGCThreshold: "high", envGCEarly: "off", envDebug: "gc", envGCBlockingThreshold: "0.4"}))
	require.ErrorIs(t, err, device.ErrBadConfig)
	assert.Contains(t, err.Error(), envGCThreshold)
	assert.Contains(t, err.Error(), envGCEarly, "every malformed variable is named")
	assert.NotNil(t, c.Log, "GPUARR_DEBUG=gc still applies")
	assert.Equal(t, 0.4, c.BlockingThreshold, "a well-formed threshold still applies")
	assert.Equal(t, 0.75, c.Threshold, "a malformed one keeps its default")
	assert.True(t, c.Enabled, "a malformed one keeps its default")

	c, err = policyFrom(envOf(nil))
	require.NoError(t, err)
	assert.True(t, c.Enabled && c.Background)
	assert.Nil(t, c.Log)

	// events is tracking's and memory's word: accepted, no log.
	c, err = policyFrom(envOf(map[string]string{envDebug: "Events"}))
	require.NoError(t, err)
	assert.Nil(t, c.Log)
	_, err = policyFrom(envOf(map[string]string{envDebug: "gc,event"}))
	require.ErrorIs(t, err, device.ErrBadConfig, "a misspelt word is refused")
}
