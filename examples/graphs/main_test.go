package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gpuarr/gpuarr/device"
)

// TestGraphs runs the seed program, both capture orders, on the selected
// device: every replay is checked inside run.
func TestGraphs(t *testing.T) {
	dev, err := device.Default()
	require.NoError(t, err)
	for _, desc := range []bool{false, true} {
		res, err := run(dev, 16, 256, desc)
		require.NoError(t, err, "descending=%v", desc)
		assert.Positive(t, res.PoolReserved)
		assert.Positive(t, res.WorkingSet)
	}
}

func TestGraphsRejectsEmpty(t *testing.T) {
	dev, err := device.Default()
	require.NoError(t, err)
	_, err = run(dev, 0, 8, false)
	require.ErrorContains(t, err, "at least one")
}
