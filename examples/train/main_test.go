package main

import (
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gpuarr/gpuarr/examples/train/linreg"
	"github.com/gpuarr/gpuarr/internal/testutil"
)

// TestMain sets a hard limit small enough that two epochs of the tiny
// problem below outgrow it, unless the environment sets one.
func TestMain(m *testing.M) {
	testutil.DefaultHardLimit("64MiB")
	os.Exit(m.Run())
}

// Two epochs of a small problem (32 MiB of features, 4 MiB batch copies:
// 64 MiB of garbage, more than the limit) run in every mode on the
// selected device.
func TestExampleRuns(t *testing.T) {
	for _, mode := range []linreg.Mode{linreg.Eager, linreg.Disabled, linreg.Release} {
		t.Run(string(mode), func(t *testing.T) {
			require.NoError(t, run(options{mode: mode, epochs: 2, features: 512, samples: 16384, batch: 2048}))
		})
	}
}

func TestExampleBadInput(t *testing.T) {
	assert.ErrorContains(t, run(options{mode: "lazy", batch: 1}), `-mode "lazy"`)
	assert.ErrorContains(t, run(options{mode: linreg.Eager, batch: 0}), "-batch 0")
}
