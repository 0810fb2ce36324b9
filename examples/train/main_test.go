package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gpuarr/gpuarr/bench/report"
	"github.com/gpuarr/gpuarr/memory"
)

// TestMain sets a hard limit small enough that two epochs of the tiny
// problem below outgrow it, unless the environment sets one.
func TestMain(m *testing.M) {
	if os.Getenv(memory.EnvHardLimit) == "" {
		os.Setenv(memory.EnvHardLimit, "64MiB")
	}
	os.Exit(m.Run())
}

// Two epochs of a small problem (32 MiB of features, 4 MiB batch copies:
// 64 MiB of garbage) in each mode: no failure, no OOM, a report with the
// figures the benchmark table needs.
func TestTrainModes(t *testing.T) {
	out := t.TempDir()
	for _, mode := range []Mode{Eager, Disabled, Release} {
		t.Run(string(mode), func(t *testing.T) {
			sum, err := run(options{mode: mode, epochs: 2, features: 512, samples: 16384, batch: 2048, out: out, quiet: true})
			require.NoError(t, err)
			assert.Zero(t, sum.ooms)
			assert.Len(t, sum.epochs, 2)
			// Real gradient descent: the loss starts near the number of
			// features (unit normal data and weights) and falls.
			assert.Less(t, sum.loss, 256.0, "final loss")
			if mode == Disabled {
				assert.Zero(t, sum.gc.Eager.Collections)
			}
			r, err := report.Load(filepath.Join(out, "train-"+string(mode)+".json"))
			require.NoError(t, err)
			require.Len(t, r.Rows, 1)
			for _, k := range []string{"total_s", "epochs_per_s", "collections", "gc_time_s", "max_pause_ms", "ladder_runs", "ooms"} {
				assert.Contains(t, r.Rows[0].Metrics, k)
			}
			assert.Zero(t, r.Rows[0].Metrics["ooms"])
		})
	}
}

func TestBadMode(t *testing.T) {
	_, err := run(options{mode: "lazy"})
	assert.ErrorContains(t, err, `-mode "lazy"`)
}
