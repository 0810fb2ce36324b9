package main

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gpuarr/gpuarr/bench/report"
	"github.com/gpuarr/gpuarr/internal/testutil"
)

// TestMain sets a hard limit small enough that two epochs of the tiny
// problem below outgrow it, unless the environment sets one.
func TestMain(m *testing.M) {
	testutil.DefaultHardLimit("64MiB")
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
			for _, k := range []string{"total_s", "loop_s", "setup_s", "epochs_per_s", "collections", "gc_time_s", "max_pause_ms", "ladder_runs", "ooms"} {
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

// -summarize combines tagged runs: medians per mode, the ratios of the
// medians and of runs of the same round, and the targets' verdicts.
func TestSummarizeRuns(t *testing.T) {
	dir := t.TempDir()
	write := func(mode Mode, tag string, total, loop, pause float64) {
		r := report.New("train-"+string(mode)+"-"+tag, "dev", "host", 0)
		r.Add(string(mode), map[string]string{"mode": string(mode), "run": tag, "limit": "4.0 GiB"}, map[string]float64{
			"total_s": total, "loop_s": loop, "max_pause_ms": pause, "collections": 10, "epochs_per_s": 100 / total,
		})
		require.NoError(t, r.WriteJSON(dir))
	}
	// Release 1.0/1.2/1.1 s, eager 1.05× each round, disabled 1.5 s.
	for i, rel := range []float64{1.0, 1.2, 1.1} {
		tag := string(rune('a' + i))
		write(Release, tag, rel, rel-0.1, 0)
		write(Eager, tag, rel*1.05, rel*1.05-0.1, 3)
		write(Disabled, tag, 1.5, 1.4, 25)
	}
	// A variant (here: collections in the caller) is kept apart.
	r := report.New("train-eager-sync-a", "dev", "host", 0)
	r.Add("eager", map[string]string{"mode": "eager", "variant": "sync", "run": "a"}, map[string]float64{"total_s": 9, "loop_s": 9})
	require.NoError(t, r.WriteJSON(dir))
	// The unified-memory variant is judged against eager: its loop
	// 1.05× eager's median loop (1.055 s) is within 1/0.95.
	r = report.New("train-eager-unified-a", "dev", "host", 0)
	r.Add("eager", map[string]string{"mode": "eager", "variant": "unified", "run": "a"}, map[string]float64{"total_s": 1.2, "loop_s": 1.055 * 1.05})
	require.NoError(t, r.WriteJSON(dir))
	var out strings.Builder
	require.NoError(t, summarizeRuns(dir, &out))
	s, err := report.Load(filepath.Join(dir, "train-summary.json"))
	require.NoError(t, err)
	rows := map[string]map[string]float64{}
	for _, r := range s.Rows {
		rows[r.Name] = r.Metrics
	}
	assert.InDelta(t, 1.1, rows["release"]["p50_s"], 1e-9)
	assert.InDelta(t, 1.155, rows["eager"]["p50_s"], 1e-9)
	assert.Equal(t, 3.0, rows["eager"]["runs"])
	assert.Equal(t, 25.0, rows["disabled"]["max_pause_ms"], "the worst pause")
	assert.InDelta(t, 1.05, rows["ratios"]["eager_vs_release_total"], 1e-9)
	assert.InDelta(t, 1.05, rows["ratios"]["eager_vs_release_total_paired"], 1e-9)
	assert.InDelta(t, 1.055/1.0, rows["ratios"]["eager_vs_release_loop"], 1e-9)
	assert.InDelta(t, 1.5/1.155, rows["ratios"]["disabled_vs_eager_total"], 1e-9)
	assert.Equal(t, 9.0, rows["eager (sync)"]["p50_s"])
	assert.InDelta(t, 9/1.1, rows["ratios"]["eager_sync_vs_release_total"], 1e-9)
	verdicts := map[string]string{}
	for _, r := range s.Rows {
		verdicts[r.Name] = r.Verdict()
	}
	assert.InDelta(t, 1.05, rows["ratios"]["eager_unified_vs_eager_loop"], 1e-9)
	assert.InDelta(t, 1/1.05, rows["ratios"]["eager_unified_speed_vs_eager_loop"], 1e-9)
	assert.Equal(t, map[string]string{"eager": "met", "disabled": "met", "release": "met", "ratios": "met", "eager (sync)": "", "eager (unified)": ""}, verdicts)
	assert.Contains(t, out.String(), "- eager unified speed vs eager loop: 0.952 (target >= 0.95: met)")
	notes := strings.Join(s.Notes, "\n")
	assert.Contains(t, notes, "eager vs release, with the setup: 1.050×")
	assert.Contains(t, notes, "disabled vs eager, with the setup: 1.299×")
	assert.Contains(t, out.String(), "| eager | 4.0 GiB | 3 |")
	assert.Contains(t, out.String(), "- eager vs release loop: 1.055 (target <= 1.10: met)")
	assert.Contains(t, out.String(), "- disabled vs eager loop: 1.327 (target >= 1.15: met)")

	// A slower eager misses the first target: the ratios row is judged
	// missed, and the printed summary says so.
	write(Eager, "a", 2, 1.9, 0)
	write(Eager, "b", 2, 1.9, 0)
	out.Reset()
	require.NoError(t, summarizeRuns(dir, &out))
	s, err = report.Load(filepath.Join(dir, "train-summary.json"))
	require.NoError(t, err)
	_, missed := s.Judged()
	require.Len(t, missed, 1)
	assert.Equal(t, "ratios", missed[0].Name)
	assert.Equal(t, "ratios: eager_vs_release_loop = 1.9 (target <= 1.1, missed); disabled_vs_eager_loop = 0.737 (target >= 1.15, missed); "+
		"eager_unified_speed_vs_eager_loop = 1.72 (target >= 0.95, met)", missed[0].Describe())
	assert.Contains(t, out.String(), "(target <= 1.10: MISSED)")

	assert.ErrorContains(t, summarizeRuns(t.TempDir(), io.Discard), "no train-*.json")
}
