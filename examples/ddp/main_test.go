package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gpuarr/gpuarr/collective"
	"github.com/gpuarr/gpuarr/internal/testutil"
)

// In one process over every device: the losses match one device's, and
// -result says so.
func TestInProcess(t *testing.T) {
	devs := testutil.Devices(t)
	if globalRows%len(devs) != 0 {
		t.Skipf("%d devices do not split a batch of %d", len(devs), globalRows)
	}
	file := filepath.Join(t.TempDir(), "ddp.json")
	require.NoError(t, run(6, 0, file))
	b, err := os.ReadFile(file)
	require.NoError(t, err)
	var r result
	require.NoError(t, json.Unmarshal(b, &r))
	require.True(t, r.Match)
	require.Equal(t, len(devs), r.Ranks)
	require.Equal(t, "in-process", r.Launcher)
	require.Len(t, r.Losses, 6)
	require.Len(t, r.Reference, 6)
	require.Less(t, r.Losses[5], r.Losses[0])
}

// Under a launcher on the host backend (one process per rank), Init says
// why it cannot run; a one-rank launch runs.
func TestLaunchedOnHost(t *testing.T) {
	if testutil.Device(t).Backend() != "host" {
		t.Skip("on CUDA, multinode.sh runs the launchers")
	}
	for k, v := range map[string]string{"RANK": "1", "WORLD_SIZE": "2", "LOCAL_RANK": "1", "MASTER_ADDR": "127.0.0.1", "MASTER_PORT": "29500"} {
		t.Setenv(k, v)
	}
	require.ErrorIs(t, run(2, 0, ""), collective.ErrNotSupported)
	t.Setenv("RANK", "0")
	t.Setenv("WORLD_SIZE", "1")
	t.Setenv("LOCAL_RANK", "0")
	require.NoError(t, run(2, 0, ""))
}
