package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gpuarr/gpuarr/collective"
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
	file := filepath.Join(t.TempDir(), "multigpu.json")
	require.NoError(t, inProcess(cfg, 0, file))
	b, err := os.ReadFile(file)
	require.NoError(t, err)
	var out outcome
	require.NoError(t, json.Unmarshal(b, &out))
	require.True(t, out.Match)
	require.Equal(t, len(devs), out.Ranks)
	require.InDelta(t, ref.final(), out.Final, 1e-9*max(1, ref.final()))
}

// The launcher path with goroutine ranks: each reads its own environment
// (collective.Init's Env option) and trains its share; rank 0's final loss
// is the one-device loss.
func TestLaunchedRanksMatchOneDevice(t *testing.T) {
	devs := testutil.Devices(t)
	if devs[0].Backend() != "host" {
		t.Skip("on CUDA the ranks are processes: multinode.sh runs them under torchrun and mpirun")
	}
	n := len(devs) // one rank a device: the example's collectives use the default stream
	if n < 2 {
		t.Skip("needs two host devices (GPUARR_HOST_DEVICES=2)")
	}
	cfg := defaultConfig()
	cfg.steps = 15
	port, err := meetingPort()
	require.NoError(t, err)
	finals := make([]float64, n)
	errs := make(chan error, n)
	for r := range n {
		go func() {
			errs <- func() error {
				env := map[string]string{"RANK": strconv.Itoa(r), "WORLD_SIZE": strconv.Itoa(n), "LOCAL_RANK": strconv.Itoa(r), "LOCAL_WORLD_SIZE": strconv.Itoa(n),
					"MASTER_ADDR": "127.0.0.1", "MASTER_PORT": strconv.Itoa(port - 1)}
				comm, job, err := collective.Init(collective.Env(func(k string) (string, bool) { v, ok := env[k]; return v, ok }))
				if err != nil {
					return err
				}
				defer comm.Close()
				rk, err := newRank(cfg, comm.Device(0), job.Rank, job.Size)
				if err != nil {
					return err
				}
				defer rk.release()
				res, err := train(cfg, comm, []*rank{rk})
				if err != nil {
					return err
				}
				finals[r] = res.final()
				return nil
			}()
		}()
	}
	for range n {
		require.NoError(t, <-errs)
	}
	ref, err := trainInProcess(cfg, devs[:1])
	require.NoError(t, err)
	for r := range n {
		require.InDelta(t, ref.final(), finals[r], 1e-9*max(1, ref.final()), "rank %d", r)
	}
}

// Under a launcher on the host backend (one process per rank), the
// program says why it cannot run; process mode too.
func TestProcessesOnHost(t *testing.T) {
	devs := testutil.Devices(t)
	if devs[0].Backend() != "host" {
		t.Skip("on CUDA, process mode is run by the GPU bundle (run.sh), not this test")
	}
	err := launch(defaultConfig(), 0, "")
	require.ErrorContains(t, err, "needs CUDA")
	for k, v := range map[string]string{"RANK": "1", "WORLD_SIZE": "2", "LOCAL_RANK": "1", "MASTER_ADDR": "127.0.0.1", "MASTER_PORT": "29500"} {
		t.Setenv(k, v)
	}
	require.ErrorIs(t, launched(defaultConfig(), ""), collective.ErrNotSupported)
}
