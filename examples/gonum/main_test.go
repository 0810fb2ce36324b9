package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestPCAPortMatchesGonum(t *testing.T) {
	res, err := run(3000, 80, 3)
	require.NoError(t, err)
	assert.Equal(t, uint64(1), res.DeviceGemms, "the covariance product ran on the device")
	assert.Len(t, res.Variances, 3)
	assert.Greater(t, res.Variances[0], res.Variances[1])

	// Too small for the device: the same answer from the CPU.
	res, err = run(50, 8, 2)
	require.NoError(t, err)
	assert.Zero(t, res.DeviceGemms)

	_, err = run(1, 8, 2)
	assert.Error(t, err)
}
