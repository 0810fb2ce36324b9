package main

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gpuarr/gpuarr/internal/testutil"
)

// Data-parallel training on every device matches one device, and the loss
// falls.
func TestInProcessMatchesOneDevice(t *testing.T) {
	devs := testutil.Devices(t)
	cfg := defaultConfig()
	cfg.steps = 20
	res, err := trainInProcess(cfg, devs)
	require.NoError(t, err)
	ref, err := trainInProcess(cfg, devs[:1])
	require.NoError(t, err)
	require.Len(t, res.losses, cfg.steps)
	for i := range res.losses {
		require.InDelta(t, ref.losses[i], res.losses[i], 1e-9*max(1, ref.losses[i]), "step %d", i)
	}
	require.Less(t, res.final(), res.losses[0]/10)
	require.NoError(t, inProcess(cfg, 0))
}

// Process mode needs CUDA; on the host backend it says so.
func TestProcessModeOnHost(t *testing.T) {
	devs := testutil.Devices(t)
	if devs[0].Backend() != "host" {
		t.Skip("on CUDA, process mode is run by the GPU bundle (run.sh), not this test")
	}
	err := launch(defaultConfig(), 0)
	require.ErrorContains(t, err, "needs CUDA")
}
