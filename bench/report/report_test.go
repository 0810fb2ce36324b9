package report

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestPercentileNearestRank(t *testing.T) {
	s := []float64{5, 1, 4, 2, 3, 6, 7, 8, 9, 10}
	assert.Equal(t, 5.0, Percentile(s, 50))
	assert.Equal(t, 10.0, Percentile(s, 99))
	assert.Equal(t, 1.0, Percentile(s, 0))
	assert.Equal(t, 0.0, Percentile(nil, 50))
}

func TestReportRoundTrip(t *testing.T) {
	r := New("demo", "host:0 (cpu)", "host", 0)
	r.Add("alloc", map[string]string{"size": "512B"}, map[string]float64{"p50_ns": 42.5, "ratio": 12.25})
	r.Note("target missed by %d%%", 3)
	dir := t.TempDir()
	require.NoError(t, r.WriteJSON(dir))
	b, err := os.ReadFile(filepath.Join(dir, "demo.json"))
	require.NoError(t, err)
	assert.Contains(t, string(b), `"p50_ns": 42.5`)
	var md bytes.Buffer
	r.Markdown(&md, []string{"size"}, []string{"p50_ns", "ratio", "missing"})
	assert.Contains(t, md.String(), "| alloc | 512B | 42.5 | 12.2 | — |")
	assert.Contains(t, md.String(), "target missed by 3%")
}

func TestLoadAndKeys(t *testing.T) {
	r := New("k", "dev", "cuda", 13000)
	r.Add("a", map[string]string{"size": "1"}, map[string]float64{"p99_ns": 2, "p50_ns": 1})
	r.Add("b", map[string]string{"mode": "x"}, map[string]float64{"ratio": 3})
	dir := t.TempDir()
	require.NoError(t, r.WriteJSON(dir))
	got, err := Load(filepath.Join(dir, "k.json"))
	require.NoError(t, err)
	labels, metrics := got.Keys()
	assert.Equal(t, []string{"size", "mode"}, labels)
	assert.Equal(t, []string{"p50_ns", "p99_ns", "ratio"}, metrics)
	_, err = Load(filepath.Join(dir, "missing.json"))
	assert.Error(t, err)
}

// Every row with a target gets a verdict; the Markdown shows it per row
// and lists every miss, not only some.
func TestJudgeAndVerdicts(t *testing.T) {
	r := New("v", "dev", "cuda", 13000)
	r.Add("empty", map[string]string{"path": "ours"}, map[string]float64{"p50_ns": 316}).Judge("p50_ns", AtMost, 300)
	r.Add("read", map[string]string{"path": "0 B"}, map[string]float64{"p50_ns": 42}).Judge("p50_ns", AtMost, 50)
	r.Add("read", map[string]string{"path": "beyond the copy"}, map[string]float64{"p50_ns": 129}).Judge("p50_ns", AtMost, 50)
	r.Add("scaling", nil, map[string]float64{"speedup": 7.6}).Judge("speedup", AtLeast, 8)
	r.Add("hot", nil, map[string]float64{"p50_ns": 90, "p99_ns": 1200}).Judge("p50_ns", AtMost, 100).Judge("p99_ns", AtMost, 1000)
	r.Add("absent", nil, map[string]float64{}).Judge("p50_ns", AtMost, 1)
	r.Add("plain", nil, map[string]float64{"p50_ns": 1})

	verdicts := []string{}
	for _, row := range r.Rows {
		verdicts = append(verdicts, row.Verdict())
	}
	assert.Equal(t, []string{"missed", "met", "missed", "missed", "missed", "missed", ""}, verdicts)
	judged, missed := r.Judged()
	assert.Len(t, judged, 6)
	assert.Len(t, missed, 5)
	assert.Equal(t, "hot: p50_ns = 90.0 (target <= 100, met); p99_ns = 1200 (target <= 1000, missed)", missed[3].Describe())
	assert.Equal(t, "absent: p50_ns = not measured (target <= 1, missed)", missed[4].Describe())

	var md bytes.Buffer
	r.Markdown(&md, []string{"path"}, []string{"p50_ns"})
	assert.Contains(t, md.String(), "| case | path | p50_ns | target | verdict |")
	assert.Contains(t, md.String(), "| read | beyond the copy | 129.0 | p50_ns <= 50 | missed |")
	assert.Contains(t, md.String(), "| plain |  | 1 | — | — |")
	assert.Contains(t, md.String(), "Targets: 6 judged, 1 met, 5 missed.")
	for _, row := range missed {
		assert.Contains(t, md.String(), "- Missed: "+row.Describe()+"\n")
	}

	// The verdicts survive the JSON.
	dir := t.TempDir()
	require.NoError(t, r.WriteJSON(dir))
	got, err := Load(filepath.Join(dir, "v.json"))
	require.NoError(t, err)
	assert.Equal(t, r.Rows, got.Rows)
}
