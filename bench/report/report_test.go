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
