package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gpuarr/gpuarr/bench/report"
)

func TestTablesPrintsMarkdown(t *testing.T) {
	r := report.New("demo", "host:0", "host", 0)
	r.Add("alloc", map[string]string{"size": "512B"}, map[string]float64{"p50_ns": 40})
	dir := t.TempDir()
	require.NoError(t, r.WriteJSON(dir))
	var out bytes.Buffer
	require.NoError(t, tables(&out, []string{filepath.Join(dir, "demo.json")}))
	assert.Contains(t, out.String(), "| alloc | 512B | 40.0 |")
}

func TestTablesBadInput(t *testing.T) {
	var out bytes.Buffer
	assert.ErrorContains(t, tables(&out, nil), "no JSON files given")
	assert.Error(t, tables(&out, []string{filepath.Join(t.TempDir(), "missing.json")}))
	assert.ErrorContains(t, sections(&out, "", "", nil), "no run folders given")
	assert.ErrorContains(t, sections(&out, "", "", []string{t.TempDir()}), "no benchmark JSON there")
}

// A result written before rows carried targets is judged as the programs
// judge now: both host-read rows, every caching hot-path figure, the
// holes of both paths; the legacy target metrics are not shown.
func TestLegacyResultsAreJudged(t *testing.T) {
	arr := report.New("array", "H100", "cuda", 13000)
	arr.Add("host read of a clean array (0 B)", map[string]string{"path": "empty"}, map[string]float64{"p50_ns": 42, "target": 50})
	arr.Add("host read beyond the copy", map[string]string{"path": "64 B"}, map[string]float64{"p50_ns": 129, "target": 50})
	arr.Add("launch", map[string]string{"path": "gpuarr"}, map[string]float64{"p50_ns": 4000, "vs_ref": 1.108, "target": 1.1})
	alloc := report.New("alloc", "H100", "cuda", 13000)
	alloc.Add("hot", map[string]string{"resource": "caching", "size": "64 MiB"},
		map[string]float64{"p50_ns": 101, "p99_ns": 120, "driver_over_ours": 8.3, "target_met": 0})
	alloc.Add("hot", map[string]string{"resource": "driver pool", "size": "64 MiB"}, map[string]float64{"p50_ns": 900})
	alloc.Add("holes", map[string]string{"path": "index only", "holes": "0"}, map[string]float64{"p50_ns": 260, "over_0_holes": 1, "target_met": 0})
	for _, r := range []*report.Report{arr, alloc} {
		judgeLegacy(r)
	}
	verdicts := func(r *report.Report) (out []string) {
		for _, row := range r.Rows {
			out = append(out, row.Verdict())
			assert.NotContains(t, row.Metrics, "target")
			assert.NotContains(t, row.Metrics, "target_met")
		}
		return out
	}
	assert.Equal(t, []string{"met", "missed", "missed"}, verdicts(arr))
	assert.Equal(t, []string{"missed", "", "missed"}, verdicts(alloc))
	assert.Equal(t, "hot (caching, 64 MiB): p50_ns = 101.0 (target <= 100, missed); p99_ns = 120.0 (target <= 1000, met); driver_over_ours = 8.3 (target >= 10, missed)",
		alloc.Rows[0].Describe())

	// A report that carries targets is left as written.
	cur := report.New("array", "H100", "cuda", 13000)
	cur.Add("x", nil, map[string]float64{"p50_ns": 1, "target": 0.5})
	cur.Add("y", nil, map[string]float64{"p50_ns": 1}).Judge("p50_ns", report.AtMost, 2)
	judgeLegacy(cur)
	assert.Equal(t, "", cur.Rows[0].Verdict())
	assert.Contains(t, cur.Rows[0].Metrics, "target")
}

// The section lists every figure missed in any run before those met, with
// each run's figure, and replaces only what lies between its markers.
func TestSectionMissesFirst(t *testing.T) {
	root := t.TempDir()
	mk := func(name string, handoff, empty float64, withStress bool) string {
		dir := filepath.Join(root, name)
		r := report.New("array", "NVIDIA H100", "cuda", 13000)
		r.Commit = "0123456789abcdef"
		r.Add("cross-stream hand-off", map[string]string{"path": "extra"}, map[string]float64{"p50_ns": handoff}).Judge("p50_ns", report.AtMost, 500)
		r.Add("Empty + Release", map[string]string{"path": "gpuarr"}, map[string]float64{"p50_ns": empty}).Judge("p50_ns", report.AtMost, 300)
		require.NoError(t, r.WriteJSON(dir))
		if withStress {
			s := report.New("stress", "NVIDIA H100", "cuda", 13000)
			s.Add("all", map[string]string{"kind": "all"}, map[string]float64{"wrong": 0}).Judge("wrong", report.AtMost, 0)
			require.NoError(t, s.WriteJSON(dir))
		}
		// bench/train's per-round files are not results of their own.
		tr := report.New("train-eager-3", "NVIDIA H100", "cuda", 13000)
		tr.Add("eager", nil, map[string]float64{"ooms": 1}).Judge("ooms", report.AtMost, 0)
		require.NoError(t, tr.WriteJSON(dir))
		return dir
	}
	a, b := mk("run-a", 669, 290, true), mk("run-b", 480, 310, false)
	var out bytes.Buffer
	require.NoError(t, sections(&out, "", "", []string{a, b}))
	s := out.String()
	assert.Contains(t, s, "## Latest runs: 2 × NVIDIA H100 at 0123456, ")
	assert.Contains(t, s, "**3 figures judged: 2 missed in at least one run, 1 met in every run that measured them.**")
	assert.Contains(t, s, "| array | cross-stream hand-off (extra) | p50_ns <= 500 | **669.0** | 480.0 | missed in 1 of 2 |")
	assert.Contains(t, s, "| array | Empty + Release (gpuarr) | p50_ns <= 300 | 290.0 | **310.0** | missed in 1 of 2 |")
	assert.Contains(t, s, "| stress | all | wrong <= 0 | 0 | — | met in 1 of 1 (not measured in 1) |")
	assert.NotContains(t, s, "train-eager-3")
	assert.Less(t, strings.Index(s, "### Missed (2)"), strings.Index(s, "### Met (1)"))
	assert.Less(t, strings.Index(s, "cross-stream hand-off"), strings.Index(s, "| stress |"))

	md := filepath.Join(root, "BENCHMARKS.md")
	require.NoError(t, os.WriteFile(md, []byte("# B\n\n"+beginMarker+"\nold\n"+endMarker+"\n\n## Earlier\n"), 0o644))
	require.NoError(t, sections(&out, md, "Latest runs: test", []string{a, b}))
	got, err := os.ReadFile(md)
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(string(got), "# B\n\n"+beginMarker+"\n\n## Latest runs: test\n"))
	assert.NotContains(t, string(got), "old")
	assert.True(t, strings.HasSuffix(string(got), endMarker+"\n\n## Earlier\n"))
	assert.Contains(t, string(got), "-write "+md+" -title 'Latest runs: test' "+a+" "+b)

	require.NoError(t, os.WriteFile(md, []byte("# no markers\n"), 0o644))
	assert.ErrorContains(t, sections(&out, md, "", []string{a}), "no \""+beginMarker)
}
