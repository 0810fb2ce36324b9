package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gpuarr/gpuarr/device"
)

// TestGraphs runs the seed program, both orders, both ways (a graph per
// size and one graph for every size) on the selected device: every
// replay is checked inside run.
func TestGraphs(t *testing.T) {
	dev, err := device.Default()
	require.NoError(t, err)
	for _, one := range []bool{false, true} {
		for _, desc := range []bool{false, true} {
			res, err := run(dev, 16, 256, desc, one)
			require.NoError(t, err, "descending=%v one=%v", desc, one)
			assert.Positive(t, res.PoolReserved)
			assert.Positive(t, res.WorkingSet)
			if one {
				assert.Equal(t, 1, res.Graphs)
			} else {
				assert.Equal(t, 16, res.Graphs)
			}
		}
	}
}

func TestGraphsRejectsEmpty(t *testing.T) {
	dev, err := device.Default()
	require.NoError(t, err)
	_, err = run(dev, 0, 8, false, false)
	require.ErrorContains(t, err, "at least one")
}
