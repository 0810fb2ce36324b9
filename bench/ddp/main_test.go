package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gpuarr/gpuarr/bench/report"
	"github.com/gpuarr/gpuarr/internal/testutil"
)

func TestRankCounts(t *testing.T) {
	got, err := rankCounts("", 4)
	require.NoError(t, err)
	require.Equal(t, []int{1, 2, 4}, got)
	got, err = rankCounts("", 6)
	require.NoError(t, err)
	require.Equal(t, []int{1, 2, 4}, got)
	got, err = rankCounts("3, 1", 4)
	require.NoError(t, err)
	require.Equal(t, []int{3, 1}, got)
	for _, bad := range []string{"0", "5", "x", "1,,2"} {
		_, err := rankCounts(bad, 4)
		require.ErrorContains(t, err, "-ranks", bad)
	}
}

// A small run writes a report with a step row per rank count, scaled
// against one rank.
func TestSmallRun(t *testing.T) {
	if testutil.Device(t).Backend() != "host" {
		t.Skip("on CUDA the GPU bundle runs the program at full size")
	}
	dir := t.TempDir()
	require.NoError(t, run(options{out: dir, ranks: "1", width: 16, layers: 2, rows: 4, steps: 2, warmup: 1, reps: 1}))
	b, err := os.ReadFile(filepath.Join(dir, "ddp.json"))
	require.NoError(t, err)
	var rep report.Report
	require.NoError(t, json.Unmarshal(b, &rep))
	require.Len(t, rep.Rows, 1)
	require.Equal(t, "step", rep.Rows[0].Name)
	require.Equal(t, 1.0, rep.Rows[0].Metrics["scaling"])
	require.Positive(t, rep.Rows[0].Metrics["samples_per_s"])
}
